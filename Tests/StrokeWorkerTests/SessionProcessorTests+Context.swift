import Foundation
import StrokeProtocol
import Testing

@testable import StrokeWorker

// MARK: - What events answer

extension SessionProcessorTests {
    /// Feeds each payload to session `session`.
    static func feed(_ processor: inout SessionProcessor<CollectingSink>, session: String, _ payloads: [[UInt8]]) {
        let topic = Array(ShardKey.topic(for: session).utf8)
        for payload in payloads { feed(&processor, [topic, payload]) }
    }

    @Test("an error about an options message names no stroke, though stroke 0 is open")
    func optionsErrorNamesNoStroke() {
        var processor = Self.processor()
        Self.feed(
            &processor, session: "a",
            [#"{"type":"begin","seq":1,"stroke":0}"#, #"{"type":"options","seq":2,"library":"nope"}"#].map {
                Array($0.utf8)
            })
        let events = Self.events(processor)
        #expect(events.map { $0.payload["code"] as? String } == ["unknown_library"])
        #expect(events.first?.payload["stroke"] == nil && events.first?.payload["pointer"] == nil)
    }

    @Test("an idle session's closed event answers no message, whatever another session sent last")
    func idleClosedAnswersNoMessage() {
        var processor = Self.processor { $0.idleTimeoutSeconds = 10 }
        Self.feed(&processor, session: "sleepy", [Array(#"{"type":"begin","seq":1,"stroke":1}"#.utf8)])
        processor.now = 8
        Self.feed(
            &processor, session: "busy",
            (1...9).map { Array(#"{"type":"options","seq":\#($0),"checkmark":false}"#.utf8) })
        processor.now = 11
        processor.evictIdle()
        let closed = Self.events(processor).filter { $0.payload["event"] as? String == "closed" }
        #expect(closed.map(\.topic) == ["sleepy"])
        #expect(closed.first?.payload["seq"] is NSNull)
    }
}
