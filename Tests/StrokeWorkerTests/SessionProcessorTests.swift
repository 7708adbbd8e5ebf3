import Foundation
import StrokeProtocol
import StrokeRecognition
import Testing

@testable import StrokeWorker

@Suite("Session processor")
struct SessionProcessorTests {
    static let registry = try! LibraryRegistry([try! TemplateLibrary.builtIn()])

    static func processor(_ configure: (inout WorkerConfiguration) -> Void = { _ in }) -> SessionProcessor<
        CollectingSink
    > {
        var configuration = WorkerConfiguration()
        configure(&configuration)
        return SessionProcessor(
            sink: CollectingSink(), configuration: configuration, registry: registry, metrics: WorkerMetrics())
    }

    static func feed(_ processor: inout SessionProcessor<CollectingSink>, _ frames: [[UInt8]]) {
        if frames.count == 2 {
            frames[0].withUnsafeBytes { topic in
                frames[1].withUnsafeBytes { payload in processor.handle(topic: topic, payload: payload) }
            }
        } else {
            frames[0].withUnsafeBytes { processor.handleFrameCount(frames.count, firstFrame: $0) }
        }
    }

    static func events(_ processor: SessionProcessor<CollectingSink>) -> [(topic: String, payload: [String: Any])] {
        processor.sink.events.map { event in
            (event.topic, try! JSONSerialization.jsonObject(with: Data(event.payload.utf8)) as! [String: Any])
        }
    }

    @Test("every scenario of Protocol/vectors/scenarios.json")
    func scenarios() throws {
        let scenarios = try ScenarioReplayer.scenarios()
        #expect(scenarios.count >= 10)
        for scenario in scenarios {
            var processor = Self.processor()
            for message in scenario["messages"] as! [[String: Any]] {
                Self.feed(&processor, try ScenarioReplayer.frames(message))
            }
            let problems = ScenarioReplayer.compare(
                actual: Self.events(processor), expected: scenario["events"] as! [[String: Any]])
            #expect(problems.isEmpty, "\(scenario["name"]!): \(problems)")
        }
    }

    @Test("sessions interleaved give the same events as one by one")
    func interleaving() throws {
        let scenario = try ScenarioReplayer.scenarios()[0]
        let messages = try (scenario["messages"] as! [[String: Any]]).map(ScenarioReplayer.frames)
        // The same recorded check in 50 sessions: one by one, then round-robin.
        func session(_ k: Int) -> [UInt8] { Array(ShardKey.topic(for: "s-\(k)").utf8) }
        var sequential = Self.processor()
        var interleaved = Self.processor()
        for k in 0..<50 {
            for frames in messages { Self.feed(&sequential, [session(k), frames[1]]) }
        }
        for index in messages.indices {
            for k in 0..<50 { Self.feed(&interleaved, [session(k), messages[index][1]]) }
        }
        func bySession(_ processor: SessionProcessor<CollectingSink>) -> [String: [String]] {
            Dictionary(grouping: processor.sink.events, by: \.topic).mapValues { $0.map(\.payload) }
        }
        #expect(bySession(sequential) == bySession(interleaved))
        #expect(bySession(sequential).count == 50)
        #expect(bySession(sequential).values.allSatisfy { $0.count == 2 && $0[1].contains("\"name\":\"check\"") })
    }

    /// Calls `body` with the two-frame messages as one batch of (topic, payload) buffers, as the lane hands over.
    static func withFrames(
        _ messages: some Collection<[[UInt8]]>,
        _ body: (UnsafeBufferPointer<(topic: UnsafeRawBufferPointer, payload: UnsafeRawBufferPointer)>) -> Void
    ) {
        FrameCopies(messages.map { (topic: $0[0], payload: $0[1]) }).withBatch(body)
    }

