import Foundation
import Testing

@testable import StrokeWorker

/// A straight stroke that no template could answer is told apart from one that scored too low
/// (Protocol/README.md §6, `straight_stroke`).
@Suite("Straight strokes in a session")
struct StraightStrokeTests {
    typealias Processor = LearnedTemplatesTests.Processor
    typealias Producer = LearnedTemplatesTests.Producer

    /// A swipe of 20 points from (20, 300) to (260, 120), 16 ms apart.
    static let swipe: [[Double]] = (0..<20).map { k in
        let u = Double(k) / 19
        return [20 + 240 * u, 300 - 180 * u, Double(k * 16)]
    }

    /// The last `match` or `nomatch` event.
    static func lastResult(_ processor: Processor) -> [String: Any] {
        SessionProcessorTests.events(processor).map(\.payload).last {
            $0["event"] as? String == "match" || $0["event"] as? String == "nomatch"
        }!
    }

    @Test("the built-in library has no straight gesture: a swipe is a nomatch straight_stroke, a scribble is not")
    func noStraightTemplate() {
        var processor = SessionProcessorTests.processor()
        var alice = Producer("alice")
        alice.draw(&processor, Self.swipe)
        let swipe = Self.lastResult(processor)
        #expect(swipe["event"] as? String == "nomatch" && swipe["reason"] as? String == "straight_stroke", "\(swipe)")
        #expect((swipe["candidates"] as? [Any])?.isEmpty == true)
        // A stroke that is no line, matched by nothing, is below the threshold, with its candidates.
        alice.draw(&processor, GestureChoiceTests.scribble())
        let scribble = Self.lastResult(processor)
        #expect(scribble["event"] as? String == "nomatch" && scribble["reason"] as? String == "below_threshold")
        #expect((scribble["candidates"] as? [Any])?.isEmpty == false, "\(scribble)")
    }

    @Test("a learned straight gesture answers a swipe; outside the session's choice it is not_chosen")
    func learnedStraightGesture() {
        var processor = SessionProcessorTests.processor()
        var alice = Producer("alice")
        alice.draw(&processor, Self.swipe, learn: "slash")
        alice.draw(&processor, Self.swipe.map { [$0[0] + 5, $0[1] - 3, $0[2]] })
        let matched = Self.lastResult(processor)
        #expect(matched["event"] as? String == "match" && matched["name"] as? String == "slash", "\(matched)")

        alice.send(&processor, ["type": "options", "gestures": ["check", "circle"]])
        alice.draw(&processor, Self.swipe)
        let unchosen = Self.lastResult(processor)
        #expect(unchosen["reason"] as? String == "not_chosen", "\(unchosen)")
        #expect((unchosen["unchosen"] as? [String: Any])?["name"] as? String == "slash")
        #expect((unchosen["candidates"] as? [Any])?.isEmpty == true)
    }
}
