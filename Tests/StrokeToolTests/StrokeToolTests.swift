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
        // No perturbation at all printed the table's head and exited 0 (before session 86).
        let empty = try Self.run(["robustness", "--dataset", Self.fixtures, "--perturbations", ""])
        #expect(
            empty.status == 2 && empty.error.contains("--perturbations: at least one perturbation"), "\(empty.error)")
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
        let text = try Self.run(["learned", "--dataset", Self.fixtures, "--templates-per-gesture", "1,3"])
        #expect(text.status == 0 && text.output.contains("E=1: learned gesture recognized"))
        let untested = "E=3: no gesture was drawn more than 3 times by one subject at one speed: none is left to test"
        #expect(text.output.contains(untested) && !text.output.contains("of 0"), "\(text.output)")
        #expect(try Self.run(["learned", "--dataset", Self.fixtures, "--templates-per-gesture", "0"]).status == 2)
        #expect(try Self.run(["learned"]).status == 2)
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
        #expect(result.status == 2 && result.error.hasPrefix(#"stroke-tool: unknown command "frobnicate""#))
        // A usage that answers a bad command line goes to standard error, where the error is.
        for command in [[], ["library"], ["library", "--json"]] {
            result = try Self.run(command)
            #expect(result.status == 2 && result.output.isEmpty && result.error.contains("USAGE"), "\(command)")
        }
        // Before, a negative count trapped (status 132) and 0 printed a report of no tests.
        for (option, value) in [("--trials", "-1"), ("--trials", "0"), ("--templates-per-gesture", "-1")] {
            result = try Self.run(["eval", "--dataset", Self.fixtures, option, value])
            #expect(
                result.status == 2 && result.error.contains("\(option): a number"),
                "\(option) \(value): \(result.error)")
        }
        // A margin out of range names the option and the value, as the worker's does (before session 82 eval said
        // `choiceMargin -1.0 must be ≥ 0`, the configuration's field, with status 1).
        for (command, option, value, expected) in [
            ("eval", "--choice-margin", "-1", #"--choice-margin: a score of at least 0, or inf, got "-1""#),
            ("recognize", "--choice-margin", "x", #"--choice-margin: a score of at least 0, or inf, got "x""#),
            ("eval", "--checkmark-margin", "2", #"--checkmark-margin: a score in 0...1, got "2""#),
            ("robustness", "--checkmark-margin", "nan", #"--checkmark-margin: a score in 0...1, got "nan""#),
        ] {
            result = try Self.run([command, "--dataset", Self.fixtures, option, value])
            #expect(result.status == 2 && result.error.contains(expected), "\(command) \(option): \(result.error)")
        }
        result = try Self.run(["eval", "--dataset", Self.fixtures, "--templates-per-gesture", "10"])
        #expect(result.status == 1 && result.error.contains("none is left to test"), "\(result.error)")
        // A strokes file that Foundation's decoder alone would take, one way, and Python's `json` another or not at
        // all: refused, where.
        try Self.withTemporaryDirectory("stroke-tool-errors") { directory in
            let twice = try Self.strokesFile(
                [#"{"name": "v", "name": "check", "points": [[0, 0], [5, 5], [10, 0]]}"#], in: directory)
            result = try Self.run(["recognize", "--strokes", twice])
            #expect(
                result.status == 2 && result.error.contains(#"the key "name" a second time in one object"#),
                "\(result.error)")
            let comma = try Self.strokesFile([#"{"points": [[0, 0], [5, 5], [10, 0],]}"#], in: directory)
            result = try Self.run(["recognize", "--strokes", comma])
            #expect(result.status == 2 && result.error.contains("a comma after the last element"), "\(result.error)")
        }
        for command in [
            ["--help"], ["eval", "--help"], ["library", "--help"], ["robustness", "--help"], ["recognize", "--help"],
            ["multistroke", "--help"], ["scribbles", "--help"],
        ] {
            #expect(try Self.run(command).status == 0)
        }
    }

    @Test("an argument a command does not take is refused, naming it, before the command does anything")
    func strayArguments() throws {
        // Before, each of these ran, the word passed over (and `export-default` and `build` wrote their file).
        let written = FileManager.default.temporaryDirectory.appendingPathComponent("stray-\(UUID().uuidString).json")
        let data = ["--dataset", Self.fixtures]
        for command in [
            ["eval"] + data, ["robustness"] + data, ["tilt"] + data, ["learned"] + data, ["multistroke"] + data,
            ["scribbles"], ["thresholds"] + data, ["recognize"] + data, ["keygen", "-o", written.path],
            ["watch", "--output", "tcp://127.0.0.1:1"], ["ping", "--input", "tcp://127.0.0.1:1", "--output", "x"],
            ["library", "list", "default"], ["library", "check", "default"],
            ["library", "export-default", "-o", written.path], ["library", "build", "-o", written.path] + data,
        ] {
            let result = try Self.run(command + ["extra"])
            #expect(
                result.status == 2 && result.error.contains(#"unexpected argument "extra""#),
                "\(command): \(result.error)")
        }
        #expect(!FileManager.default.fileExists(atPath: written.path))
        #expect(!FileManager.default.fileExists(atPath: written.path + ".pub"))
        // --help still answers, whatever else the line holds.
        #expect(try Self.run(["eval", "extra", "--help"]).status == 0)
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
        // A file that is there, or a directory that is not, is an I/O error, not a usage error (2 before session 86).
        #expect(again.status == 1 && again.error.contains("io: cannot create \(prefix).key: File exists"))
        let nowhere = try Self.run(["keygen", "-o", directory.appendingPathComponent("none/worker").path])
        #expect(nowhere.status == 1 && nowhere.error.contains("No such file or directory"), "\(nowhere.error)")
        #expect(try String(contentsOfFile: prefix + ".key", encoding: .utf8) == secret)
        // Where only the public half's name is taken, the secret half written first is taken back.
        let other = directory.appendingPathComponent("other").path
        try Data("mine\n".utf8).write(to: URL(fileURLWithPath: other + ".pub"))
        let half = try Self.run(["keygen", "-o", other])
        #expect(half.status == 1 && half.error.contains("cannot create \(other).pub: File exists"))
        #expect(!FileManager.default.fileExists(atPath: other + ".key"))
        #expect(try String(contentsOfFile: other + ".pub", encoding: .utf8) == "mine\n")
        // A prefix without a file name wrote hidden files named .key and .pub (session 81).
        for empty in ["", directory.path + "/"] {
            let refused = try Self.run(["keygen", "-o", empty])
            #expect(
                refused.status == 2 && refused.error.contains("-o: a file name to write PREFIX.key"), "\(refused.error)"
            )
        }
        #expect(!FileManager.default.fileExists(atPath: directory.path + "/.key"))
        let printed = try Self.run(["keygen"])
        #expect(
            printed.status == 0 && printed.output.hasPrefix("public-key = \"") && printed.output.contains("secret-key"))
    }
}
