import Foundation
import Testing

/// `stroke-tool library add --strokes`, on the strokes file that `recognize` and `send` take.
@Suite("stroke-tool library add")
struct LibraryAddCommandTests {
    /// A STROKES.json entry through `corners`, one point every 2 units and 8 ms, with its time ([x, y, t]) as a
    /// recorded stroke has it; no "name" when `name` is nil.
    private static func stroke(_ name: String?, _ corners: [(Double, Double)]) -> String {
        var points = [String]()
        for (a, b) in zip(corners, corners.dropFirst()) {
            let steps = max(1, Int((hypot(b.0 - a.0, b.1 - a.1) / 2).rounded()))
            for k in 0..<steps {
                let f = Double(k) / Double(steps)
                points.append("[\(a.0 + (b.0 - a.0) * f), \(a.1 + (b.1 - a.1) * f), \(points.count * 8)]")
            }
        }
        let named = name.map { #""name": ""# + $0 + #"", "# } ?? ""
        return "{" + named + #""points": ["# + points.joined(separator: ", ") + "]}"
    }

    private static let zigzag = [(0.0, 0.0), (25, 60), (50, 0), (75, 60), (100, 0)]
    private static let square = [(0.0, 0.0), (0, 100), (100, 100), (100, 0), (0, 0)]

    @Test("strokes with times become templates that recognize them; --gesture names the unnamed and picks")
    func stampedStrokes() throws {
        try StrokeToolTests.withTemporaryDirectory("library-add") { directory in
            let named = try StrokeToolTests.strokesFile(
                [Self.stroke("zigzag", Self.zigzag), Self.stroke("square", Self.square)], in: directory)
            let library = directory + "/library.json"
            var result = try StrokeToolTests.run(["library", "add", library, "--strokes", named])
            #expect(result.status == 0, "\(result.error)")
            #expect(result.output.contains("added 2 templates to \(library)\n"), "\(result.output)")
            // The same file, recognized with the library made of it: each stroke is its own template.
            result = try StrokeToolTests.run(["recognize", "--strokes", named, "--library", library])
            #expect(result.status == 0, "\(result.error)")
            #expect(result.output.contains("2 of 2 named strokes matched their name"))

            // --gesture: the unnamed stroke (another square) is taken as it, the zigzag of another name is left out.
            let mixed = try StrokeToolTests.strokesFile(
                [Self.stroke(nil, Self.square.map { ($0.0 * 2, $0.1) }), Self.stroke("zigzag", Self.zigzag)],
                in: directory)
            result = try StrokeToolTests.run(["library", "add", library, "--strokes", mixed, "--gesture", "square"])
            #expect(result.status == 0, "\(result.error)")
            #expect(result.output.contains("added 1 template to \(library)\n"), "\(result.output)")
            result = try StrokeToolTests.run(["library", "list", library])
            #expect(result.output.contains("square: 2") && result.output.contains("zigzag: 1"), "\(result.output)")
        }
    }

    @Test("templates the library holds already are passed over, and said to be; with nothing new, it is unchanged")
    func duplicates() throws {
        try StrokeToolTests.withTemporaryDirectory("library-add") { directory in
            let library = directory + "/library.json"
            let both = try StrokeToolTests.strokesFile(
                [Self.stroke("zigzag", Self.zigzag), Self.stroke("square", Self.square)], in: directory)
            var result = try StrokeToolTests.run(["library", "add", library, "--strokes", both])
            #expect(result.status == 0, "\(result.error)")
            let saved = try Data(contentsOf: URL(fileURLWithPath: library))
            // The same file again: before session 81, two more templates, each a copy of one there.
            result = try StrokeToolTests.run(["library", "add", library, "--strokes", both])
            #expect(result.status == 1)
            #expect(
                result.error.contains(
                    "nothing to add from \(both) (2 templates already in \(library) passed over); "
                        + "\(library) is unchanged"
                ), "\(result.error)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: library)) == saved)
            // A library added to itself, the same.
            result = try StrokeToolTests.run(["library", "add", library, "--library", library])
            #expect(result.status == 1 && result.error.contains("2 templates already in"), "\(result.error)")
            // One new stroke beside one held, and a stroke twice in one file: each added once.
            let wider = [(0.0, 0.0), (0, 100), (300, 100), (300, 0), (0, 0)]
            let mixed = try StrokeToolTests.strokesFile(
                [Self.stroke("zigzag", Self.zigzag), Self.stroke("box", wider), Self.stroke("box", wider)],
                in: directory)
            result = try StrokeToolTests.run(["library", "add", library, "--strokes", mixed])
            #expect(result.status == 0, "\(result.error)")
            #expect(
                result.output == "added 1 template to \(library) (2 templates already in \(library) passed over)\n",
                "\(result.output)")
            result = try StrokeToolTests.run(["library", "list", library])
            #expect(
                result.output.contains("box: 1") && result.output.contains("zigzag: 1")
                    && result.output.contains("square: 1"), "\(result.output)")
        }
    }

    @Test("an unnamed stroke without --gesture, a point of four numbers, a missing file: errors, library unchanged")
    func badStrokes() throws {
        try StrokeToolTests.withTemporaryDirectory("library-add") { directory in
            let library = directory + "/library.json"
            let unnamed = try StrokeToolTests.strokesFile(
                [Self.stroke("zigzag", Self.zigzag), Self.stroke(nil, Self.square)], in: directory)
            var result = try StrokeToolTests.run(["library", "add", library, "--strokes", unnamed])
            #expect(result.status == 2)
            #expect(result.error.contains("stroke 1 has no \"name\""), "\(result.error)")
            #expect(!FileManager.default.fileExists(atPath: library))

            let fourNumbers = try StrokeToolTests.strokesFile(
                [#"{"name": "dot", "points": [[1, 2, 3, 4], [5, 6, 7, 8]]}"#], in: directory)
            result = try StrokeToolTests.run(["library", "add", library, "--strokes", fourNumbers])
            #expect(result.status != 0)
            #expect(result.error.contains("point 0 has 4 numbers"), "\(result.error)")
            result = try StrokeToolTests.run(["library", "add", library, "--strokes", directory + "/missing.json"])
            #expect(result.status == 1)
            #expect(result.error.contains("cannot read \(directory)/missing.json"), "\(result.error)")
            #expect(!FileManager.default.fileExists(atPath: library))
        }
    }

    @Test("--library adds another library's templates (of one gesture with --gesture); --minimum-score sets the file's")
    func fromAnotherLibrary() throws {
        try StrokeToolTests.withTemporaryDirectory("library-add") { directory in
            let game = directory + "/game.json"
            var result = try StrokeToolTests.run(["library", "export-default", "-o", game])
            #expect(result.status == 0, "\(result.error)")
            let swipes = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
                .appendingPathComponent("../../Libraries/swipes.json").standardized.path
            result = try StrokeToolTests.run(["library", "add", game, "--library", swipes])
            #expect(result.status == 0, "\(result.error)")
            #expect(result.output.contains("added 8 templates"))
            result = try StrokeToolTests.run(["library", "list", game])
            #expect(
                result.output.contains(
                    "minimum score 0.6, scores of the 3 nearest templates, elastic dead zone 10.0°"),
                "the file keeps its own threshold, scoring and dead zone: \(result.output)")
            #expect(
                result.output.contains("swipe_up_left: 1") && result.output.contains("check: 8"), "\(result.output)")

            let checks = directory + "/checks.json"
            result = try StrokeToolTests.run([
                "library", "add", checks, "--library", "default", "--gesture", "check", "--minimum-score", "0.7",
            ])
            #expect(result.status == 0, "\(result.error)")
            result = try StrokeToolTests.run(["library", "list", checks])
            #expect(
                result.output.contains("minimum score 0.7, elastic dead zone 10.0°, 8 templates")
                    && result.output.contains("check: 8"))

            result = try StrokeToolTests.run(["library", "add", checks, "--library", directory + "/missing.json"])
            #expect(result.status != 0 && result.error.contains("missing.json"), "\(result.error)")
            result = try StrokeToolTests.run(["library", "add", checks, "--library", "default", "--minimum-score", "2"])
            #expect(result.status == 2 && result.error.contains("--minimum-score"), "\(result.error)")
            result = try StrokeToolTests.run(["library", "list", checks])
            #expect(
                result.output.contains("minimum score 0.7, elastic dead zone 10.0°, 8 templates"),
                "unchanged: \(result.output)")

            // The dead zone: none for gestures that differ by direction alone; a bad one changes nothing.
            result = try StrokeToolTests.run([
                "library", "add", checks, "--library", "default", "--elastic-dead-zone", "-3",
            ])
            #expect(result.status == 2 && result.error.contains("--elastic-dead-zone"), "\(result.error)")
            result = try StrokeToolTests.run([
                "library", "add", checks, "--library", "default", "--gesture", "v", "--elastic-dead-zone", "none",
            ])
            #expect(result.status == 0, "\(result.error)")
            result = try StrokeToolTests.run(["library", "list", checks])
            #expect(result.output.contains("elastic dead zone none, 16 templates"), "\(result.output)")
        }
    }
}
