import Foundation
import StrokeProtocol
import StrokeRecognition
import Testing

@testable import StrokeWorker

// MARK: - Forgetting

extension LearnedTemplatesTests {
    @Test("forget drops a gesture's templates, \"*\" all of them; an unknown name is an error")
    func forget() {
        var processor = SessionProcessorTests.processor()
        var producer = Producer("erin")
        producer.draw(&processor, Self.bolt(0), learn: "bolt")
        producer.draw(&processor, Self.bolt(2), learn: "bolt")
        producer.draw(&processor, [[0, 0, 0], [50, 50, 16], [100, 0, 32], [150, 50, 48]], learn: "zig")
        #expect(Self.lastEvent(processor)["templates"] as? Int == 3)
        #expect(Self.learnedCount(processor) == 3)

        producer.send(&processor, ["type": "options", "forget": "bolt"])
        #expect(Self.learnedCount(processor) == 1)
        producer.draw(&processor, Self.bolt(1))
        #expect(Self.lastEvent(processor)["name"] as? String != "bolt")

        producer.send(&processor, ["type": "options", "forget": "nothing-like-it"])
        let error = Self.lastEvent(processor)
        #expect(error["event"] as? String == "error" && error["code"] as? String == "unknown_template")
        #expect(Self.learnedCount(processor) == 1)

        producer.send(&processor, ["type": "options", "forget": "*"])
        #expect(Self.learnedCount(processor) == 0)
        producer.send(&processor, ["type": "options", "forget": "zig"])
        #expect(Self.lastEvent(processor)["code"] as? String == "unknown_template")
    }

    @Test("a session's templates go when it closes, is evicted or starts over")
    func sessionEnds() {
        var processor = SessionProcessorTests.processor()
        var closing = Producer("frank")
        closing.draw(&processor, Self.bolt(0), learn: "bolt")
        closing.send(&processor, ["type": "close"])
        #expect(Self.learnedCount(processor) == 0)
        #expect(processor.core.learned.isEmpty)

        var restarting = Producer("gina")
        restarting.draw(&processor, Self.bolt(0), learn: "bolt")
        restarting.sequence = 0  // the producer starts over at 1
        restarting.draw(&processor, Self.bolt(1))
        let events = SessionProcessorTests.events(processor).suffix(2).map(\.payload)
        #expect(events[0]["code"] as? String == "session_restart")
        #expect((events[0]["message"] as? String ?? "").contains("1 learned template forgotten"))
        #expect(events[1]["name"] as? String != "bolt")
        #expect(Self.learnedCount(processor) == 0)

        var idle = Producer("hank")
        idle.draw(&processor, Self.bolt(0), learn: "bolt")
        #expect(Self.learnedCount(processor) == 1)
        processor.now = UInt32(processor.configuration.idleTimeoutSeconds + 1)
        processor.evictIdle()
        #expect(Self.learnedCount(processor) == 0)
        #expect(processor.core.learned.isEmpty)
        // A new session of the same id starts with nothing learned.
        var again = Producer("hank")
        again.draw(&processor, Self.bolt(1))
        #expect(Self.lastEvent(processor)["name"] as? String != "bolt")
    }
}
