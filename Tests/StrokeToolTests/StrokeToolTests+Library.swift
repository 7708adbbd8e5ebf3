import Foundation
import Testing

// MARK: - `library` build, add, list, remove and export-default

extension StrokeToolTests {
    @Test("-o to standard output (/dev/fd/1, a pipe here) writes the library there and the note on standard error")
    func exportToStandardOutput() throws {
        // Not /dev/stdout: were the save to rename a file over it again, it would replace the machine's link.
        let result = try Self.run(["library", "export-default", "-o", "/dev/fd/1"])
        #expect(result.status == 0, "\(result.error)")
        #expect(result.error == "wrote /dev/fd/1\n")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
        #expect((object["templates"] as? [Any])?.count == 128)
    }

    @Test("an option the action does not read is refused, naming it and what the action takes; the file unchanged")
    func strayOptions() throws {
        try Self.withTemporaryDirectory("library-stray") { directory in
            let path = directory + "/lib.json"
            #expect(try Self.run(["library", "export-default", "-o", path]).status == 0)
            let before = try Data(contentsOf: URL(fileURLWithPath: path))
            for (arguments, said) in [
                (["list", "default", "--json"], "library list does not take --json (it takes no options)"),
                (
                    ["remove", path, "--gesture", "x", "--dataset", directory],
                    "library remove does not take --dataset (it takes --gesture, --index)"
                ),
                (["export-default", "-o", path, "--seed", "2"], "library export-default does not take --seed"),
                (
                    ["check", path, "--gesture", "x"],
                    "library check does not take --gesture (it takes --json, --margin)"
                ),
                (["threshold", path, "--gesture", "x", "--minimum-score", "0.5", "-o", path], "does not take -o"),
            ] {
                let result = try Self.run(["library"] + arguments)
                #expect(result.status == 2 && result.error.contains(said), "\(arguments): \(result.error)")
            }
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        }
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
        // The fixtures' five checks, one of which the library holds already: four added (session 81; six before).
        result = try Self.run(["library", "add", path, "--dataset", Self.fixtures, "--gesture", "check"])
        #expect(result.status == 0)
        #expect(result.output == "added 4 templates to \(path) (1 template already in \(path) passed over)\n")
        result = try Self.run(["library", "remove", path, "--gesture", "check", "--index", "0"])
        #expect(result.status == 0)
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        result = try Self.run(["library", "remove", path, "--gesture", "chek"])
        #expect(result.status == 1 && result.error.contains("has no gesture \"chek\" (its gestures: "))
        #expect(result.error.contains("check, circle"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        for source in [["--dataset", Self.fixtures], ["--library", "default"]] {
            result = try Self.run(["library", "add", path, "--gesture", "chek"] + source)
            #expect(result.status == 1 && result.error.contains("nothing to add from \(source[1]) with --gesture chek"))
            #expect(result.error.contains("\(path) is unchanged"))
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        result = try Self.run(["library", "list", path])
        #expect(result.output.contains("check: 4") && result.output.contains("minimum score 0.5,"))
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
        // Nothing to build from, or to evaluate: until session 78 a library of no templates was written, and eval
        // printed 0.00% of nothing; both exited 0.
        let empty = path + ".empty"
        for (arguments, problem) in [
            (["library", "build", "--subjects", "s99", "-o", empty], "--subjects s99: no strokes of these subjects"),
            (["library", "build", "--gesture", "chek", "-o", empty], "--gesture chek: no strokes of this gesture"),
            (["eval", "--subjects", "s99,s98"], "--subjects s98,s99: no strokes of these subjects (the logs hold s"),
        ] {
            result = try Self.run(arguments + ["--dataset", Self.fixtures])
            #expect(result.status == 2 && result.error.contains(problem), "\(arguments): \(result.error)")
        }
        #expect(!FileManager.default.fileExists(atPath: empty))
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
}
