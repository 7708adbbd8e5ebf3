import Foundation
import Testing

@testable import StrokeRecognition

@Suite("$1 logs and evaluation")
struct DollarLogAndEvaluatorTests {
    @Test("parses a log with a byte-order mark")
    func parse() throws {
        let xml =
            "\u{FEFF}<?xml version=\"1.0\"?>\n<Gesture Name=\"check07\" Subject=\"4\" Speed=\"fast\">"
            + "<Point X=\"1\" Y=\"2\" T=\"100\" /><Point X=\"3\" Y=\"5\" T=\"116\" /></Gesture>"
        let log = try DollarLog(xml: Data(xml.utf8), source: "t.xml")
        #expect(log.gesture == "check")
        #expect(log.subject == "s4")
        #expect(log.points == [StrokePoint(x: 1, y: 2, time: 100), StrokePoint(x: 3, y: 5, time: 116)])
    }

    @Test("reads a log whose tags span lines, with tabs and with white space around =")
    func whiteSpace() throws {
        // Before session 86 only a space after a tag's name counted: these tags were not found ("no <Gesture>").
        let xml =
            "<?xml version=\"1.0\"?>\r\n<Gesture\r\n  Name = 'circle12'\tSubject=\"9\">\r\n"
            + "<Point\n\tX=\"1.5\"\n\tY =\"-2\"\n\tT= \"10\"/>\r\n<Point\tX=\"3\"\tY=\"4\"\tT=\"26\"\t/></Gesture>"
        let log = try DollarLog(xml: Data(xml.utf8), source: "t.xml")
        #expect(log.gesture == "circle")
        #expect(log.subject == "s9")
        #expect(log.points == [StrokePoint(x: 1.5, y: -2, time: 10), StrokePoint(x: 3, y: 4, time: 26)])
    }

    @Test("malformed logs give clear errors")
    func malformed() {
        for xml in [
            "<Nothing/>", "<Gesture Name=\"x01\"></Gesture>", "<Gesture Name=\"x01\"><Point X=\"a\" Y=\"1\" T=\"1\"/>",
        ] {
            #expect(throws: RecognitionError.self) { try DollarLog(xml: Data(xml.utf8), source: "bad.xml") }
        }
        #expect(throws: RecognitionError.self) { try DollarLog.loadDataset("/nonexistent") }
    }

    @Test("a data set is read through symbolic links, to it whole or to its subjects; a link back up, once")
    func linkedDataSet() throws {
        // Before session 87 Foundation's enumerator followed no link: a linked data set had "no .xml gesture logs".
        let directory = NSTemporaryDirectory() + "dataset-links-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory + "/bySubject", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let real = try DollarLog.loadDataset(Fixtures.directory)
        #expect(!real.isEmpty)
        #expect(symlink(Fixtures.directory, directory + "/whole") == 0)
        for subject in ["s02", "s03"] {
            #expect(symlink(Fixtures.directory + "/" + subject, directory + "/bySubject/" + subject) == 0)
        }
        #expect(symlink("..", directory + "/bySubject/up") == 0)  // a loop: read once
        #expect(symlink("/nonexistent", directory + "/bySubject/gone") == 0)  // a link to nothing: passed over
        for linked in [directory + "/whole", directory + "/whole/", directory + "/bySubject"] {
            let logs = try DollarLog.loadDataset(linked)
            // Compared whole, not printed whole (thousands of points) where they differ.
            let same = logs.map(\.points) == real.map(\.points) && logs.map(\.subject) == real.map(\.subject)
            #expect(same, "\(linked): \(logs.count) logs against \(real.count)")
        }
        #expect(throws: RecognitionError.self) { try DollarLog.loadDataset(directory + "/bySubject/gone") }
    }

    @Test("the user-dependent protocol on the fixtures")
    func userDependent() throws {
        let evaluator = Evaluator(samples: Fixtures.logs)
        let report = try evaluator.userDependent(templatesPerGesture: 1, trials: 3, seed: 1)
        #expect(report.tests == 2 * 3 * 16)
        #expect(report.accuracy >= 0.9)
        #expect(report.perGesture.count == 16)
        #expect(report.checkmark.truePositiveRate == 1)
        #expect(report.checkmark.falsePositiveRate <= 0.05)
        #expect(report.checkmark.medianLeadFraction > 0)
        #expect(report.microsecondsPerRecognition > 0)
    }

    @Test("the user-dependent protocol refuses what would crash or test nothing, saying why")
    func userDependentRefusals() {
        let evaluator = Evaluator(samples: Fixtures.logs)
        // Before, -1 trapped on a range whose end was below its start, and 0 reported 0% of 0 tests.
        for (perGesture, trials) in [(1, -1), (1, 0), (-1, 3), (0, 3)] {
            let error = #expect(throws: RecognitionError.self) {
                try evaluator.userDependent(templatesPerGesture: perGesture, trials: trials, seed: 1)
            }
            #expect(error?.code == .invalidConfiguration)
            #expect(error?.message.contains("got \(perGesture) and \(trials)") == true, "\(String(describing: error))")
        }
        // The fixtures hold at most a few samples of a gesture per subject and speed: with ten templates none is left.
        let error = #expect(throws: RecognitionError.self) {
            try evaluator.userDependent(templatesPerGesture: 10, trials: 1, seed: 1)
        }
        #expect(error?.message.contains("with 10 templates per gesture, none is left to test") == true)
    }

    @Test("the user-independent protocol and library building")
    func userIndependent() throws {
        let training = Fixtures.logs.filter { $0.subject == "s02" }
        let library = try TemplateLibrary.medoids(name: "m", samples: training, perGesture: 2)
        #expect(library.templates.count == 32)
        let condensed = try TemplateLibrary.condensed(name: "c", samples: training)
        #expect(condensed.gestureNames.count == 16)
        let evaluator = Evaluator(samples: Fixtures.logs.filter { $0.subject == "s03" })
        let report = try evaluator.userIndependent(library: library)
        #expect(report.tests == 32)
        #expect(report.accuracy >= 0.85)
    }

    @Test("strokes recognized among some gestures: their own alone always wins; all of them changes nothing")
    func amongChosenGestures() throws {
        let templates = try TemplateLibrary.medoids(
            name: "m", samples: Fixtures.logs.filter { $0.subject == "s02" }, perGesture: 1)
        // No threshold: a stroke recognized among its own gesture alone can be nothing else.
        let library = TemplateLibrary(name: "m", minimumScore: 0, templates: templates.templates)
        var evaluator = Evaluator(samples: Fixtures.logs.filter { $0.subject == "s03" })
        let all = try evaluator.userIndependent(library: library)
        evaluator.chosenGestures = 1
        let own = try evaluator.userIndependent(library: library)
        #expect(own.accuracy == 1 && own.tests == all.tests)
        evaluator.chosenGestures = 16
        let every = try evaluator.userIndependent(library: library)
        #expect(every.accuracy == all.accuracy)
        #expect(every.confusions.map(\.actual) == all.confusions.map(\.actual))
    }
}
