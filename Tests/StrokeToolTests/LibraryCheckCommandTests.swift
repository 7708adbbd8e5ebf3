import Foundation
import Testing

/// `stroke-tool library check`, run as a game's designer would on a library of their own.
@Suite("stroke-tool library check")
struct LibraryCheckCommandTests {
    /// A STROKES.json entry: a polyline through `corners`, one point every 2 units, the whole moved by `shift`.
    private static func stroke(_ name: String, _ corners: [(Double, Double)], shift: Double) -> String {
        var points = [String]()
        for (a, b) in zip(corners, corners.dropFirst()) {
            let steps = max(1, Int((hypot(b.0 - a.0, b.1 - a.1) / 2).rounded()))
            for k in 0..<steps {
                let f = Double(k) / Double(steps)
                points.append("[\(a.0 + (b.0 - a.0) * f + shift), \(a.1 + (b.1 - a.1) * f - shift)]")
            }
        }
        let last = corners.last!
        points.append("[\(last.0 + shift), \(last.1 - shift)]")
        return #"{"name": ""# + name + #"", "points": ["# + points.joined(separator: ", ") + "]}"
    }

    private static let zigzag = [(0.0, 0.0), (25, 60), (50, 0), (75, 60), (100, 0)]
    private static let square = [(0.0, 0.0), (0, 100), (100, 100), (100, 0), (0, 0)]

    /// A library made with `library add --strokes` from `entries`.
    private static func library(_ entries: [String], in directory: String) throws -> String {
        let strokes = try StrokeToolTests.strokesFile(entries, in: directory)
        let path = directory + "/library-\(UUID().uuidString).json"
        let added = try StrokeToolTests.run(["library", "add", path, "--strokes", strokes])
        #expect(added.status == 0, "\(added.error)")
        return path
    }

    @Test("a library whose gestures stand apart passes (status 0); one with a gesture drawn twice fails (status 3)")
    func passAndFail() throws {
        try StrokeToolTests.withTemporaryDirectory("library-check") { directory in
            let apart = try Self.library(
                [0, 3, 6].map { Self.stroke("zigzag", Self.zigzag, shift: Double($0)) }
                    + [0, 2, 5].map { Self.stroke("square", Self.square, shift: Double($0)) }, in: directory)
            var result = try StrokeToolTests.run(["library", "check", apart])
            #expect(result.status == 0, "\(result.output)\(result.error)")
            #expect(result.output.contains("clear 6,") && result.output.contains("check passed"))

            // The zigzag also under another name: each of its templates has a twin in the other gesture.
            let alike = try Self.library(
                [0, 3].flatMap { shift in
                    ["zigzag", "lightning"].map { Self.stroke($0, Self.zigzag, shift: Double(shift)) }
                } + [0, 2].map { Self.stroke("square", Self.square, shift: Double($0)) }, in: directory)
            result = try StrokeToolTests.run(["library", "check", alike])
            #expect(result.status == 3, "\(result.output)\(result.error)")
            #expect(result.output.contains("confused:") && result.output.contains("zigzag[0]: zigzag"))
            #expect(
                result.output.contains("lightning → zigzag")
                    && result.output.contains("check failed: 4 templates are taken for another gesture"))

            result = try StrokeToolTests.run(["library", "check", alike, "--json", "--margin", "0.1"])
            #expect(result.status == 3)
            let object = try #require(
                try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
            #expect(object["margin"] as? Double == 0.1 && object["templates"] as? Int == 6)
            #expect((object["verdicts"] as? [String: Int])?["confused"] == 4)
            let findings = try #require(object["findings"] as? [[String: Any]])
            #expect(findings.count == 4 && findings.allSatisfy { $0["verdict"] as? String == "confused" })
            #expect((object["pairs"] as? [Any])?.count == 2)
        }
    }

    @Test("a bad margin or a missing file is a clear error")
    func errors() throws {
        for margin in ["-1", "1.5", "nan", "inf"] {
            let refused = try StrokeToolTests.run(["library", "check", "/nonexistent/library.json", "--margin", margin])
            #expect(refused.status == 2, "\(margin): \(refused.error)")
            #expect(refused.error.contains("--margin: not a score in 0...1: \(margin)"), "\(refused.error)")
        }
        // The widest margin calls every template close that is not worse off.
        var result = try StrokeToolTests.run(["library", "check", "default", "--margin", "1", "--json"])
        let object = try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any]
        let verdicts = try #require(object?["verdicts"] as? [String: Int], "\(result.error)")
        #expect(verdicts["clear", default: 0] == 0 && verdicts["close", default: 0] > 0, "\(verdicts)")
        result = try StrokeToolTests.run(["library", "check", "/nonexistent/library.json"])
        #expect(result.status == 1 && result.error.contains("library.json"))
        result = try StrokeToolTests.run(["library", "check"])
        #expect(result.status == 2 && result.error.contains("needs a FILE"))
    }
}
