import Foundation
import StrokeProtocol
import StrokeRecognition
import Testing

@testable import StrokeWorker

// MARK: - Limits and bad strokes

extension LearnedTemplatesTests {
    @Test("the per-session and per-worker limits refuse more templates with too_many_templates")
    func limits() {
        var processor = SessionProcessorTests.processor {
            $0.maxSessionTemplates = 2
            $0.maxLearnedTemplates = 3
        }
        var ivan = Producer("ivan")
        var jane = Producer("jane")
        ivan.draw(&processor, Self.bolt(0), learn: "a")
        ivan.draw(&processor, Self.bolt(1), learn: "b")
        ivan.draw(&processor, Self.bolt(2), learn: "c")
        let refused = Self.lastEvent(processor)
        #expect(refused["code"] as? String == "too_many_templates")
        #expect((refused["message"] as? String ?? "").contains("at most 2"))
        // A tap at the limit is told it is a tap: no limit would let it be learned.
        ivan.draw(&processor, [[5, 5, 1000]], learn: "d")
        #expect(Self.lastEvent(processor)["code"] as? String == "degenerate_stroke")
        jane.draw(&processor, Self.bolt(0), learn: "a")
        #expect(Self.lastEvent(processor)["event"] as? String == "learned")
        jane.draw(&processor, Self.bolt(1), learn: "b")
        let full = Self.lastEvent(processor)
        #expect(full["code"] as? String == "too_many_templates")
        #expect((full["message"] as? String ?? "").contains("the worker holds 3"))
        #expect(Self.learnedCount(processor) == 3)

        var off = SessionProcessorTests.processor { $0.maxSessionTemplates = 0 }
        var kate = Producer("kate")
        kate.draw(&off, Self.bolt(0), learn: "a")
        #expect(Self.lastEvent(off)["code"] as? String == "too_many_templates")
    }

    @Test("a tap or a truncated stroke is not learned, with an error, and the session goes on")
    func badStrokes() {
        var processor = SessionProcessorTests.processor { $0.maxPointsPerStroke = 20 }
        var producer = Producer("liam")
        producer.draw(&processor, [[5, 5, 0], [5, 5, 16]], learn: "tap")
        let tap = Self.lastEvent(processor)
        #expect(tap["code"] as? String == "degenerate_stroke")
        #expect(tap["stroke"] as? Int == 1)
        producer.draw(&processor, Self.bolt(0), learn: "long")
        #expect(Self.lastEvent(processor)["code"] as? String == "too_many_points")
        #expect(Self.learnedCount(processor) == 0)
        producer.draw(&processor, Array(Self.bolt(0).prefix(20)), learn: "short")
        #expect(Self.lastEvent(processor)["event"] as? String == "learned")
    }

    @Test("learn and forget must be valid names, and learn belongs to end messages")
    func badNames() {
        var processor = SessionProcessorTests.processor()
        var producer = Producer("mia")
        producer.send(&processor, ["type": "begin", "stroke": 1, "points": Self.bolt(0)])
        for name: Any in ["", "*", String(repeating: "x", count: 65), "tab\there", 7] {
            producer.send(&processor, ["type": "end", "stroke": 1, "learn": name])
            let error = Self.lastEvent(processor)
            #expect(error["code"] as? String == "invalid_field", "learn: \(name)")
        }
        producer.send(&processor, ["type": "points", "stroke": 1, "points": [[1, 2, 3]], "learn": "bolt"])
        #expect((Self.lastEvent(processor)["message"] as? String ?? "").contains("end messages"))
        producer.send(&processor, ["type": "options", "forget": ""])
        #expect(Self.lastEvent(processor)["code"] as? String == "invalid_field")
        // The stroke is still open: a valid end learns it.
        producer.send(&processor, ["type": "end", "stroke": 1, "learn": String(repeating: "é", count: 32)])
        #expect(Self.lastEvent(processor)["event"] as? String == "learned")
    }

    @Test(
        "random learning, matching, forgetting, closing and restarting over 8 sessions keep the count exact (1,500 steps)"
    )
    func randomOperations() {
        var processor = SessionProcessorTests.processor {
            $0.maxSessionTemplates = 4
            $0.maxLearnedTemplates = 12
        }
        var generator = SeededGenerator(seed: 2026)
        var producers = (0..<8).map { Producer("random-\($0)") }
        // The model: each session's learned names, one entry per template.
        var model = [[String]](repeating: [], count: 8)
        let names = ["a", "b", "c"]
        for step in 0..<1_500 {
            let s = Int.random(in: 0..<8, using: &generator)
            let total = model.map(\.count).reduce(0, +)
            switch Int.random(in: 0..<10, using: &generator) {
            case 0..<4:
                let name = names.randomElement(using: &generator)!
                let tap = Int.random(in: 0..<8, using: &generator) == 0
                producers[s].draw(
                    &processor, tap ? [[1, 1, 0], [1, 1, 16]] : Self.bolt(Int.random(in: 0..<9, using: &generator)),
                    learn: name)
                let event = Self.lastEvent(processor)
                // A tap is told so first, whatever the limits; then the limits.
                if tap {
                    #expect(event["code"] as? String == "degenerate_stroke", "step \(step)")
                } else if model[s].count >= 4 || total >= 12 {
                    #expect(event["code"] as? String == "too_many_templates", "step \(step)")
                } else {
                    model[s].append(name)
                    #expect(event["event"] as? String == "learned" && event["templates"] as? Int == model[s].count)
                }
            case 4..<7:
                producers[s].draw(&processor, Self.bolt(Int.random(in: 0..<9, using: &generator)))
                let event = Self.lastEvent(processor)
                if event["learned"] as? Bool == true {
                    #expect(model[s].contains(event["name"] as! String), "step \(step): another session's gesture")
                } else if !model[s].isEmpty {
                    #expect(event["event"] as? String == "match", "step \(step): a Z like the learned ones")
                }
            case 7:
                let name = Bool.random(using: &generator) ? "*" : names.randomElement(using: &generator)!
                producers[s].send(&processor, ["type": "options", "forget": name])
                model[s].removeAll { name == "*" || $0 == name }
            case 8:
                producers[s].send(&processor, ["type": "close"])
                producers[s] = Producer("random-\(s)")
                model[s] = []
            default:
                producers[s].sequence = 0  // the producer starts over
                producers[s].draw(&processor, [[0, 0, 0], [40, 40, 16]])
                model[s] = []
            }
            #expect(
                Self.learnedCount(processor) == model.map(\.count).reduce(0, +), "step \(step): the gauge drifted")
            if step % 500 == 499 { processor.sink.removeAll() }
        }
        #expect(processor.metrics.templatesLearned.load(ordering: .relaxed) > 50)
    }
}
