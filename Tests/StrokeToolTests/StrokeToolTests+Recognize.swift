import Foundation
import Testing

// MARK: - `recognize`, and `eval` among chosen gestures

extension StrokeToolTests {
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
        // The library has no gesture of that name, which would choose nothing: every stroke no match, said nowhere
        // before session 81; now refused, naming it.
        let comma = try Self.run([
            "recognize", "--dataset", Self.fixtures, "--subjects", "s02", "--gesture", "circle,x", "--json",
        ])
        #expect(
            comma.status == 2
                && comma.error.contains(#"--gesture: "circle,x" is no gesture of the library default (its gestures: "#),
            "\(comma.error)")
        let typo = try Self.run([
            "recognize", "--dataset", Self.fixtures, "--subjects", "s02", "--gestures", "circle,xx",
        ])
        #expect(typo.status == 2 && typo.error.contains(#"--gestures: "xx" is no gesture"#), "\(typo.error)")
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
        // More gestures than there are (before session 86: among all of them, without a word); all of them goes.
        let swipes = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Libraries/swipes.json").standardized.path
        for (arguments, refusal) in [
            (["--trials", "1", "--among", "17"], "--among 17: at most 16, as the strokes tested are of 16 gestures"),
            (
                ["--trials", "1", "--among-others", "16"],
                "--among-others 16: at most 15, as the strokes tested are of 16 gestures"
            ),
            (
                ["--protocol", "user-independent", "--library", swipes, "--among", "9"],
                "--among 9: at most 8, as the library has 8 gestures"
            ),
        ] {
            let run = try Self.run(["eval", "--dataset", Self.fixtures] + arguments)
            #expect(run.status == 2 && run.error.contains(refusal), "\(arguments): \(run.error)")
        }
        #expect(try Self.run(["eval", "--dataset", Self.fixtures, "--trials", "1", "--among", "16"]).status == 0)
    }

    @Test("eval: an option the protocol run does not read is refused, naming it, before the data set is read")
    func otherProtocolsOptions() throws {
        // Before session 87 each was passed over: `eval --library mine.json` reported the user-dependent protocol's
        // accuracy, nothing of that library's, and `--protocol user-independent --orientation invariant` tested the
        // library as its file set it; both with status 0.
        let refusal = "--library: the library --protocol user-independent tests; the user-dependent protocol"
        var run = try Self.run(["eval", "--dataset", Self.fixtures, "--library", "default"])
        #expect(run.status == 2 && run.error.contains(refusal), "\(run.error)")
        for option in [
            "templates-per-gesture", "trials", "orientation", "max-rotation", "elastic-dead-zone", "neighbors",
        ] {
            let value = ["orientation": "invariant", "elastic-dead-zone": "none"][option] ?? "3"
            run = try Self.run([
                "eval", "--dataset", Self.fixtures, "--protocol", "user-independent", "--\(option)", value,
            ])
            #expect(
                run.status == 2
                    && run.error.contains("--\(option): the user-dependent protocol's, for the libraries it builds"),
                "\(option): \(run.error)")
        }
        // Each protocol's own options still run.
        run = try Self.run([
            "eval", "--dataset", Self.fixtures, "--protocol", "user-independent", "--library", "default",
        ])
        #expect(run.status == 0, "\(run.error)")
        run = try Self.run(["eval", "--dataset", Self.fixtures, "--trials", "1", "--orientation", "invariant"])
        #expect(run.status == 0, "\(run.error)")
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
        // Session 78: a stroke longer than the worker keeps was matched; now answered as the worker answers it.
        let zigzag = (0..<10_001).map { "[\($0),\($0 % 7),\($0)]" }.joined(separator: ",")
        try "[{\"points\": [\(zigzag)]}]".write(toFile: path, atomically: true, encoding: .utf8)
        let long = try Self.run(["recognize", "--strokes", path, "--json"])
        #expect(long.status == 0 && long.output.contains(#""reason":"too_many_points""#), "\(long.output)")
        let allowed = try Self.run(["recognize", "--strokes", path, "--json", "--max-points-per-stroke", "10001"])
        #expect(allowed.status == 0 && !allowed.output.contains("too_many_points"), "\(allowed.output)")
        #expect(try Self.run(["recognize", "--strokes", path, "--max-points-per-stroke", "1"]).status == 2)
        // Session 78: "points" beside "strokes" was left unread, and a stroke of no points dropped from a gesture.
        for (file, problem) in [
            (#"[{"points": [[0, 0], [9, 9]], "strokes": [[[0, 0], [5, 5]]]}]"#, "not both"),
            (#"[{"strokes": [[[0, 0], [9, 9]], [], [[0, 9], [9, 0]]]}]"#, "stroke 1 of the gesture has no points"),
        ] {
            try file.write(toFile: path, atomically: true, encoding: .utf8)
            let refused = try Self.run(["recognize", "--strokes", path])
            #expect(refused.status == 2 && refused.error.contains(problem), "\(refused.error)")
        }
        #expect(try Self.run(["recognize"]).status == 2)
        // Nothing to recognize is said so, where it printed nothing and exited 0.
        try "[]".write(toFile: path, atomically: true, encoding: .utf8)
        let none = try Self.run(["recognize", "--strokes", path])
        #expect(none.status == 2 && none.error.contains("--strokes \(path): no strokes"), "\(none.error)")
        let nobody = try Self.run(["recognize", "--dataset", Self.fixtures, "--subjects", "s99"])
        #expect(nobody.status == 2 && nobody.error.contains("no strokes of --subjects s99"), "\(nobody.error)")
        let missing = try Self.run(["recognize", "--strokes", "/nonexistent.json"])
        #expect(missing.status == 1 && missing.error.contains("cannot read /nonexistent.json"), "\(missing.error)")
        // A template library where strokes belong: said in JSON's words, and which option takes it (session 81:
        // "top level: expected Array<Any>").
        try #"{"name": "mine", "templates": [{"name": "v", "points": [[0, 0], [5, 9], [9, 0]]}]}"#.write(
            toFile: path, atomically: true, encoding: .utf8)
        let library = try Self.run(["recognize", "--strokes", path])
        #expect(
            library.status == 2
                && library.error.contains(
                    "not a list of strokes: top level: expected a list, found an object (this is a template library: "
                        + "--library takes it)"),
            "\(library.error)")
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

    @Test("recognize: a swipe where no template is straight is a straight_stroke, as the worker answers it")
    func straightStroke() throws {
        let path = try SendCommandTests.strokesFile([
            [
                "name": "swipe",
                "points": [[20, 300, 0], [80, 255, 16], [140, 210, 32], [200, 165, 48], [260, 120, 64]],
            ],
            ["name": "v", "points": [[0, 0], [15, 30], [30, 0]]],
        ])
        defer { try? FileManager.default.removeItem(atPath: path) }
        let answers = try Self.recognized(path, [])
        #expect(answers.count == 2 && answers[0]["reason"] as? String == "straight_stroke", "\(answers)")
        #expect(answers[0]["match"] == nil && (answers[0]["candidates"] as? [Any])?.isEmpty == true)
        #expect(answers[1]["reason"] == nil && answers[1]["match"] as? String == "v")
        let text = try Self.run(["recognize", "--strokes", path])
        #expect(text.output.contains("0 (swipe): no match, a straight stroke (no straight template to answer it)"))
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

    @Test("eval refuses a tuning out of range naming the option and the value, before it reads the dataset")
    func evalTuning() throws {
        try Self.expectRefusedFirst(
            ["eval"],
            [
                (["--points", "2"], "--points: a number of points from 4 to 1024, got 2", 2),
                (["--points", "5000"], "--points: a number of points from 4 to 1024, got 5000", 2),
                (["--band", "-1"], "--band: a number of points, at least 0, got -1", 2),
                (["--shortlist", "-3"], "--shortlist: a number of templates, at least 0, got -3", 2),
                (["--shortlist-divisor", "0"], "--shortlist-divisor: a divisor, at least 1, got 0", 2),
                (["--tangent-weight", "-0.5"], "--tangent-weight: a weight, 0 or more, got -0.5", 2),
                (["--tangent-weight", "inf"], "--tangent-weight: a weight, 0 or more, got inf", 2),
                (["--max-rotation", "500"], "--max-rotation: degrees from 0 to 180, got 500.0", 2),
                (["--max-rotation", "-5"], "--max-rotation: degrees from 0 to 180, got -5.0", 2),
            ])
        let tuned = try Self.run([
            "eval", "--dataset", Self.fixtures, "--subjects", "s02", "--points", "4", "--band", "0", "--shortlist", "0",
            "--shortlist-divisor", "1", "--tangent-weight", "0", "--max-rotation", "180", "--trials", "1",
        ])
        #expect(tuned.status == 0, "\(tuned.error)")
    }

    @Test("eval refuses its other options before it reads the dataset, naming each")
    func evalOptionsBeforeDataset() throws {
        // A usage error is status 2; a perturbation or a library file the recognizer refuses, 1.
        try Self.expectRefusedFirst(
            ["eval"],
            [
                (["--perturb", "spin=3"], "perturbation \"spin=3\": unknown", 1),
                (["--seed", "-1"], "--seed: cannot read \"-1\"", 2),
                (["--among", "-2"], "--among: a number of gestures, at least 0, got -2", 2),
                (["--among-others", "0"], "--among-others: a number of gestures, at least 1, got 0", 2),
                (["--among", "2", "--among-others", "2"], "--among and --among-others: one or the other", 2),
                (["--protocol", "mixed"], "--protocol mixed: user-dependent or user-independent", 2),
                (["--trials", "0"], "--trials: a number from 1 to 100000, got 0", 2),
                (
                    ["--templates-per-gesture", "0"],
                    "--templates-per-gesture: a number of templates, at least 1, got 0", 2
                ),
                (
                    ["--protocol", "user-independent", "--library", "/nonexistent/library.json"],
                    "/nonexistent/library.json", 1
                ),
            ])
        let chosen = try Self.run([
            "eval", "--dataset", Self.fixtures, "--subjects", "s02", "--trials", "1", "--among-others", "1", "--json",
        ])
        #expect(chosen.status == 0, "\(chosen.error)")
    }

    @Test("the commands that read a dataset check their options first, naming the one refused")
    func datasetCommandsCheckOptionsFirst() throws {
        let seed: [(options: [String], error: String, status: Int32)] = [
            (["--seed", "x"], "--seed: cannot read \"x\"", 2)
        ]
        let tuning = "/nonexistent/tuning.json"
        let neighbors = (["--neighbors", "0"], "--neighbors: a number of templates", Int32(2))
        try Self.expectRefusedFirst(
            ["tilt"],
            seed + [
                (["--multistroke", "1"], "--multistroke: not a count from 2 to", 2),
                (["--checkmark-config", tuning], tuning, 1),
            ])
        try Self.expectRefusedFirst(["robustness"], seed + [neighbors])
        try Self.expectRefusedFirst(["thresholds"], [neighbors, (["--checkmark-config", tuning], tuning, 1)])
        try Self.expectRefusedFirst(["learned"], seed)
        try Self.expectRefusedFirst(["multistroke"], seed)
    }

    /// Runs `command` on a dataset that does not exist with each case's options, and expects it refused naming the
    /// option (`error`, exit `status`) before it reads the dataset, which it would otherwise say it cannot read.
    static func expectRefusedFirst(
        _ command: [String], _ cases: [(options: [String], error: String, status: Int32)]
    ) throws {
        for (options, error, status) in cases {
            let result = try run(command + ["--dataset", "/nonexistent"] + options)
            #expect(result.status == status && result.error.contains(error), "\(command + options): \(result.error)")
            #expect(!result.error.contains("cannot read directory"), "\(command + options): \(result.error)")
        }
    }
}
