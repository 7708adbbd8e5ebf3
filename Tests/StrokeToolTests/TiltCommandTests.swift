import Foundation
import Testing

/// `stroke-tool tilt`: the checkmark detector on a tilted subject's strokes, as drawn and following the tilt.
@Suite("stroke-tool tilt")
struct TiltCommandTests {
    @Test("rows as drawn, detector following and both following per tilt; following, a tilted subject is upright")
    func rows() throws {
        let result = try StrokeToolTests.run([
            "tilt", "--dataset", StrokeToolTests.fixtures, "--tilts", "-40, 0", "--json",
        ])
        #expect(result.status == 0, "\(result.error)")
        let object = try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as! [String: Any]
        let rows = try #require(object["rows"] as? [[String: Any]])
        #expect(rows.map { $0["tilt"] as? Double } == [-40, -40, -40, 0, 0, 0])
        #expect(rows.map { $0["tracking"] as? Bool } == [false, true, true, false, true, true])
        #expect(rows.map { $0["matching"] as? Bool } == [false, false, true, false, false, true])
        let checks = rows.map { $0["checksFired"] as? Double ?? -1 }
        #expect(checks[0] < checks[3] && checks[1] == checks[3] && checks[2] == checks[3] && checks[4] == checks[3])
        // Tilted by 40°, the library misses strokes as drawn that it matches turned back; upright, all rows agree.
        let accuracy = rows.map { $0["accuracy"] as? Double ?? -1 }
        #expect(accuracy[0] < accuracy[2] && accuracy[3] == accuracy[5], "\(accuracy)")
        let text = try StrokeToolTests.run(["tilt", "--dataset", StrokeToolTests.fixtures, "--tilts", "20"])
        #expect(text.status == 0 && text.output.contains("detector") && text.output.contains("as drawn"))
        #expect(text.output.contains("both"))
        // Each session's estimate starting from the tilt (--given-tilt): its first strokes are matched turned back.
        let given = try StrokeToolTests.run([
            "tilt", "--dataset", StrokeToolTests.fixtures, "--tilts", "-40", "--given-tilt", "--json",
        ])
        #expect(given.status == 0, "\(given.error)")
        let givenRows = try #require(
            (try JSONSerialization.jsonObject(with: Data(given.output.utf8)) as? [String: Any])?["rows"]
                as? [[String: Any]])
        let first = { (rows: [[String: Any]]) in rows.map { $0["firstStrokesAccuracy"] as? Double ?? -1 } }
        #expect(first(givenRows)[0] == first(rows)[0], "as drawn, nothing is given")
        #expect(first(givenRows)[2] > first(rows)[2], "\(first(givenRows)) \(first(rows))")
        #expect(givenRows[2]["accuracy"] as? Double ?? 0 >= accuracy[2])
    }

    @Test("--multistroke: a tilted player's gestures of several strokes are matched turned back by the estimate")
    func multistroke() throws {
        let result = try StrokeToolTests.run([
            "tilt", "--dataset", StrokeToolTests.fixtures, "--multistroke", "2", "--tilts", "-40, 0", "--json",
        ])
        #expect(result.status == 0, "\(result.error)")
        let object = try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as! [String: Any]
        #expect(object["strokesPerGesture"] as? Int == 2)
        // x, arrow, rectangle and triangle are cut; the other gestures come whole.
        #expect(object["cutTested"] as? Int == 20 && object["wholeTested"] as? Int == 60, "\(object)")
        let rows = try #require(object["rows"] as? [[String: Any]])
        #expect(rows.map { $0["tilt"] as? Double } == [-40, -40, 0, 0])
        #expect(rows.map { $0["following"] as? Bool } == [false, true, false, true])
        let cut = rows.map { $0["cut"] as? Double ?? -1 }
        let whole = rows.map { $0["whole"] as? Double ?? -1 }
        // Tilted by 40°, following the estimate that the whole gestures give wins the cut ones back.
        #expect(cut[0] < cut[1] && whole[0] < whole[1], "\(cut) \(whole)")
        #expect(cut[2] == cut[3] && whole[2] == whole[3] && cut[1] <= cut[2], "\(cut) \(whole)")
        let text = try StrokeToolTests.run([
            "tilt", "--dataset", StrokeToolTests.fixtures, "--multistroke", "3", "--tilts", "20",
        ])
        #expect(text.status == 0 && text.output.contains("cut into 3 strokes") && text.output.contains("follows"))
        for bad in ["5", "2,3", "two"] {
            let refused = try StrokeToolTests.run(["tilt", "--dataset", StrokeToolTests.fixtures, "--multistroke", bad])
            #expect(refused.status == 2, "--multistroke \(bad)")
        }
    }

    @Test("a tilt that is no angle, or no data set, is refused with status 2")
    func refused() throws {
        let bad = try StrokeToolTests.run(["tilt", "--dataset", StrokeToolTests.fixtures, "--tilts", "10,up"])
        #expect(bad.status == 2 && bad.error.contains("\"up\""))
        #expect(try StrokeToolTests.run(["tilt", "--dataset", StrokeToolTests.fixtures, "--tilts", "200"]).status == 2)
        #expect(try StrokeToolTests.run(["tilt"]).status == 2)
    }

    /// The shipped stroke `file` of subject s02 as a STROKES.json entry, turned by `degrees` about the origin; with
    /// `halves`, as a gesture of two strokes, cut in the middle (the second begins where the first ends).
    static func entry(_ file: String, name: String, turnedBy degrees: Double, halves: Bool = false) throws -> String {
        let text = try String(contentsOfFile: StrokeToolTests.fixtures + "/s02/medium/" + file, encoding: .utf8)
        let (c, s) = (cos(degrees * .pi / 180), sin(degrees * .pi / 180))
        // `<Point X="…" Y="…" T="…" />`, the times made relative to the first.
        let matches = text.matches(of: /<Point X="([-0-9.]+)" Y="([-0-9.]+)" T="([0-9]+)"/)
        let start = Double(matches.first?.output.3 ?? "0") ?? 0
        let points = matches.map { match -> String in
            let (x, y, t) = (Double(match.output.1)!, Double(match.output.2)!, Double(match.output.3)! - start)
            return "[\(x * c - y * s), \(x * s + y * c), \(t)]"
        }
        #expect(points.count > 10)
        guard halves else { return #"{"name": "\#(name)", "points": [\#(points.joined(separator: ", "))]}"# }
        let middle = points.count / 2
        let strokes = [points[...middle], points[middle...]].map { "[" + $0.joined(separator: ", ") + "]" }
        return #"{"name": "\#(name)", "strokes": [\#(strokes.joined(separator: ", "))]}"#
    }

    @Test("recognize takes a file's strokes as one session's: a tilted check fires after three tilted shapes")
    func recognizeFollows() throws {
        let entries = try [
            Self.entry("arrow01.xml", name: "arrow", turnedBy: 35),
            Self.entry("left_curly_brace01.xml", name: "left_curly_brace", turnedBy: 35),
            Self.entry("arrow02.xml", name: "arrow", turnedBy: 35),
            Self.entry("check02.xml", name: "check", turnedBy: 35),
        ]
        try StrokeToolTests.withTemporaryDirectory("tilt") { directory in
            let file = try StrokeToolTests.strokesFile(entries, in: directory)
            func answers(_ extra: [String]) throws -> [[String: Any]] {
                let result = try StrokeToolTests.run(["recognize", "--strokes", file, "--json"] + extra)
                #expect(result.status == 0, "\(result.error)")
                return result.output.split(separator: "\n").compactMap {
                    try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
                }
            }
            let followed = try answers([])
            #expect(followed.map { $0["match"] as? String } == ["arrow", "left_curly_brace", "arrow", "check"])
            #expect(followed[3]["checkmarkPointIndex"] is Int)
            let asDrawn = try answers(["--follow-tilt", "off"])
            #expect(asDrawn[3]["checkmarkPointIndex"] == nil)
            #expect(try StrokeToolTests.run(["recognize", "--strokes", file, "--follow-tilt", "maybe"]).status == 2)
        }
    }

    @Test("recognize: gestures of two strokes that match a template of one tell the tilt too, as in the worker")
    func recognizeFollowsGestures() throws {
        let entries = try [
            Self.entry("arrow01.xml", name: "arrow", turnedBy: 35, halves: true),
            Self.entry("left_curly_brace01.xml", name: "left_curly_brace", turnedBy: 35, halves: true),
            Self.entry("arrow02.xml", name: "arrow", turnedBy: 35, halves: true),
            Self.entry("check02.xml", name: "check", turnedBy: 35),
        ]
        try StrokeToolTests.withTemporaryDirectory("tilt-gestures") { directory in
            let file = try StrokeToolTests.strokesFile(entries, in: directory)
            let result = try StrokeToolTests.run(["recognize", "--strokes", file, "--json"])
            #expect(result.status == 0, "\(result.error)")
            let answers = result.output.split(separator: "\n").compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }
            #expect(answers.map { $0["match"] as? String } == ["arrow", "left_curly_brace", "arrow", "check"])
            #expect(answers.last?["checkmarkPointIndex"] is Int, "the check is judged turned back: \(answers)")
        }
    }
}
