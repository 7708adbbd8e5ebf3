import Foundation
import StrokeProtocol
import Testing

@testable import StrokeWorker

@Suite("Ping")
struct PingTests {
    typealias Processor = SessionProcessor<CollectingSink>

    static func send(_ processor: inout Processor, _ session: String, _ json: String) {
        SessionProcessorTests.feed(&processor, [Array(ShardKey.topic(for: session).utf8), Array(json.utf8)])
    }

    @Test("a ping for a session the worker does not hold is answered, and holds nothing after it")
    func unknownSession() throws {
        var processor = SessionProcessorTests.processor { $0.shard = (1, 2) }
        Self.send(&processor, "player-9", #"{"type":"ping","seq":12}"#)
        #expect(processor.sessionCount == 0)
        let events = SessionProcessorTests.events(processor)
        #expect(events.count == 1)
        #expect(events.first?.topic == "player-9")
        #expect(events.first?.payload["event"] as? String == "pong")
        #expect(events.first?.payload["shard"] as? String == "1/2")
        #expect(events.first?.payload["known"] as? Bool == false)
        #expect(events.first?.payload["seq"] as? Int == 12)
        #expect(processor.metrics.pings.load(ordering: .relaxed) == 1)
        #expect(processor.metrics.errorCounts.isEmpty)
        // The session's first message after the ping is a new session's: seq 1, no reset.
        Self.send(&processor, "player-9", #"{"type":"options","seq":1,"checkmark":false}"#)
        #expect(processor.sessionCount == 1)
        #expect(SessionProcessorTests.events(processor).count == 1)
    }

    @Test("a ping leaves a session's numbering and events alone, and keeps it from going idle")
    func knownSession() throws {
        var processor = SessionProcessorTests.processor { $0.idleTimeoutSeconds = 10 }
        processor.now = 100
        Self.send(&processor, "p", #"{"type":"begin","seq":1,"stroke":1,"points":[[0,0,0]]}"#)
        processor.now = 105
        Self.send(&processor, "p", #"{"type":"ping"}"#)
        // Numbered 2 after a ping, as it would be without it: no gap, no duplicate.
        Self.send(&processor, "p", #"{"type":"points","seq":2,"stroke":1,"points":[[0,0,1]]}"#)
        Self.send(&processor, "p", #"{"type":"ping","seq":2}"#)
        Self.send(&processor, "p", #"{"type":"close","seq":3}"#)
        let events = SessionProcessorTests.events(processor)
        #expect(events.map { $0.payload["event"] as? String } == ["pong", "pong", "closed"])
        #expect(events.map { $0.payload["eventSeq"] as? Int } == [0, 0, 1])
        #expect(events.map { $0.payload["known"] as? Bool } == [true, true, nil])
        #expect(processor.metrics.errorCounts.isEmpty)

        // A session pinged at 109 s is active then: held at 111 s, closed as idle only 10 s after the ping.
        var idle = SessionProcessorTests.processor { $0.idleTimeoutSeconds = 10 }
        idle.now = 100
        Self.send(&idle, "q", #"{"type":"options","seq":1,"checkmark":false}"#)
        idle.now = 109
        Self.send(&idle, "q", #"{"type":"ping"}"#)
        idle.now = 111
        idle.evictIdle()
        #expect(idle.sessionCount == 1)
        idle.now = 120
        idle.evictIdle()
        #expect(idle.sessionCount == 0)
        #expect(SessionProcessorTests.events(idle).map { $0.payload["event"] as? String } == ["pong", "closed"])
    }
}
