import Foundation
import StrokeProtocol
import StrokeRecognition
import Testing

@testable import StrokeWorker

/// Random and mutated input never crashes the decoder or the processor, and never affects other sessions.
@Suite("Robustness against bad input")
struct RobustnessTests {
    /// Messages each fuzz test feeds: 20,000, or `STROKE_FUZZ_ROUNDS` (`make fuzz` feeds two million).
    static let rounds = ProcessInfo.processInfo.environment["STROKE_FUZZ_ROUNDS"].flatMap { Int($0) } ?? 20_000
    /// The random generators' seed: `STROKE_FUZZ_SEED` (`make fuzz FUZZ_SEED=…`), or each test's own.
    static let seed = ProcessInfo.processInfo.environment["STROKE_FUZZ_SEED"].flatMap { UInt64($0) }

    /// Valid payloads to mutate: the first two scenarios' (JSON and binary), the learning one's (`learn` and
    /// `forget`, mutated; `LearnedTemplatesTests.randomOperations` drives learning itself), the grouping one's, the
    /// one whose session chooses gestures (`gestures`, mutated), the one whose session sets a minimum size (taps,
    /// `minimumSize`, mutated) and the pinging one's (pings among strokes).
    static func samples() throws -> [[UInt8]] {
        let scenarios = try ScenarioReplayer.scenarios()
        let learning = try #require(scenarios.first { ($0["name"] as! String).hasPrefix("a session learns") })
        let grouping = try #require(scenarios.first { ($0["name"] as! String).hasPrefix("a session groups") })
        let choosing = try #require(scenarios.first { ($0["name"] as! String).hasPrefix("a session chooses") })
        let pinging = try #require(scenarios.first { ($0["name"] as! String).hasPrefix("ping:") })
        let sizing = try #require(scenarios.first { ($0["name"] as! String).hasPrefix("a session sets minimumSize") })
        return try (Array(scenarios[0...1]) + [learning, grouping, choosing, sizing, pinging]).flatMap { scenario in
            try (scenario["messages"] as! [[String: Any]]).map { try ScenarioReplayer.frames($0)[1] }
        }
    }

    /// A fuzzed message for one of `sessions` sessions: random bytes, a valid payload with a few bytes changed or
    /// cut short, or a valid one. Its topic is now and then cut short or has a byte changed (the shard key of a
    /// known session, often), and now and then it has one frame or three.
    static func fuzzed(
        round: Int, sessions: Int, samples: [[UInt8]], using generator: inout SeededGenerator
    ) -> [[UInt8]] {
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
        var topic = Array(ShardKey.topic(for: "fuzz-\(round % sessions)").utf8)
        if round % 97 == 0 { topic = Array(topic.prefix(Int.random(in: 0...topic.count, using: &generator))) }
        if round % 13 == 0, !topic.isEmpty {
            let at = Int.random(in: 0..<min(topic.count, round % 2 == 0 ? 4 : topic.count), using: &generator)
            topic[at] = UInt8.random(in: 0...255, using: &generator)
        }
        switch round % 101 {
        case 0: return [topic]
        case 50: return [topic, payload, payload]
        default: return [topic, payload]
        }
    }

    @Test("random bytes and mutations of valid messages, then a bystander's stroke still matches")
    func fuzz() throws {
        var generator = SeededGenerator(seed: Self.seed ?? 42)
        var processor = SessionProcessorTests.processor {
            $0.maxPointsPerStroke = 500
            $0.maxMessageBytes = 4096
        }
        let samples = try Self.samples()
        for round in 0..<Self.rounds {
            SessionProcessorTests.feed(
                &processor, Self.fuzzed(round: round, sessions: 37, samples: samples, using: &generator))
            if round % 10_000 == 9_999 { processor.sink.removeAll() }
            // Gestures of several strokes that fuzzed sessions started wait, and are matched, on the clock.
            if round % 500 == 499 {
                processor.milliseconds += 200
                processor.matchDueGestures()
            }
        }
        processor.matchAllGestures()
        processor.sink.removeAll()
        try Self.expectCheckAnswered(&processor, topic: Array(ShardKey.topic(for: "bystander").utf8))
    }

    /// Sends the first scenario's recorded check to `topic`, its `seq` and stroke numbers moved on by `after`, and
    /// expects its checkmark and its match, and no other event.
    static func expectCheckAnswered(
        _ processor: inout SessionProcessor<CollectingSink>, topic: [UInt8], after: (seq: Int, stroke: Int) = (0, 0)
    ) throws {
        let scenario = try ScenarioReplayer.scenarios()[0]
        for message in scenario["messages"] as! [[String: Any]] {
            var json = try #require(message["json"] as? [String: Any])
            json["seq"] = (json["seq"] as! Int) + after.seq
            json["stroke"] = (json["stroke"] as! Int) + after.stroke
            SessionProcessorTests.feed(
                &processor, [topic, try ScenarioReplayer.frames(["topic": "", "json": json])[1]])
        }
        let events = SessionProcessorTests.events(processor)
        #expect(events.map { $0.payload["event"] as! String } == ["checkmark", "match"])
        #expect(events.last?.payload["name"] as? String == "check")
    }

