import Foundation
import Testing

@testable import StrokeRecognition

/// Gestures with thresholds of their own (`TemplateLibrary.gestureMinimumScores`).
@Suite("Recognition: a gesture's own threshold")
struct GestureThresholdTests {
    /// The built-in library with `thresholds` for some of its gestures, and its library-wide one at `library`.
    static func recognizer(_ thresholds: [String: Double], library score: Double? = nil) throws -> Recognizer {
        var library = try TemplateLibrary.builtIn()
        library.gestureMinimumScores = thresholds
        if let score { library.minimumScore = score }
        return try Recognizer(library: library)
    }

    /// A recorded check of the shipped logs, and the score its match reaches in the built-in library.
    static func check() throws -> (points: [StrokePoint], score: Double) {
        let points = Fixtures.log("check").points
        let match = try #require(try Recognizer(library: TemplateLibrary.builtIn()).recognize(points).match)
        #expect(match.name == "check")
        return (points, match.score)
    }

    // MARK: - Matching

    @Test("a gesture's threshold above the stroke's score turns it away, with the same candidates; others' do not")
    func raised() throws {
        let (points, score) = try Self.check()
        #expect(score > 0.7 && score < 0.95)
        let plain = try Recognizer(library: TemplateLibrary.builtIn()).recognize(points)
        let strict = try Self.recognizer(["check": score + 0.01]).recognize(points)
        #expect(strict.match == nil)
        #expect(strict.candidates == plain.candidates)
        #expect(try Self.recognizer(["check": score]).recognize(points).match?.name == "check")
        // Another gesture's threshold, even the runner-up's, changes nothing.
        let runnerUp = plain.candidates[1].name
        #expect(try Self.recognizer([runnerUp: 1, "star": 1]).recognize(points).match == plain.match)
    }

