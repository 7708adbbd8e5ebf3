import Foundation
import StrokeProtocol
import StrokeRecognition
import Testing

@testable import StrokeWorker

/// Random and mutated input never crashes the decoder or the processor, and never affects other sessions.
@Suite("Robustness against bad input")
struct RobustnessTests {
    @Test("random bytes and mutations of valid messages, then a bystander's stroke still matches")
    func fuzz() throws {
        var generator = SeededGenerator(seed: 42)
        var processor = SessionProcessorTests.processor {
            $0.maxPointsPerStroke = 500
            $0.maxMessageBytes = 4096
        }
        let scenario = try ScenarioReplayer.scenarios()[0]
        let valid = try (scenario["messages"] as! [[String: Any]]).map { try ScenarioReplayer.frames($0)[1] }
        let binary = try (ScenarioReplayer.scenarios()[1]["messages"] as! [[String: Any]]).map {
            try ScenarioReplayer.frames($0)[1]
        }
        let samples = valid + binary
        for round in 0..<20_000 {
            let session = "fuzz-\(round % 37)"
            var payload: [UInt8]
            switch round % 4 {
            case 0:
                payload = (0..<Int.random(in: 0...64, using: &generator)).map { _ in
                    UInt8.random(in: 0...255, using: &generator)
                }
            case 1:
                payload = samples.randomElement(using: &generator)!
                for _ in 0..<Int.random(in: 1...4, using: &generator) where !payload.isEmpty {
                    payload[Int.random(in: 0..<payload.count, using: &generator)] = UInt8.random(
                        in: 0...255, using: &generator)
                }
            case 2:
                let sample = samples.randomElement(using: &generator)!
                payload = Array(sample.prefix(Int.random(in: 0...sample.count, using: &generator)))
            default:
                payload = samples.randomElement(using: &generator)!
            }
            var topic = Array(ShardKey.topic(for: session).utf8)
            if round % 97 == 0 { topic = Array(topic.prefix(Int.random(in: 0...topic.count, using: &generator))) }
            SessionProcessorTests.feed(&processor, [topic, payload])
        }
        processor.sink.removeAll()
        for message in valid {
            SessionProcessorTests.feed(&processor, [Array(ShardKey.topic(for: "bystander").utf8), message])
        }
        let events = SessionProcessorTests.events(processor)
        #expect(events.map { $0.payload["event"] as! String } == ["checkmark", "match"])
        #expect(events.last?.payload["name"] as? String == "check")
    }

    @Test("the JSON decoder survives deep nesting, huge numbers and long strings")
    func hostileJSON() {
        let decoder = InputDecoder()
        let cases = [
            String(repeating: "[", count: 100_000),
            "{\"type\":\"points\",\"seq\":1,\"stroke\":1,\"points\":[[" + String(repeating: "9", count: 5000)
                + ",1,1]]}",
            "{\"type\":\"" + String(repeating: "x", count: 100_000) + "\",\"seq\":1}",
            "{\"type\":\"options\",\"seq\":1,\"library\":\"\\ud800\"}",
            "{\"type\":\"close\",\"seq\":1e400}",
        ]
        for text in cases {
            #expect(throws: ProtocolError.self) { _ = try decoder.decode(Array(text.utf8)) }
        }
    }
}
