import Foundation
import Testing

/// The `stroke-tool` executable, run as a user would, on the strokes shipped under Tests/.
@Suite("stroke-tool")
struct StrokeToolTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../StrokeRecognitionTests/Fixtures/dollar1-mini").standardized.path

    /// The built executable, beside the test bundle.
    static var tool: String {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<3 {
            let candidate = directory.appendingPathComponent("stroke-tool").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        return URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../.build/debug/stroke-tool").standardized.path
    }

    /// Calls `body` with a new directory under the temporary one (its name starting with `prefix`), removed after.
    static func withTemporaryDirectory<Result>(_ prefix: String, _ body: (String) throws -> Result) throws -> Result {
        let directory = NSTemporaryDirectory() + "\(prefix)-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        return try body(directory)
    }

    /// Writes `entries`, STROKES.json objects, as a STROKES.json file in `directory`; returns its path.
    static func strokesFile(_ entries: [String], in directory: String) throws -> String {
        let path = directory + "/strokes-\(UUID().uuidString).json"
        try Data(("[" + entries.joined(separator: ", ") + "]").utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    static func run(_ arguments: [String], environment: [String: String] = [:]) throws -> (
        status: Int32, output: String, error: String
    ) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let output = Pipe()
        let error = Pipe()
        process.standardOutput = output
        process.standardError = error
        try process.run()
        let out = output.fileHandleForReading.readDataToEndOfFile()
        let err = error.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: out, as: UTF8.self), String(decoding: err, as: UTF8.self))
    }

    @Test("eval --json prints exactly one JSON object with the documented keys")
    func evalJSON() throws {
        let result = try Self.run(["eval", "--dataset", Self.fixtures, "--trials", "2", "--json"])
        #expect(result.status == 0, "\(result.error)")
        let object = try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as! [String: Any]
        let accuracy = try #require(object["accuracy"] as? Double)
        #expect((0.9...1).contains(accuracy))
        let checkmark = try #require(object["checkmark"] as? [String: Any])
        #expect(checkmark["truePositiveRate"] as? Double == 1)
        #expect(checkmark["falsePositiveRate"] is Double && checkmark["medianLeadFraction"] is Double)
        #expect((object["microsecondsPerRecognition"] as? Double ?? 0) > 0)
    }

    @Test("eval user-independent with the built-in library, as text")
    func evalText() throws {
        let result = try Self.run(["eval", "--dataset", Self.fixtures, "--protocol", "user-independent"])
        #expect(result.status == 0)
        #expect(result.output.contains("accuracy:") && result.output.contains("checkmark:"))
    }

    @Test("recognize --gestures and eval --among answer among the chosen gestures only")
    func chosenGestures() throws {
        let answers = try Self.run([
            "recognize", "--dataset", Self.fixtures, "--subjects", "s02", "--gestures", "circle,x", "--json",
        ])
        #expect(answers.status == 0, "\(answers.error)")
        let lines = answers.output.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        let all = try Self.run(["recognize", "--dataset", Self.fixtures, "--subjects", "s02", "--json"])
        #expect(lines.count == 48 && all.output.split(separator: "\n").count == 48)
        for line in lines {
            let names = (line["candidates"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
            #expect(!names.isEmpty && Set(names).isSubset(of: ["circle", "x"]))
            if line["expected"] as? String == "circle" || line["expected"] as? String == "x" {
                #expect(line["match"] as? String == line["expected"] as? String)
            }
        }
        // --gesture takes one name whole: two of them choose as the list does; a name with a comma is one name.
        let repeated = try Self.run([
            "recognize", "--dataset", Self.fixtures, "--subjects", "s02", "--gesture", "circle", "--gesture", "x",
            "--json",
        ])
        #expect(repeated.status == 0 && repeated.output == answers.output)
        let comma = try Self.run([
            "recognize", "--dataset", Self.fixtures, "--subjects", "s02", "--gesture", "circle,x", "--json",
        ])
        let commaLines = comma.output.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        #expect(comma.status == 0 && commaLines.count == 48)
        #expect(commaLines.allSatisfy { ($0["candidates"] as? [Any])?.isEmpty == true && $0["match"] == nil })
        let own = try Self.run([
            "eval", "--dataset", Self.fixtures, "--protocol", "user-independent", "--among", "1", "--json",
        ])
        #expect(own.status == 0, "\(own.error)")
        let report = try JSONSerialization.jsonObject(with: Data(own.output.utf8)) as! [String: Any]
        // Among its own gesture alone, a stroke is that gesture, below the built-in library's threshold, or another
        // gesture outside the choice.
        #expect(
            (report["confusions"] as? [[String: Any]] ?? []).allSatisfy {
                let actual = $0["actual"] as? String ?? ""
                return actual == "(none)" || actual.hasPrefix("(not chosen: ")
            })
        #expect(try Self.run(["eval", "--dataset", Self.fixtures, "--among", "-1"]).status == 2)
    }

    @Test("recognize and eval name the gesture outside the choice that answers, by --choice-margin")
    func outsideTheChoice() throws {
        func lines(_ arguments: [String]) throws -> [[String: Any]] {
            let result = try Self.run(
                ["recognize", "--dataset", Self.fixtures, "--subjects", "s02", "--json"] + arguments)
            #expect(result.status == 0, "\(result.error)")
            return result.output.split(separator: "\n").compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }
        }
        let strict = try lines(["--gestures", "circle,x"])
        let lenient = try lines(["--gestures", "circle,x", "--choice-margin", "inf"])
        #expect(strict.count == 48 && lenient.count == 48)
        func named(_ line: [String: Any]) -> Bool {
            (line["unchosen"] as? [String: Any])?["name"] as? String == line["expected"] as? String
        }
        let others = strict.indices.filter { !["circle", "x"].contains(strict[$0]["expected"] as? String) }
        // Strokes of other gestures: at 0.05, nearly all are turned away, named; at inf, only those that no chosen
        // gesture matched.
        let turnedAway = others.filter { strict[$0]["match"] == nil && named(strict[$0]) }
        let lenientAway = others.filter { lenient[$0]["match"] == nil && named(lenient[$0]) }
        #expect(turnedAway.count >= others.count * 9 / 10)
        #expect(lenientAway.count < turnedAway.count)
        #expect(strict.allSatisfy { $0["match"] == nil || $0["unchosen"] == nil })
        let text = try Self.run(["recognize", "--dataset", Self.fixtures, "--subjects", "s02", "--gestures", "circle"])
        #expect(text.output.contains("not chosen: check"))
        #expect(try Self.run(["recognize", "--dataset", Self.fixtures, "--choice-margin", "-1"]).status != 0)

        func rejected(_ margin: String) throws -> Double {
            let result = try Self.run([
                "eval", "--dataset", Self.fixtures, "--protocol", "user-independent", "--among-others", "4",
                "--choice-margin", margin, "--json",
            ])
            #expect(result.status == 0, "\(result.error)")
            let report = try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any]
            return report?["accuracy"] as? Double ?? -1
        }
        // Among 4 gestures that are not its own, a stroke counts as right when no chosen gesture answers it.
        let (atDefault, atInf) = (try rejected("0.05"), try rejected("inf"))
        #expect(atDefault > 0.9 && atInf < atDefault)
        #expect(try Self.run(["eval", "--dataset", Self.fixtures, "--among-others", "0"]).status == 2)
        #expect(try Self.run(["eval", "--dataset", Self.fixtures, "--among", "2", "--among-others", "2"]).status == 2)
    }

    @Test("robustness: a row per perturbation, subjects left out of their libraries; eval --perturb changes results")
    func robustness() throws {
        let result = try Self.run([
            "robustness", "--dataset", Self.fixtures, "--perturbations", "none; rotate=90; jitter=0.01", "--json",
        ])
        #expect(result.status == 0, "\(result.error)")
        let object = try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as! [String: Any]
        let rows = try #require(object["rows"] as? [[String: Any]])
        #expect(rows.map { $0["perturbation"] as? String } == ["none", "rotate=90", "jitter=0.01"])
        let accuracies = rows.map { $0["accuracy"] as? Double ?? -1 }
        #expect(accuracies[0] > 0.8 && accuracies[1] < 0.5)  // a quarter turn defeats an orientation-sensitive library
        #expect(rows.allSatisfy { ($0["checkmark"] as? [String: Any])?["truePositiveRate"] is Double })
        let text = try Self.run(["robustness", "--dataset", Self.fixtures, "--perturbations", "ease=2"])
        #expect(text.status == 0 && text.output.contains("ease=2") && text.output.contains("left out"))
        let turned = try Self.run([
            "eval", "--dataset", Self.fixtures, "--protocol", "user-independent", "--perturb", "rotate=90", "--json",
        ])
        let report = try JSONSerialization.jsonObject(with: Data(turned.output.utf8)) as! [String: Any]
        #expect((report["accuracy"] as? Double ?? 1) < 0.5)
        // A gesture the library lacks: a stricter threshold turns more of its strokes away, and fewer are recognized.
        let strict = try Self.run([
            "robustness", "--dataset", Self.fixtures, "--perturbations", "none", "--minimum-score", "0.8", "--json",
        ])
        let strictRow = try #require(
            ((try JSONSerialization.jsonObject(with: Data(strict.output.utf8)) as? [String: Any])?["rows"]
                as? [[String: Any]])?.first)
        let unknown = (rows[0]["unknownRejected"] as? Double ?? -1, strictRow["unknownRejected"] as? Double ?? -1)
        #expect(unknown.0 >= 0 && unknown.0 < unknown.1)
        #expect((strictRow["accuracy"] as? Double ?? 1) < accuracies[0])
        #expect(try Self.run(["robustness", "--dataset", Self.fixtures, "--minimum-score", "2"]).status == 2)
        let bad = try Self.run(["eval", "--dataset", Self.fixtures, "--perturb", "spin=3"])
        #expect(bad.status == 1 && bad.error.contains("spin=3"))
        #expect(try Self.run(["robustness"]).status == 2)
    }

    @Test("learned: each gesture learned from one stroke and left out of the library, then matched with it")
    func learned() throws {
        let result = try Self.run(["learned", "--dataset", Self.fixtures, "--templates-per-gesture", "1,3", "--json"])
        #expect(result.status == 0, "\(result.error)")
        let object = try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as! [String: Any]
        let rows = try #require(object["rows"] as? [[String: Any]])
        #expect(rows.map { $0["templatesPerGesture"] as? Int } == [1, 3])
        // s02 drew 3 of each gesture at medium speed, s03 2 fast: one learned, the others tested.
        #expect(rows[0]["learnedTested"] as? Int == 16 * 2 + 16 * 1)
        #expect(rows[0]["othersTested"] as? Int == 16 * 15 * 2)
        #expect((rows[0]["learnedRecognized"] as? Double ?? 0) > 0.9)
        #expect((rows[0]["othersRecognized"] as? Double ?? 0) > 0.9)
        #expect((rows[0]["othersTakenForLearned"] as? Double ?? 1) < 0.05)
        #expect((rows[0]["byGesture"] as? [String: Double])?.count == 16)
        #expect(rows[1]["learnedTested"] as? Int == 0, "no speed has more than 3 strokes of a gesture to test")
        let text = try Self.run(["learned", "--dataset", Self.fixtures, "--templates-per-gesture", "1"])
        #expect(text.status == 0 && text.output.contains("E=1: learned gesture recognized"))
        #expect(try Self.run(["learned", "--dataset", Self.fixtures, "--templates-per-gesture", "0"]).status == 2)
        #expect(try Self.run(["learned"]).status == 2)
    }

    @Test("recognize: a match, candidates and the checkmark per stroke; a stroke it cannot take is named, not fatal")
    func recognize() throws {
        let path = NSTemporaryDirectory() + "strokes-\(UUID().uuidString).json"
        defer { try? FileManager.default.removeItem(atPath: path) }
        // A check: 15 points down-right, then 45 up-right, at 120 Hz.
        var check = [String]()
        for k in 0..<60 {
            let step = Double(k)
            let (x, y) = k < 15 ? (2 * step, 20 + 2 * step) : (30 + 1.55 * (step - 15), 50 - 2 * (step - 15))
            check.append("[\(x),\(y),\(step * 1000 / 120)]")
        }
        try """
        [{"name": "check", "points": [\(check.joined(separator: ","))]},
         {"points": [[0, 0], [50, 100], [100, 0]]},
         {"name": "circle", "points": [[0, 0]]}]
        """.write(toFile: path, atomically: true, encoding: .utf8)
        let result = try Self.run(["recognize", "--strokes", path, "--json"])
        #expect(result.status == 0, "\(result.error)")
        let lines = result.output.split(separator: "\n").map {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        #expect(lines.count == 3)
        #expect(lines[0]?["match"] as? String == "check" && lines[0]?["checkmarkPointIndex"] is Int)
        #expect((lines[0]?["candidates"] as? [[String: Any]])?.first?["score"] is Double)
        #expect(lines[1]?["match"] as? String == "v" && lines[1]?["checkmarkPointIndex"] == nil)
        #expect((lines[2]?["error"] as? String)?.contains("degenerate_stroke") == true)
        // The same check with its times in seconds.
        let inSeconds = (0..<60).map { k in
            let step = Double(k)
            let (x, y) = k < 15 ? (2 * step, 20 + 2 * step) : (30 + 1.55 * (step - 15), 50 - 2 * (step - 15))
            return "[\(x),\(y),\(step / 120)]"
        }
        try "[{\"name\": \"check\", \"points\": [\(inSeconds.joined(separator: ","))]}]"
            .write(toFile: path, atomically: true, encoding: .utf8)
        let seconds = try Self.run(["recognize", "--strokes", path])
        #expect(seconds.status == 0 && seconds.output.contains("as if in seconds"), "\(seconds.output)")
        let text = try Self.run(["recognize", "--dataset", Self.fixtures, "--subjects", "s02"])
        #expect(text.status == 0 && text.output.contains("named strokes matched their name"))
        try "[{\"points\": [[1, 2, 3, 4]]}]".write(toFile: path, atomically: true, encoding: .utf8)
        let bad = try Self.run(["recognize", "--strokes", path])
        #expect(bad.status == 2 && bad.error.contains("point 0 has 4 numbers"))
        #expect(try Self.run(["recognize"]).status == 2)
        let missing = try Self.run(["recognize", "--strokes", "/nonexistent.json"])
        #expect(missing.status == 1 && missing.error.contains("cannot read /nonexistent.json"), "\(missing.error)")
    }

    /// `stroke-tool recognize --strokes PATH --json` with `extra` options: one answer per stroke (the run must
    /// succeed).
    static func recognized(_ path: String, _ extra: [String]) throws -> [[String: Any]] {
        let result = try run(["recognize", "--strokes", path, "--json"] + extra)
        #expect(result.status == 0, "\(result.error)")
        return result.output.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    @Test("recognize --minimum-size: a tap is too small, as in a session that set minimumSize; a check is matched")
    func minimumSize() throws {
        let path = NSTemporaryDirectory() + "strokes-\(UUID().uuidString).json"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try """
        [{"name": "tap", "points": [[200.2, 300.1, 0], [199.4, 300.6, 8], [200.6, 300.9, 16], [200.3, 300.0, 24]]},
         {"name": "v", "points": [[0, 0], [15, 30], [30, 0]]}]
        """.write(toFile: path, atomically: true, encoding: .utf8)
        func answers(_ extra: [String]) throws -> [[String: Any]] { try Self.recognized(path, extra) }
        let plain = try answers([])
        #expect(plain.count == 2 && plain[0]["reason"] == nil && plain[0]["match"] is String, "taken for a gesture")
        let sized = try answers(["--minimum-size", "20"])
        #expect(sized.count == 2 && sized[0]["reason"] as? String == "too_small" && sized[0]["match"] == nil)
        #expect(sized[1]["match"] as? String == "v" && sized[1]["reason"] == nil)
        let tooLarge = try answers(["--minimum-size", "40"])
        #expect(tooLarge.allSatisfy { $0["reason"] as? String == "too_small" }, "the v is 30 on its longer side")
        let text = try Self.run(["recognize", "--strokes", path, "--minimum-size", "20"])
        #expect(text.output.contains("too small"))
        let bad = try Self.run(["recognize", "--strokes", path, "--minimum-size", "-1"])
        #expect(bad.status == 2 && bad.error.contains("--minimum-size"))
    }

    @Test("recognize --minimum-score: a stroke under it is no match, as in a session that set minimumScore")
    func minimumScore() throws {
        let path = NSTemporaryDirectory() + "strokes-\(UUID().uuidString).json"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try """
        [{"name": "v", "points": [[0, 0], [15, 30], [30, 0]]}]
        """.write(toFile: path, atomically: true, encoding: .utf8)
        let plain = try Self.recognized(path, [])
        let score = try #require(plain.first?["score"] as? Double)
        #expect(plain.first?["match"] as? String == "v")
        let strict = try Self.recognized(path, ["--minimum-score", String(min(1, score + 0.01))])
        #expect(strict.count == 1 && strict[0]["match"] == nil)
        #expect((strict.first?["candidates"] as? [[String: Any]])?.first?["score"] as? Double == score)
        #expect(try Self.recognized(path, ["--minimum-score", "0.1"]).first?["match"] as? String == "v")
        for bad in ["1.5", "-0.1", "x"] {
            let refused = try Self.run(["recognize", "--strokes", path, "--minimum-score", bad])
            #expect(refused.status == 2 && refused.error.contains("--minimum-score"))
        }
    }

    @Test("recognize --minimum-size gives a check that fires small the point where it reaches the size, as sent")
    func minimumSizeCheckmark() throws {
        // A check 12 units wide whose flick goes on to 21 × 20.7 (it reaches 20 at point 39), and the same check
        // ending at 12 × 10.4.
        var growing: [[Double]] = (0...10).map { k -> [Double] in
            let x = Double(k) * 0.3
            return [x, x, Double(k * 10)]
        }
        for k in 1...30 {
            let x: Double = (10 + Double(k) * 2) * 0.3
            let y: Double = (10 - Double(k) * 2.3) * 0.3
            growing.append([x, y, Double(100 + k * 10)])
        }
        let small = Array(growing.prefix(26))
        let path = try SendCommandTests.strokesFile([["points": growing], ["points": small]])
        defer { try? FileManager.default.removeItem(atPath: path) }
        func answers(_ extra: [String]) throws -> [[String: Any]] { try Self.recognized(path, extra) }
        let plain = try answers([])
        let fired = try #require(plain.first?["checkmarkPointIndex"] as? Int)
        #expect(fired < 39 && plain.last?["checkmarkPointIndex"] as? Int == fired)
        let sized = try answers(["--minimum-size", "20"])
        #expect(sized.first?["checkmarkPointIndex"] as? Int == 39 && sized.first?["reason"] == nil)
        #expect(sized.last?["checkmarkPointIndex"] == nil && sized.last?["reason"] as? String == "too_small")
    }

    @Test("multistroke on the fixtures; a library of several-stroke templates built with library add, then used")
    func multistroke() throws {
        let result = try Self.run(["multistroke", "--dataset", Self.fixtures, "--strokes", "2", "--json"])
        #expect(result.status == 0, "\(result.error)")
        let object = try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as! [String: Any]
        let row = try #require((object["rows"] as? [[String: Any]])?.first)
        #expect(row["strokesPerGesture"] as? Int == 2)
        #expect(row["tested"] as? Int == 80)
        #expect((row["drawnOrder"] as? Double ?? 0) > 0.9)
        #expect((row["anyOrder"] as? Double ?? 0) > (row["anyOrderWithoutExpansion"] as? Double ?? 1))
        #expect((row["mixedCut"] as? Double ?? 0) > 0.8 && (row["mixedWhole"] as? Double ?? 0) > 0.9)
        #expect(row["mixedWholeUncut"] is Double)
        #expect(try Self.run(["multistroke", "--dataset", Self.fixtures, "--strokes", "5"]).status == 2)

        let directory = NSTemporaryDirectory() + "multistroke-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let library = directory + "/symbols.json"
        let templates = directory + "/templates.json"
        try """
        [{"name": "x", "strokes": [[[0, 0], [90, 90]], [[90, 0], [0, 90]]]},
         {"name": "plus", "strokes": [[[0, 45], [90, 45]], [[45, 0], [45, 90]]]}]
        """.write(toFile: templates, atomically: true, encoding: .utf8)
        #expect(
            try Self.run(["library", "build", "--dataset", Self.fixtures, "--per-gesture", "1", "-o", library]).status
                == 0)
        #expect(try Self.run(["library", "add", library, "--strokes", templates]).status == 0)
        let saved =
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: library))) as! [String: Any]
        #expect(saved["version"] as? Int == 2)
        // A library of its own from strokes alone, created by add, matched as drawn.
        let own = directory + "/spells.json"
        #expect(try Self.run(["library", "add", own, "--strokes", templates, "--stroke-order", "drawn"]).status == 0)
        let created =
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: own))) as! [String: Any]
        #expect(created["name"] as? String == "spells" && created["strokeOrder"] as? String == "drawn")
        #expect((created["templates"] as? [Any])?.count == 2)
        #expect(
            try Self.run(["library", "add", own, "--strokes", templates, "--stroke-order", "sideways"]).status == 2)
        let listed = try Self.run(["library", "list", library])
        #expect(listed.output.contains("(2 of several strokes, matched in any order)"), "\(listed.output)")
        #expect(listed.output.contains("  x: 2 (strokes: 1, 2)"), "\(listed.output)")
        let strokes = directory + "/strokes.json"
        try """
        [{"name": "x", "strokes": [[[90, 90, 0], [0, 0, 100]], [[0, 90, 400], [90, 0, 500]]]},
         {"name": "plus", "strokes": [[[45, 90, 0], [45, 0, 100]], [[90, 45, 400], [0, 45, 500]]]}]
        """.write(toFile: strokes, atomically: true, encoding: .utf8)
        let answers = try Self.run(["recognize", "--strokes", strokes, "--library", library, "--json"])
        #expect(answers.status == 0, "\(answers.error)")
        let matches = answers.output.split(separator: "\n").map {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["match"] as? String
        }
        #expect(matches == ["x", "plus"])
    }

    @Test("STROKE_KERNELS picks the portable kernels; an unknown build is named, ignored, and changes no result")
    func kernelChoice() throws {
        let portable = try Self.run(
            ["eval", "--dataset", Self.fixtures, "--trials", "2"], environment: ["STROKE_KERNELS": "portable"])
        #expect(portable.status == 0 && portable.error.isEmpty, "\(portable.error)")
        #expect(portable.output.contains("portable kernels"))
        let unknown = try Self.run(
            ["eval", "--dataset", Self.fixtures, "--trials", "2"], environment: ["STROKE_KERNELS": "avx1024"])
        #expect(unknown.status == 0)
        #expect(unknown.error.contains("STROKE_KERNELS=avx1024 is not a kernel build (portable, wide, avx512)"))
        // Everything but the timing line is the same whichever build runs.
        func results(_ output: String) -> [Substring] {
            output.split(separator: "\n").filter { !$0.hasPrefix("time:") }
        }
        #expect(results(unknown.output) == results(portable.output))
    }

    @Test("--neighbors: build, add and export-default write it (version 4), list shows it; outside 1...8 refused")
    func neighbors() throws {
        try Self.withTemporaryDirectory("library-neighbors") { directory in
            let path = directory + "/medoids.json"
            func file() throws -> [String: Any] {
                try #require(
                    try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path)))
                        as? [String: Any])
            }
            var result = try Self.run([
                "library", "build", "--dataset", Self.fixtures, "--per-gesture", "3", "--neighbors", "3", "-o", path,
            ])
            #expect(result.status == 0, "\(result.error)")
            #expect(try file()["version"] as? Int == 4 && file()["neighbors"] as? Int == 3)
            #expect(try Self.run(["library", "list", path]).output.contains("scores of the 3 nearest templates, "))
            result = try Self.run(["library", "add", path, "--dataset", Self.fixtures, "--neighbors", "1"])
            #expect(result.status == 0, "\(result.error)")
            #expect(try file()["version"] as? Int == 1 && file()["neighbors"] == nil)
            #expect(try !Self.run(["library", "list", path]).output.contains("nearest templates"))
            result = try Self.run(["library", "export-default", "-o", path, "--neighbors", "1"])
            #expect(try result.status == 0 && file()["version"] as? Int == 1, "\(result.error)")
            result = try Self.run(["library", "export-default", "-o", path])
            #expect(try result.status == 0 && file()["neighbors"] as? Int == 3, "\(result.error)")
            let before = try String(contentsOfFile: path, encoding: .utf8)
            for bad in ["0", "9", "x"] {
                result = try Self.run(["library", "add", path, "--dataset", Self.fixtures, "--neighbors", bad])
                #expect(
                    result.status == 2
                        && result.error.contains(
                            bad == "x" ? "--neighbors: cannot read" : "--neighbors: a number of templates in 1...8"),
                    "\(bad): \(result.error)")
                for command in ["robustness", "eval"] {
                    result = try Self.run([command, "--dataset", Self.fixtures, "--neighbors", bad])
                    #expect(result.status == 2, "\(command) \(bad): \(result.output)")
                }
            }
            #expect(try String(contentsOfFile: path, encoding: .utf8) == before)
        }
    }

    @Test("library build, list, add, remove on a file")
    func library() throws {
        let path = NSTemporaryDirectory() + "stroke-tool-\(UUID().uuidString).json"
        defer { try? FileManager.default.removeItem(atPath: path) }
        var result = try Self.run(["library", "build", "--dataset", Self.fixtures, "--per-gesture", "1", "-o", path])
        #expect(result.status == 0, "\(result.error)")
        result = try Self.run(["library", "list", path])
        #expect(result.output.contains("16 templates") && result.output.contains("check: 1"))
        result = try Self.run(["library", "add", path, "--dataset", Self.fixtures, "--gesture", "check"])
        #expect(result.status == 0)
        result = try Self.run(["library", "remove", path, "--gesture", "check", "--index", "0"])
        #expect(result.status == 0)
        result = try Self.run(["library", "list", path])
        #expect(result.output.contains("check: 5") && result.output.contains("minimum score 0.5,"))
        result = try Self.run([
            "library", "build", "--dataset", Self.fixtures, "--per-gesture", "1", "--minimum-score", "0.7", "-o", path,
        ])
        let listed = try Self.run(["library", "list", path])
        #expect(result.status == 0 && listed.output.contains("minimum score 0.7,"))
        #expect(
            try Self.run(["library", "list", "default"]).output.contains(
                "minimum score 0.6, scores of the 3 nearest templates, elastic dead zone 10.0°,")
        )
        result = try Self.run([
            "library", "build", "--dataset", Self.fixtures, "--per-gesture", "1", "--minimum-score", "-1", "-o", path,
        ])
        #expect(result.status == 2)
    }

    @Test("strokes either way round: export-default names the copy and sets it; robustness and eval draw backward")
    func eitherWayRound() throws {
        let path = NSTemporaryDirectory() + "stroke-tool-\(UUID().uuidString).json"
        defer { try? FileManager.default.removeItem(atPath: path) }
        var result = try Self.run([
            "library", "export-default", "-o", path, "--name", "either", "--stroke-direction", "any",
        ])
        #expect(result.status == 0, "\(result.error)")
        result = try Self.run(["library", "list", path])
        #expect(result.output.hasPrefix("either:") && result.output.contains("strokes either way round"))
        func accuracy(_ arguments: [String]) throws -> [Double] {
            let result = try Self.run(
                ["robustness", "--dataset", Self.fixtures, "--perturbations", "none;reverse=1", "--json"] + arguments)
            #expect(result.status == 0, "\(result.error)")
            let object = try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as! [String: Any]
            return (object["rows"] as! [[String: Any]]).map { $0["accuracy"] as! Double }
        }
        let drawn = try accuracy([])
        let either = try accuracy(["--stroke-direction", "any"])
        #expect(drawn[1] < 0.2 && either[1] > 0.8, "backward: \(drawn[1]) as drawn, \(either[1]) either way")
        #expect(either[0] >= drawn[0] - 0.05)
        let backward = try Self.run([
            "eval", "--dataset", Self.fixtures, "--protocol", "user-independent", "--library", path, "--perturb",
            "reverse=1", "--json",
        ])
        let report = try JSONSerialization.jsonObject(with: Data(backward.output.utf8)) as! [String: Any]
        #expect((report["accuracy"] as? Double ?? 0) > 0.8 && report["templatesPerRecognition"] as? Double == 256)
        // recognize says which way a match went, in JSON and in text.
        let circle = (0...32).map { k in
            [50 + 40 * cos(2 * Double.pi * Double(k) / 32), 50 + 40 * sin(2 * Double.pi * Double(k) / 32)]
        }
        let strokes = NSTemporaryDirectory() + "stroke-tool-\(UUID().uuidString)-strokes.json"
        defer { try? FileManager.default.removeItem(atPath: strokes) }
        try JSONSerialization.data(withJSONObject: [["name": "circle", "points": circle]])
            .write(to: URL(fileURLWithPath: strokes))
        let json = try Self.run(["recognize", "--strokes", strokes, "--library", path, "--json"])
        let answer = try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as! [String: Any]
        #expect(answer["match"] as? String == "circle" && answer["backward"] as? Bool == true, "\(json.output)")
        #expect(((answer["candidates"] as? [[String: Any]])?.first?["backward"] as? Bool) == true)
        let text = try Self.run(["recognize", "--strokes", strokes, "--library", path])
        #expect(text.output.contains("circle") && text.output.contains("(drawn backward)"), "\(text.output)")
        let asDrawn = try Self.run(["recognize", "--strokes", strokes, "--json"])
        #expect(!asDrawn.output.contains("backward"))
        let bad = try Self.run(["library", "export-default", "-o", path, "--stroke-direction", "sideways"])
        #expect(bad.status != 0 && bad.error.contains("--stroke-direction: drawn or any"))
    }

    @Test("scribbles: the share turned away at the library's threshold and others, by kind, as text and JSON")
    func scribbles() throws {
        var result = try Self.run(["scribbles", "--count", "100", "--seed", "2", "--thresholds", "0.4,0.9", "--json"])
        #expect(result.status == 0, "\(result.error)")
        let report = try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any]
        #expect(report?["tested"] as? Int == 100 && report?["minimumScore"] as? Double == 0.6)
        let thresholds = report?["thresholds"] as? [[String: Any]] ?? []
        #expect(thresholds.compactMap { $0["minimumScore"] as? Double } == [0.4, 0.9])
        let turnedAway = report?["turnedAway"] as? Double ?? -1
        #expect(
            (thresholds.first?["turnedAway"] as? Double ?? 1) <= turnedAway
                && turnedAway <= (thresholds.last?["turnedAway"] as? Double ?? 0))
        result = try Self.run(["scribbles", "--count", "50"])
        #expect(result.status == 0 && result.output.hasPrefix("50 scribbles: "), "\(result.output)")
        #expect(result.output.contains("by kind: curve3") && result.output.contains("checkmark detector fired on"))
        for bad in [
            ["--count", "0"], ["--thresholds", "1.5"], ["--thresholds", "x"], ["--library", "/nonexistent"],
        ] {
            result = try Self.run(["scribbles"] + bad)
            #expect(result.status != 0 && !result.error.isEmpty, "\(bad)")
        }
    }

    @Test("bad arguments and files give clear errors and a non-zero status")
    func errors() throws {
        var result = try Self.run(["eval"])
        #expect(result.status == 2 && result.error.contains("--dataset"))
        result = try Self.run(["eval", "--dataset", "/nonexistent"])
        #expect(result.status == 1 && result.error.contains("/nonexistent"))
        result = try Self.run(["library", "list", "/nonexistent.json"])
        #expect(result.status == 1)
        result = try Self.run(["frobnicate"])
        #expect(result.status == 2)
        for command in [
            ["--help"], ["eval", "--help"], ["library", "--help"], ["robustness", "--help"], ["recognize", "--help"],
            ["multistroke", "--help"], ["scribbles", "--help"],
        ] {
            #expect(try Self.run(command).status == 0)
        }
    }

    @Test("keygen writes a secret key only its owner reads and the matching public key, and never overwrites")
    func keygen() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("keygen-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let prefix = directory.appendingPathComponent("worker").path
        let result = try Self.run(["keygen", "-o", prefix])
        #expect(result.status == 0, "\(result.error)")
        let secret = try String(contentsOfFile: prefix + ".key", encoding: .utf8)
        let publicKey = try String(contentsOfFile: prefix + ".pub", encoding: .utf8)
            .split(separator: "\n").first { !$0.hasPrefix("#") }.map(String.init)
        let permissions = try FileManager.default.attributesOfItem(atPath: prefix + ".key")[.posixPermissions] as? Int
        #expect(permissions == 0o600)
        #expect(publicKey?.utf8.count == 40)
        #expect(secret.contains("public-key = \"\(publicKey ?? "")\"") && secret.contains("secret-key = \""))
        #expect(result.output.contains(publicKey ?? "-"))
        let again = try Self.run(["keygen", "-o", prefix])
        #expect(again.status != 0 && again.error.contains("File exists"))
        #expect(try String(contentsOfFile: prefix + ".key", encoding: .utf8) == secret)
        let printed = try Self.run(["keygen"])
        #expect(
            printed.status == 0 && printed.output.hasPrefix("public-key = \"") && printed.output.contains("secret-key"))
    }
}