    @Test("fuzzed input gives the same events one message at a time as in batches of 1 to 16")
    func fuzzBatched() throws {
        var generator = SeededGenerator(seed: Self.seed.map { $0 &+ 1 } ?? 7)
        func processor() -> SessionProcessor<CollectingSink> {
            SessionProcessorTests.processor {
                $0.maxPointsPerStroke = 500
                $0.maxMessageBytes = 4096
            }
        }
        var single = processor()
        var batched = processor()
        let samples = try Self.samples()
        var messages = [[[UInt8]]]()
        for round in 0..<Self.rounds {
            messages.append(Self.fuzzed(round: round, sessions: 5000, samples: samples, using: &generator))
            guard messages.count == 1000 || round == Self.rounds - 1 else { continue }
            for message in messages { SessionProcessorTests.feed(&single, message) }
            SessionProcessorTests.feedBatched(&batched, messages, sizes: [16, 1, 7, 3, 16, 2, 11])
            let expected = single.sink.events
            let actual = batched.sink.events
            #expect(actual.count == expected.count, "round \(round)")
            for (one, other) in zip(expected, actual) where one != other {
                Issue.record("round \(round): \(one) one at a time, \(other) in batches")
                return
            }
            single.sink.removeAll()
            batched.sink.removeAll()
            messages.removeAll(keepingCapacity: true)
        }
        #expect(single.sessionCount == batched.sessionCount)
        #expect(single.sessionCount > 0)
    }

    @Test("a stroke whose points are too far apart for their distance gets its answer, and the session goes on")
    func overflowingDistances() throws {
        var processor = SessionProcessorTests.processor()
        let topic = Array(ShardKey.topic(for: "far").utf8)
        // Finite coordinates 1e200 apart: their squared distance overflows (make fuzz found the detector's walk
        // interpolating NaNs along such a segment).
        let far = [
            #"{"type":"begin","seq":1,"stroke":1,"points":[[0,0,0],[10,10,10],[1e200,20,20],[30,-1e200,30]]}"#,
            #"{"type":"points","seq":2,"stroke":1,"points":[[40,40,40],[50,30,50],[60,20,60],[-1e200,1e200,70]]}"#,
            #"{"type":"end","seq":3,"stroke":1}"#,
        ]
        for message in far { SessionProcessorTests.feed(&processor, [topic, Array(message.utf8)]) }
        let answer = SessionProcessorTests.events(processor)
        #expect(answer.map { $0.payload["event"] as! String } == ["nomatch"])
        #expect(answer.first?.payload["stroke"] as? Int == 1)
        processor.sink.removeAll()
        // The same session's next stroke, a check, is answered as ever.
        try Self.expectCheckAnswered(&processor, topic: topic, after: (seq: 3, stroke: 1))
    }

    @Test("strokes of extreme coordinates give the same events one message at a time as in batches")
    func extremeCoordinates() throws {
        var generator = SeededGenerator(seed: Self.seed.map { $0 &+ 2 } ?? 11)
        /// A coordinate: mostly a touch's, now and then huge, tiny, subnormal, or the same as the last.
        func coordinate(_ last: Double) -> Double {
            switch Int.random(in: 0..<20, using: &generator) {
            case 0:
                return Double.random(in: 1e150...1e300, using: &generator) * (Bool.random(using: &generator) ? 1 : -1)
            case 1: return Double.random(in: 1e-300...1e-290, using: &generator)
            case 2: return Double.leastNonzeroMagnitude
            case 3: return last
            default: return last + Double.random(in: -8...8, using: &generator)
            }
        }
        // 250 strokes, or up to 2,000 under `make fuzz` (each is recognized, and recognition is slow in debug builds).
        let strokes = min(max(Self.rounds / 80, 50), 2000)
        var messages = [[[UInt8]]]()
        for stroke in 0..<strokes {
            let topic = Array(ShardKey.topic(for: "extreme-\(stroke % 50)").utf8)
            let number = stroke / 50 + 1
            var (x, y, t) = (100.0, 100.0, 0.0)
            var seq = 3 * (number - 1)
            for part in 0..<2 {
                let points = (0..<Int.random(in: 1...40, using: &generator)).map { _ in
                    (x, y, t) = (coordinate(x), coordinate(y), t + 8)
                    return "[\(x),\(y),\(t)]"
                }
                seq += 1
                let type = part == 0 ? "begin" : "points"
                let json =
                    #"{"type":""# + type + #"","seq":\#(seq),"stroke":\#(number),"points":["#
                    + points.joined(separator: ",") + "]}"
                messages.append([topic, Array(json.utf8)])
            }
            seq += 1
            messages.append([topic, Array(#"{"type":"end","seq":\#(seq),"stroke":\#(number)}"#.utf8)])
        }
        var single = SessionProcessorTests.processor()
        var batched = SessionProcessorTests.processor()
        for message in messages { SessionProcessorTests.feed(&single, message) }
        SessionProcessorTests.feedBatched(&batched, messages, sizes: [16, 1, 7, 3, 16, 2, 11])
        let answers =
            single.sink.events.filter { $0.payload.contains(#""event":"match""#) }.count
            + single.sink.events.filter { $0.payload.contains(#""event":"nomatch""#) }.count
        #expect(answers == strokes, "every stroke answered")
        #expect(batched.sink.events.count == single.sink.events.count)
        for (one, other) in zip(single.sink.events, batched.sink.events) where one != other {
            Issue.record("\(one) one at a time, \(other) in batches")
            return
        }
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
