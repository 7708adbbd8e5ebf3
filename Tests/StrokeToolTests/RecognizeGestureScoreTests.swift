import Foundation
import Testing

/// `stroke-tool recognize --gesture-score NAME=S`: a session's own score for one gesture (`gestureScores`).
@Suite("stroke-tool recognize --gesture-score")
struct RecognizeGestureScoreTests {
    @Test("a stroke of that gesture under the score is no match; strokes of other gestures are as before")
    func oneGesture() throws {
        let path = NSTemporaryDirectory() + "strokes-\(UUID().uuidString).json"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try """
        [{"name": "v", "points": [[0, 0], [15, 30], [30, 0]]},
         {"name": "caret", "points": [[0, 30], [15, 0], [30, 30]]}]
        """.write(toFile: path, atomically: true, encoding: .utf8)
        let plain = try StrokeToolTests.recognized(path, ["--follow-tilt", "off"])
        #expect(plain.map { $0["match"] as? String } == ["v", "caret"])
        let score = try #require(plain.first?["score"] as? Double)
        let strict = try StrokeToolTests.recognized(
            path, ["--follow-tilt", "off", "--gesture-score", "v=\(min(1, score + 0.01))"])
        #expect(strict.map { $0["match"] as? String } == [nil, "caret"])
        // Below the library's threshold for it, the gesture's score changes nothing: the higher applies.
        let lenient = try StrokeToolTests.recognized(path, ["--follow-tilt", "off", "--gesture-score", "v=0.1"])
        #expect(lenient.map { $0["match"] as? String } == ["v", "caret"])
        for bad in ["v", "v=1.5", "=0.5", "v=x"] {
            let refused = try StrokeToolTests.run(["recognize", "--strokes", path, "--gesture-score", bad])
            #expect(refused.status == 2 && refused.error.contains("--gesture-score"), "\(bad)")
        }
        // A gesture the library lacks scored nothing, and every answer was as without it (before session 82).
        let absent = try StrokeToolTests.run(["recognize", "--strokes", path, "--gesture-score", "vee=0.9"])
        #expect(
            absent.status == 2
                && absent.error.contains(#"--gesture-score: "vee" is no gesture of the library default"#),
            "\(absent.error)")
    }
}