    /// Feeds messages in batches of the given sizes, in turn; a message that has not two frames ends its batch, as
    /// in the lane.
    static func feedBatched(_ processor: inout SessionProcessor<CollectingSink>, _ messages: [[[UInt8]]], sizes: [Int])
    {
        var start = 0
        var turn = 0
        while start < messages.count {
            var end = start
            let size = sizes[turn % sizes.count]
            turn += 1
            while end < messages.count, end - start < size, messages[end].count == 2 { end += 1 }
            if end == start {
                feed(&processor, messages[start])
                start += 1
                continue
            }
            withFrames(messages[start..<end]) { processor.handle(batch: $0) }
            start = end
        }
    }

    @Test("batches give the events of one message at a time, with and without fetching ahead")
    func batches() throws {
        let scenarios = try ScenarioReplayer.scenarios()
        var messages = [[[UInt8]]]()
        for scenario in scenarios {
            messages += try (scenario["messages"] as! [[String: Any]]).map(ScenarioReplayer.frames)
        }
        // A refused topic and an oversized payload inside batches too.
        messages.insert([Array("no-key".utf8), Array(#"{"type":"begin","seq":1,"stroke":1}"#.utf8)], at: 3)
        messages.insert([Array(ShardKey.topic(for: "big").utf8), [UInt8](repeating: 32, count: 2_000_000)], at: 7)
        // Enough sessions for the fetching ahead (`SessionTable.prefetchFrom`), round-robin, each drawing a stroke
        // in three messages (cancelled, not recognized: a short test); some sessions close and open again.
        let sessions = SessionTable.prefetchFrom + 100
        let stroke = [
            #"{"type":"begin","seq":1,"stroke":1,"points":[[0,0,0],[10,10,1],[20,20,2]]}"#,
            #"{"type":"points","seq":2,"stroke":1,"points":[[30,10,3],[40,0,4],[50,-10,5]]}"#,
            #"{"type":"cancel","seq":3,"stroke":1}"#,
        ]
        var many = [[[UInt8]]]()
        for round in 0..<2 {
            for payload in stroke {
                for k in 0..<sessions { many.append([Array(ShardKey.topic(for: "m-\(k)").utf8), Array(payload.utf8)]) }
            }
            for k in stride(from: round, to: sessions, by: 7) {
                many.append([Array(ShardKey.topic(for: "m-\(k)").utf8), Array(#"{"type":"close","seq":4}"#.utf8)])
            }
        }
        for stream in [messages, many] {
            var single = Self.processor()
            for frames in stream { Self.feed(&single, frames) }
            var batched = Self.processor()
            // Sizes past `batchLimit` are handled in parts.
            Self.feedBatched(&batched, stream, sizes: [16, 1, 5, 40, 3])
            #expect(!single.sink.events.isEmpty)
            #expect(batched.sink.events.count == single.sink.events.count)
            #expect(batched.sink.events.map(\.topic) == single.sink.events.map(\.topic))
            #expect(batched.sink.events.map(\.payload) == single.sink.events.map(\.payload))
            #expect(batched.sessionCount == single.sessionCount)
        }
    }

    @Test("the counting sink's processor gives as many events as the collecting sink's")
    func countingSink() throws {
        var messages = [[[UInt8]]]()
        for scenario in try ScenarioReplayer.scenarios() {
            messages += try (scenario["messages"] as! [[String: Any]]).map(ScenarioReplayer.frames)
        }
        messages = messages.filter { $0.count == 2 }
        var collecting = Self.processor()
        for frames in messages { Self.feed(&collecting, frames) }
        var counting = SessionProcessor(
            sink: CountingSink(), configuration: WorkerConfiguration(), registry: Self.registry,
            metrics: WorkerMetrics())
        Self.withFrames(messages) { counting.handleCounting(batch: $0) }
        #expect(collecting.sink.events.count > 20)
        #expect(counting.sink.events == collecting.sink.events.count)
        #expect(counting.sessionCount == collecting.sessionCount)
    }

    @Test(
        "a known session under another shard key, or a new id with a control character, gets bad_topic",
        arguments: [false, true])
    func shardKeyOfKnownSession(batched: Bool) throws {
        let scenario = try ScenarioReplayer.scenarios()[0]
        let messages = try (scenario["messages"] as! [[String: Any]]).map(ScenarioReplayer.frames)
        var processor = Self.processor()
        let right = Array(ShardKey.topic(for: "known").utf8)
        let bucket = ShardKey.bucket(of: "known")
        let wrong = Array("\(ShardKey.key(ofBucket: (bucket + 1) % ShardKey.bucketCount))/known".utf8)
        let control = Array("\(ShardKey.key(ofBucket: bucket))/know\u{7}".utf8)
        var fed = [[[UInt8]]]()
        for (index, frames) in messages.enumerated() {
            fed.append([right, frames[1]])
            // After the session has begun: its id under a wrong key, and another id under its key.
            if index == 0 {
                fed.append([wrong, frames[1]])
                fed.append([control, frames[1]])
            }
        }
        if batched {
            Self.feedBatched(&processor, fed, sizes: [fed.count])
        } else {
            for frames in fed { Self.feed(&processor, frames) }
        }
        let events = Self.events(processor)
        let errors = events.filter { $0.topic == EventEncoder.systemTopic }.map { $0.payload["code"] as? String }
        #expect(errors == ["bad_topic", "bad_topic"])
        #expect(events.filter { $0.topic == "known" }.map { $0.payload["event"] as! String } == ["checkmark", "match"])
    }

    @Test("a stroke past the point limit ends without a match; other sessions are unaffected")
    func pointLimit() {
        var processor = Self.processor { $0.maxPointsPerStroke = 5 }
        let big = Array(ShardKey.topic(for: "big").utf8)
        let small = Array(ShardKey.topic(for: "small").utf8)
        let points = (0..<8).map { "[\($0),\($0 * $0),\($0)]" }.joined(separator: ",")
        Self.feed(&processor, [big, Array(#"{"type":"begin","seq":1,"stroke":1,"points":[\#(points)]}"#.utf8)])
        Self.feed(
            &processor, [small, Array(#"{"type":"begin","seq":1,"stroke":1,"points":[[0,0,0],[5,9,1],[9,2,2]]}"#.utf8)])
        Self.feed(&processor, [big, Array(#"{"type":"end","seq":2,"stroke":1}"#.utf8)])
        Self.feed(&processor, [small, Array(#"{"type":"end","seq":2,"stroke":1}"#.utf8)])
        let events = Self.events(processor)
        #expect(events.map { $0.payload["event"] as! String } == ["error", "nomatch", "match"])
        #expect(events[0].payload["code"] as? String == "too_many_points")
        #expect(events[1].payload["reason"] as? String == "too_many_points")
        #expect(events[2].topic == "small")
    }

    @Test("a checkmark and an overflow in the same message come out in point order")
    func checkmarkThenOverflow() {
        var processor = Self.processor { $0.maxPointsPerStroke = 30 }
        let topic = Array(ShardKey.topic(for: "c").utf8)
        // Down-right for 10 points, then up-right, at 100 Hz: the detector fires on the second leg, before point
        // 31 (and after the first 100 ms, `CheckmarkConfiguration.minimumDuration`).
        let down = (0...10).map { "[\($0 * 10),\($0 * 10),\($0 * 10)]" }
        let up = (1...40).map { "[\(100 + $0 * 10),\(100 - $0 * 12),\(100 + $0 * 10)]" }
        let points = (down + up).joined(separator: ",")
        Self.feed(&processor, [topic, Array(#"{"type":"begin","seq":1,"stroke":1,"points":[\#(points)]}"#.utf8)])
        let events = Self.events(processor)
        #expect(events.map { $0.payload["event"] as! String } == ["checkmark", "error"])
        #expect(events.last?.payload["code"] as? String == "too_many_points")
        #expect(events.map { $0.payload["eventSeq"] as? Int } == [1, 2])
        #expect((events.first?.payload["pointIndex"] as? Int ?? 99) < 30)
    }

    @Test("a check whose times are in seconds fires no checkmark, and is counted as such")
    func timesInSeconds() {
        var processor = Self.processor { _ in }
        for (name, scale) in [("ms", 10.0), ("s", 0.01)] {
            let topic = Array(ShardKey.topic(for: name).utf8)
            let down = (0...10).map { "[\($0 * 10),\($0 * 10),\(Double($0) * scale)]" }
            let up = (1...15).map { "[\(100 + $0 * 10),\(100 - $0 * 12),\(Double(10 + $0) * scale)]" }
            let points = (down + up).joined(separator: ",")
            Self.feed(&processor, [topic, Array(#"{"type":"begin","seq":1,"stroke":1,"points":[\#(points)]}"#.utf8)])
            Self.feed(&processor, [topic, Array(#"{"type":"end","seq":2,"stroke":1}"#.utf8)])
        }
        let events = Self.events(processor)
        func kinds(_ session: String) -> [String] {
            events.filter { $0.topic == session }.map { $0.payload["event"] as! String }
        }
        #expect(kinds("ms").first == "checkmark")
        #expect(!kinds("s").contains("checkmark") && kinds("s").count == 1)
        #expect(processor.metrics.timesInSeconds.load(ordering: .relaxed) == 1)
    }

    @Test(
        "with --checkmark off sessions start without the detector, and their own options turn it on",
        arguments: [true, false])
    func checkmarkByDefault(on: Bool) {
        var processor = Self.processor { $0.checkmarkByDefault = on }
        // Down-right, then up-right, at 100 Hz: a check, which the detector fires on while it is drawn.
        let down = (0...10).map { "[\($0 * 10),\($0 * 10),\($0 * 10)]" }
        let up = (1...15).map { "[\(100 + $0 * 10),\(100 - $0 * 12),\(100 + $0 * 10)]" }
        let points = (down + up).joined(separator: ",")
        let plain = Array(ShardKey.topic(for: "plain").utf8)
        let asked = Array(ShardKey.topic(for: "asked").utf8)
        Self.feed(&processor, [asked, Array(#"{"type":"options","seq":1,"checkmark":\#(!on)}"#.utf8)])
        for (topic, first) in [(plain, 1), (asked, 2)] {
            Self.feed(
                &processor,
                [topic, Array(#"{"type":"begin","seq":\#(first),"stroke":1,"points":[\#(points)]}"#.utf8)])
            Self.feed(&processor, [topic, Array(#"{"type":"end","seq":\#(first + 1),"stroke":1}"#.utf8)])
        }
        let events = Self.events(processor)
        func kinds(_ session: String) -> [String] {
            events.filter { $0.topic == session }.map { $0.payload["event"] as! String }
        }
        let result = kinds("plain").last ?? "none"
        #expect(["match", "nomatch"].contains(result))
        #expect(kinds("plain") == (on ? ["checkmark", result] : [result]))
        #expect(kinds("asked") == (on ? [result] : ["checkmark", result]))
    }

    @Test("session and open-stroke limits produce errors")
    func limits() {
        var processor = Self.processor {
            $0.maxSessions = 1
            $0.maxOpenStrokes = 1
        }
        let a = Array(ShardKey.topic(for: "a").utf8)
        let b = Array(ShardKey.topic(for: "b").utf8)
        Self.feed(&processor, [a, Array(#"{"type":"begin","seq":1,"stroke":1}"#.utf8)])
        Self.feed(&processor, [a, Array(#"{"type":"begin","seq":2,"stroke":2}"#.utf8)])
        Self.feed(&processor, [b, Array(#"{"type":"begin","seq":1,"stroke":1}"#.utf8)])
        let codes = Self.events(processor).map { $0.payload["code"] as? String }
        #expect(codes == ["too_many_strokes", "too_many_sessions"])
        #expect(processor.sessionCount == 1)
    }

    @Test("oversized messages are rejected")
    func oversized() {
        var processor = Self.processor { $0.maxMessageBytes = 64 }
        let topic = Array(ShardKey.topic(for: "a").utf8)
        Self.feed(&processor, [topic, Array(repeating: UInt8(ascii: " "), count: 100)])
        #expect(Self.events(processor).first?.payload["code"] as? String == "message_too_large")
    }

    @Test("idle sessions are evicted with a closed event")
    func eviction() {
        var processor = Self.processor { $0.idleTimeoutSeconds = 10 }
        let topic = Array(ShardKey.topic(for: "sleepy").utf8)
        Self.feed(&processor, [topic, Array(#"{"type":"begin","seq":1,"stroke":1}"#.utf8)])
        processor.now = 5
        processor.evictIdle()
        #expect(processor.sessionCount == 1)
        processor.now = 11
        processor.evictIdle()
        #expect(processor.sessionCount == 0)
        let event = Self.events(processor).last!.payload
        #expect(event["event"] as? String == "closed" && event["reason"] as? String == "idle")
        #expect(event["eventSeq"] as? Int == 1)
    }

    @Test("a producer that numbers from 1 again starts its session over, with a new session's options")
    func restart() throws {
        // The recorded check of the first scenario: 40 messages numbered 1 to 40, a checkmark at seq 34.
        let check = try ScenarioReplayer.scenarios()[0]["messages"] as! [[String: Any]]
        func renumbered(_ message: [String: Any], by offset: Int) -> [String: Any] {
            var message = message
            var json = message["json"] as! [String: Any]
            json["seq"] = json["seq"] as! Int + offset
            message["json"] = json
            return message
        }
        var processor = Self.processor()
        let options: [String: Any] = [
            "topic": "712/player-1", "json": ["type": "options", "seq": 1, "checkmark": false],
        ]
        Self.feed(&processor, try ScenarioReplayer.frames(options))
        // With the detector off, the check gets its match only.
        for message in check { Self.feed(&processor, try ScenarioReplayer.frames(renumbered(message, by: 1))) }
        // The producer restarts and sends the check again from seq 1: the default options apply again.
        for message in check { Self.feed(&processor, try ScenarioReplayer.frames(message)) }
        let events = Self.events(processor).map {
            ($0.payload["code"] as? String ?? $0.payload["event"] as! String, $0.payload["seq"] as? Int)
        }
        #expect(events.map(\.0) == ["match", "session_restart", "checkmark", "match"])
        #expect(events.map(\.1) == [41, 1, 33, 40])
    }

    @Test("a gap in a session's numbering says how many messages were lost, one in the singular")
    func gapMessages() {
        var processor = Self.processor()
        var alice = LearnedTemplatesTests.Producer("alice")
        alice.send(&processor, ["type": "options", "checkmark": false])
        alice.sequence += 1  // seq 2 never arrives
        alice.send(&processor, ["type": "options", "checkmark": true])
        alice.sequence += 2  // nor 4 and 5
        alice.send(&processor, ["type": "options", "checkmark": false])
        let messages = Self.events(processor).compactMap { $0.payload["message"] as? String }
        #expect(messages == ["expected seq 2, got 3: 1 message lost", "expected seq 4, got 6: 2 messages lost"])
    }

    @Test("orientation override per session")
    func orientationOverride() {
        var processor = Self.processor()
        let topic = Array(ShardKey.topic(for: "o").utf8)
        Self.feed(&processor, [topic, Array(#"{"type":"options","seq":1,"orientation":"invariant"}"#.utf8)])
        #expect(processor.sink.events.isEmpty)
    }
}
