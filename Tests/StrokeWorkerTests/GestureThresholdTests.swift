import Foundation
import StrokeProtocol
import StrokeRecognition
import Testing

@testable import StrokeWorker

/// A library whose gestures have thresholds of their own (`TemplateLibrary.gestureMinimumScores`), as sessions are
/// answered by the worker.
@Suite("Session processor: a gesture's own threshold")
struct GestureThresholdTests {
    typealias Processor = MinimumScoreTests.Processor
    typealias Producer = MinimumScoreTests.Producer

    /// A processor with the built-in library and a copy of it named "spells" whose gestures have `thresholds`.
    static func processor(_ thresholds: [String: Double]) throws -> Processor {
        try MinimumScoreTests.processor(copyNamed: "spells") { $0.gestureMinimumScores = thresholds }
    }

    /// The score of the recorded check in the built-in library.
    static func checkScore() throws -> Double {
        var processor = SessionProcessorTests.processor()
        var a = Producer("a")
        a.draw(&processor, MinimumScoreTests.check)
        return try #require(MinimumSizeTests.events(processor, "a").last?["score"] as? Double)
    }

    @Test("a check under its own threshold is a nomatch below_threshold in that library only; others match as before")
    func heldToItsOwn() throws {
        let score = try Self.checkScore()
        var processor = try Self.processor(["check": score + 0.01, "v": 0.99])
        var strict = Producer("strict")
        var plain = Producer("plain")
        strict.send(&processor, ["type": "options", "library": "spells"])
        strict.draw(&processor, MinimumScoreTests.check)
        plain.draw(&processor, MinimumScoreTests.check)
        let circle = MinimumScoreTests.logs.first { $0.gesture == "circle" }!.points.map { [$0.x, $0.y, $0.time] }
        strict.draw(&processor, circle)
        let strictResults = MinimumScoreTests.results(processor, "strict")
        #expect(strictResults.count == 2 && strictResults[0] == "nomatch below_threshold")
        #expect(strictResults[1].hasPrefix("circle "))
        #expect(MinimumScoreTests.results(processor, "plain") == ["check \(score)"])
    }

    @Test("the session's threshold and the gesture's: the higher applies")
    func higherApplies() throws {
        let score = try Self.checkScore()
        var processor = try Self.processor(["check": 0.3])
        var a = Producer("a")
        a.send(&processor, ["type": "options", "library": "spells", "minimumScore": score - 0.01])
        a.draw(&processor, MinimumScoreTests.check)
        a.send(&processor, ["type": "options", "minimumScore": score + 0.01])
        a.draw(&processor, MinimumScoreTests.check)
        var b = Producer("b")
        var raised = try Self.processor(["check": score + 0.01])
        b.send(&raised, ["type": "options", "library": "spells", "minimumScore": 0.5])
        b.draw(&raised, MinimumScoreTests.check)
        #expect(MinimumScoreTests.results(processor, "a") == ["check \(score)", "nomatch below_threshold"])
        #expect(MinimumScoreTests.results(raised, "b") == ["nomatch below_threshold"])
    }

    @Test("a gesture a session learned under a name with a threshold is held to it")
    func learnedUnderTheName() throws {
        for (threshold, expected) in [(nil, "bolt"), (0.999, "nomatch")] as [(Double?, String)] {
            var processor = try Self.processor(threshold.map { ["bolt": $0] } ?? [:])
            var wizard = Producer("wizard")
            wizard.send(&processor, ["type": "options", "library": "spells"])
            wizard.draw(&processor, LearnedTemplatesTests.bolt(0), learn: "bolt")
            wizard.draw(&processor, LearnedTemplatesTests.bolt(1))
            let results = MinimumScoreTests.results(processor, "wizard")
            #expect(results.count == 1 && results[0].hasPrefix(expected), "\(results)")
        }
    }
}
