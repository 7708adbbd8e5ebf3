import Foundation
import Testing

/// `stroke-tool library threshold`: a gesture's own threshold in a library file.
@Suite("stroke-tool library threshold")
struct LibraryThresholdCommandTests {
    @Test("set, listed, held to by recognize, cleared with library; bad values refused with the file unchanged")
    func setAndCleared() throws {
        try StrokeToolTests.withTemporaryDirectory("library-threshold") { directory in
            let library = directory + "/spells.json"
            let strokes = directory + "/v.json"
            try #"[{"name": "v", "points": [[0, 0], [15, 30], [30, 0]]}]"#
                .write(toFile: strokes, atomically: true, encoding: .utf8)
            // Scored by the nearest template alone, so that the file is the lowest version that holds it: 3 with a
            // gesture's threshold, 1 without.
            var result = try StrokeToolTests.run([
                "library", "export-default", "-o", library, "--name", "spells", "--neighbors", "1",
            ])
            #expect(result.status == 0, "\(result.error)")
            let plain = try StrokeToolTests.recognized(strokes, ["--library", library])
            let score = try #require(plain.first?["score"] as? Double)
            #expect(plain.first?["match"] as? String == "v")

            let strict = String(min(1, score + 0.01))
            result = try StrokeToolTests.run([
                "library", "threshold", library, "--gesture", "v", "--minimum-score", strict,
            ])
            #expect(
                result.status == 0 && result.output.contains("v needs \(strict)"), "\(result.output)\(result.error)")
            result = try StrokeToolTests.run([
                "library", "threshold", library, "--gesture", "bolt", "--minimum-score", "0.8",
            ])
            #expect(result.output.contains("no template of it"), "\(result.output)")
            result = try StrokeToolTests.run(["library", "list", library])
            #expect(result.output.contains("  v: 8, minimum score \(strict)"), "\(result.output)")
            #expect(result.output.contains("  bolt: 0, minimum score 0.8"), "\(result.output)")
            // The check names the gestures' own thresholds, and holds each to its own.
            result = try StrokeToolTests.run(["library", "check", library])
            #expect(
                result.output.contains("(minimum score 0.600, bolt 0.800, v \(String(format: "%.3f", Double(strict)!))")
            )
            let file = try #require(
                try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: library)))
                    as? [String: Any])
            #expect(file["version"] as? Int == 3)
            let held = try StrokeToolTests.recognized(strokes, ["--library", library])
            #expect(held.count == 1 && held[0]["match"] == nil)
            #expect((held.first?["candidates"] as? [[String: Any]])?.first?["name"] as? String == "v")

            let before = try String(contentsOfFile: library, encoding: .utf8)
            for bad in [
                ["--minimum-score", "1.5"], ["--minimum-score", "x"], ["--gesture", "", "--minimum-score", "0.7"], [],
            ] {
                let arguments =
                    ["library", "threshold", library] + (bad.contains("--gesture") ? bad : ["--gesture", "v"] + bad)
                result = try StrokeToolTests.run(arguments)
                #expect(result.status == 2, "\(arguments): \(result.output)")
            }
            #expect(try String(contentsOfFile: library, encoding: .utf8) == before)

            for gesture in ["v", "bolt"] {
                result = try StrokeToolTests.run([
                    "library", "threshold", library, "--gesture", gesture, "--minimum-score", "library",
                ])
                #expect(result.status == 0 && result.output.contains("(the library's)"), "\(result.output)")
            }
            #expect(try StrokeToolTests.recognized(strokes, ["--library", library]).first?["match"] as? String == "v")
            let cleared = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: library)))
            #expect((cleared as? [String: Any])?["version"] as? Int == 1)
        }
    }

    @Test("stroke-tool thresholds: each gesture at each threshold, the library with --gesture's; bad values refused")
    func thresholds() throws {
        let base = ["thresholds", "--dataset", StrokeToolTests.fixtures, "--thresholds", "0.59,0.7"]
        // The other gestures at the first threshold reported.
        let result = try StrokeToolTests.run(base + ["--gesture", "circle=1", "--minimum-score", "0.59", "--json"])
        #expect(result.status == 0, "\(result.error)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
        let report = try #require(object["report"] as? [String: Any])
        #expect(report["thresholds"] as? [Double] == [0.59, 0.7])
        let gestures = try #require(report["gestures"] as? [[String: Any]])
        #expect(gestures.count == 16 && gestures.allSatisfy { ($0["recognized"] as? [Double])?.count == 2 })
        let uniform = try #require(report["uniform"] as? [[String: Any]])
        let given = try #require(object["given"] as? [String: Any])
        #expect(given["gestureMinimumScores"] as? [String: Double] == ["circle": 1])
        let circles = gestures.first { $0["name"] as? String == "circle" }?["unknownTaken"] as? [Int]
        #expect(
            given["unknownTurnedAway"] as? Int
                == (uniform[0]["unknownTurnedAway"] as? Int).map { $0 + (circles?.first ?? 0) })
        let text = try StrokeToolTests.run(base)
        #expect(text.status == 0 && text.output.contains("all at 0.70"), "\(text.output)")
        for bad in [
            ["--gesture", "circle"], ["--gesture", "circle=2"], ["--thresholds", "x"], ["--minimum-score", "-1"],
        ] {
            #expect(try StrokeToolTests.run(base + bad).status == 2, "\(bad)")
        }
        #expect(try StrokeToolTests.run(["thresholds"]).status == 2)
        // A gesture the library lacks left the last row as without it (before session 82).
        let absent = try StrokeToolTests.run(base + ["--gesture", "cirlce=0.9"])
        #expect(
            absent.status == 2
                && absent.error.contains(#"--gesture: "cirlce" is no gesture of the library each subject is left out"#),
            "\(absent.error)")
    }

    @Test(
        "stroke-tool thresholds --strokes: a library's own thresholds on strokes of your own; unknown names tested as such"
    )
    func ownStrokes() throws {
        try StrokeToolTests.withTemporaryDirectory("thresholds-strokes") { directory in
            let strokes = directory + "/mine.json"
            try """
            [{"name": "v", "points": [[0, 0], [15, 30], [30, 0]]},
             {"name": "caret", "points": [[0, 30], [15, 0], [30, 30]]},
             {"name": "lightning", "points": [[0, 0], [20, 10], [5, 20], [25, 30]]}]
            """.write(toFile: strokes, atomically: true, encoding: .utf8)
            let library = directory + "/strict.json"
            #expect(try StrokeToolTests.run(["library", "export-default", "-o", library]).status == 0)
            #expect(
                try StrokeToolTests.run(["library", "threshold", library, "--gesture", "v", "--minimum-score", "1"])
                    .status == 0)
            func report(_ extra: [String]) throws -> [String: Any] {
                let result = try StrokeToolTests.run(["thresholds", "--strokes", strokes, "--json"] + extra)
                #expect(result.status == 0, "\(result.error)")
                return try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
            }
            let plain = try report(["--thresholds", "0.5"])
            #expect(plain["given"] == nil)
            let body = try #require(plain["report"] as? [String: Any])
            #expect(body["strokes"] as? Int == 3)
            let names = (body["gestures"] as? [[String: Any]])?.compactMap { $0["name"] as? String }
            #expect(names == ["caret", "v"], "the lightning is not the library's: tested as unknown only")
            let uniform = try #require((body["uniform"] as? [[String: Any]])?.first)
            #expect(uniform["known"] as? Int == 2 && uniform["recognized"] as? Int == 2, "\(uniform)")
            // The library's own threshold for the v is the last row's: the v is no longer recognized.
            let strict = try report(["--library", library, "--thresholds", "0.5"])
            let given = try #require(strict["given"] as? [String: Any])
            #expect(given["gestureMinimumScores"] as? [String: Double] == ["v": 1])
            #expect(given["recognized"] as? Int == 1)
            let text = try StrokeToolTests.run(["thresholds", "--strokes", strokes, "--library", library])
            #expect(text.status == 0 && text.output.contains("as given") && text.output.contains("against the library"))

            let several = directory + "/several.json"
            try #"[{"name": "plus", "strokes": [[[0, 5], [10, 5]], [[5, 0], [5, 10]]]}]"#
                .write(toFile: several, atomically: true, encoding: .utf8)
            let unnamed = directory + "/unnamed.json"
            try #"[{"points": [[0, 0], [15, 30], [30, 0]]}]"#.write(toFile: unnamed, atomically: true, encoding: .utf8)
            for bad in [
                ["--strokes", several], ["--strokes", unnamed],
                ["--strokes", strokes, "--dataset", StrokeToolTests.fixtures],
                ["--dataset", StrokeToolTests.fixtures, "--library", library],
            ] {
                let refused = try StrokeToolTests.run(["thresholds"] + bad)
                #expect(refused.status == 2, "\(bad): \(refused.output)")
            }
        }
    }

    @Test("library add --library carries the added gestures' own thresholds, where the file has none for them")
    func carriedByAdd() throws {
        try StrokeToolTests.withTemporaryDirectory("threshold-add") { directory in
            let source = directory + "/source.json"
            let target = directory + "/target.json"
            #expect(try StrokeToolTests.run(["library", "export-default", "-o", source]).status == 0)
            for (gesture, score) in [("v", "0.9"), ("star", "0.8"), ("circle", "0.7")] {
                let result = try StrokeToolTests.run(
                    ["library", "threshold", source, "--gesture", gesture, "--minimum-score", score])
                #expect(result.status == 0, "\(result.error)")
            }
            #expect(
                try StrokeToolTests.run(["library", "add", target, "--library", source, "--gesture", "x"]).status == 0)
            #expect(
                try StrokeToolTests.run(["library", "threshold", target, "--gesture", "star", "--minimum-score", "0.6"])
                    .status == 0)
            #expect(
                try StrokeToolTests.run(["library", "add", target, "--library", source, "--gesture", "v"]).status == 0)
            #expect(
                try StrokeToolTests.run(["library", "add", target, "--library", source, "--gesture", "star"]).status
                    == 0)
            let file = try #require(
                try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: target))) as? [String: Any]
            )
            // The v's came along, the star kept the target's own, and the circle, not added, stayed behind.
            #expect(
                file["gestures"] as? [String: [String: Double]]
                    == ["v": ["minimumScore": 0.9], "star": ["minimumScore": 0.6]], "\(file["gestures"] ?? "none")")
        }
    }
}