    @Test("a gesture's threshold below the library's lets that gesture match where the library would not")
    func lowered() throws {
        let (points, score) = try Self.check()
        #expect(try Self.recognizer([:], library: score + 0.05).recognize(points).match == nil)
        #expect(
            try Self.recognizer(["check": score - 0.05], library: score + 0.05).recognize(points).match?.name == "check"
        )
        #expect(try Self.recognizer(["v": 0], library: score + 0.05).recognize(points).match == nil)
        #expect(try Self.recognizer([:], library: score + 0.05).threshold(for: "check") == score + 0.05)
        #expect(try Self.recognizer(["check": 0.25]).threshold(for: "check") == 0.25)
    }

    @Test("among some gestures, and with the checkmark detector's verdict, each candidate meets its own threshold")
    func selectionAndVerdict() throws {
        let (points, score) = try Self.check()
        let strict = try Self.recognizer(["check": score + 0.01])
        #expect(try strict.recognize(points: points.map(\.position), among: ["check", "v"]).match == nil)
        #expect(try strict.recognize(points: points.map(\.position), among: ["v", "caret"]).match?.name != "check")
        // The detector fired on a stroke whose best is a v and whose check is close behind: the check is chosen
        // only where it reaches its own threshold.
        var configuration = RecognizerConfiguration.default
        configuration.checkmarkMargin = 0.04
        let candidates = [("v", 0.83), ("check", 0.81)].map {
            RecognitionResult.Candidate(name: $0.0, score: $0.1, distance: 1 / $0.1 - 1)
        }
        let result = RecognitionResult(match: candidates[0], candidates: candidates)
        func chosen(_ thresholds: [String: Double]) -> String? {
            result.applyingCheckmark(fired: true, configuration: configuration) { thresholds[$0] ?? 0.5 }.match?.name
        }
        #expect(chosen([:]) == "check")
        #expect(chosen(["check": 0.82]) == "v")
        #expect(chosen(["check": 0.81, "v": 0.9]) == "check")
    }

    // MARK: - The file

    @Test("saved as version 3 under gestures, read back; a library without one stays at version 1 or 2")
    func file() throws {
        var library = TemplateLibrary(name: "spells", minimumScore: 0.6)
        library.add(GestureTemplate(name: "zap", points: [SIMD2(0, 0), SIMD2(1.5, 2), SIMD2(3, 0)]))
        #expect(library.fileVersion == 1)
        library.gestureMinimumScores = ["zap": 0.8, "fireball": 0.75]
        #expect(library.fileVersion == 3)
        let data = try library.jsonData()
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(object["version"] as? Int == 3)
        #expect(
            (object["gestures"] as? [String: [String: Double]]) == [
                "zap": ["minimumScore": 0.8], "fireball": ["minimumScore": 0.75],
            ])
        let loaded = try TemplateLibrary(json: data)
        #expect(loaded == library)
        #expect(loaded.threshold(for: "zap") == 0.8 && loaded.threshold(for: "other") == 0.6)
        library.gestureMinimumScores = [:]
        #expect(library.fileVersion == 1)
        #expect(!String(decoding: try library.jsonData(), as: UTF8.self).contains("gestures"))
    }

    static let head =
        #"{"format":"stroke-worker/template-library","name":"x","orientation":"sensitive","templates":[],"#

    @Test(
        "a gesture's threshold out of range, unnamed, malformed, or in a file older than version 3 is refused",
        arguments: [
            (#""version":3,"gestures":{"a":{"minimumScore":1.5}}}"#, "gestures.a.minimumScore 1.5 is outside 0...1"),
            (#""version":3,"gestures":{"a":{"minimumScore":-0.1}}}"#, "gestures.a.minimumScore -0.1 is outside"),
            (#""version":3,"gestures":{"":{"minimumScore":0.7}}}"#, "gestures has an empty name"),
            (#""version":3,"gestures":{"a":{"minimumscore":0.7}}}"#, "missing field \"minimumScore\""),
            (#""version":3,"gestures":{"a":0.7}}"#, "gestures.a: expected"),
            (#""version":2,"gestures":{"a":{"minimumScore":0.7}}}"#, "gestures needs version 3"),
        ])
    func refused(tail: String, message: String) {
        do {
            _ = try TemplateLibrary(json: Data((Self.head + tail).utf8), source: "t.json")
            Issue.record("expected an error for \(tail)")
        } catch {
            #expect(error.code == .malformedLibrary)
            #expect(error.message.contains(message), "\(error.message)")
        }
    }

    // MARK: - Measuring

    /// Each shipped subject's strokes, and a library of medoids of the other's.
    static func subjects(minimumScore: Double) throws -> [(samples: [DollarLog], library: TemplateLibrary)] {
        try ["s02", "s03"].map { subject in
            var library = try TemplateLibrary.medoids(
                name: "without-\(subject)", samples: Fixtures.logs.filter { $0.subject != subject }, perGesture: 2)
            library.minimumScore = minimumScore
            return (Fixtures.logs.filter { $0.subject == subject }, library)
        }
    }

    @Test("a trial's figures are the evaluator's, known and unknown; a gesture's own threshold moves only its share")
    func trial() throws {
        let subjects = try Self.subjects(minimumScore: 0.59)
        let trial = try ThresholdTrial(subjects: subjects)
        let report = trial.report(thresholds: [0.59, 0.7])
        #expect(
            trial.strokes == Fixtures.logs.count && report.uniform.map(\.strokes) == [trial.strokes, trial.strokes])
        for (index, score) in [0.59, 0.7].enumerated() {
            // What `stroke-tool robustness` reports for the same libraries: accuracy, and strokes turned away
            // among all the other gestures.
            var recognized = 0.0
            var turnedAway = 0.0
            for (samples, library) in subjects {
                var library = library
                library.minimumScore = score
                var evaluator = Evaluator(samples: samples)
                recognized += try evaluator.userIndependent(library: library).accuracy * Double(samples.count)
                evaluator.chosenGestures = library.gestureNames.count - 1
                evaluator.choiceIncludesOwn = false
                evaluator.recognizerConfiguration.choiceMargin = .infinity
                turnedAway += try evaluator.userIndependent(library: library).accuracy * Double(samples.count)
            }
            let overall = report.uniform[index]
            #expect(overall == trial.overall(minimumScore: score))
            #expect(
                overall.recognized == Int(recognized.rounded())
                    && overall.unknownTurnedAway == Int(turnedAway.rounded()))
            // The gestures' figures add up to the library's.
            let byGesture = report.gestures.map { ($0.recognized[index] * Double($0.strokes)).rounded() }
            #expect(Int(byGesture.reduce(0, +)) == overall.recognized)
            #expect(
                report.gestures.map { $0.unknownTaken[index] }.reduce(0, +) == trial.strokes - overall.unknownTurnedAway
            )
        }
        #expect(report.uniform[1].recognized <= report.uniform[0].recognized)
        #expect(report.uniform[1].unknownTurnedAway >= report.uniform[0].unknownTurnedAway)
        // A circle that no stroke can reach: the circles recognized are lost, the unknown strokes it took are
        // turned away, and nothing else changes.
        let circle = try #require(report.gestures.first { $0.name == "circle" })
        #expect(circle.unknownTaken[0] > 0 && circle.recognized[0] > 0)
        let strict = trial.overall(minimumScore: 0.59, gestureMinimumScores: ["circle": 1])
        #expect(
            strict.recognized == report.uniform[0].recognized
                - Int((circle.recognized[0] * Double(circle.strokes)).rounded()))
        #expect(strict.unknownTurnedAway == report.uniform[0].unknownTurnedAway + circle.unknownTaken[0])
    }
}
