import Foundation
import StrokeProtocol
import Testing

@testable import StrokeWorker

// MARK: - Refused messages and the numbering

extension SessionProcessorTests {
    /// Each event as its code (or kind) and the `seq` it answers.
    static func answers(_ processor: SessionProcessor<CollectingSink>) -> [String] {
        events(processor).map { event in
            let kind = event.payload["code"] as? String ?? event.payload["event"] as! String
            let seq = (event.payload["seq"] as? Int).map(String.init) ?? "null"
            return "\(kind) \(seq)"
        }
    }

    /// A binary `points` message's header with unknown flags: refused, its `seq` readable.
    static func badFlags(seq: UInt32) -> [UInt8] {
        [BinaryCodec.magic, 1, 2, 4] + withUnsafeBytes(of: seq.littleEndian, Array.init)
            + [UInt8](repeating: 0, count: 8)
    }

    @Test("a refused message whose seq can be read takes its number in a session the worker holds")
    func refusedNumbering() {
        var processor = Self.processor { $0.checkmarkByDefault = false }
        Self.feed(
            &processor, session: "a",
            [
                #"{"type":"begin","seq":1,"stroke":1,"points":[[0,0,0],[50,50,10],[100,0,20]]}"#,
                #"{"type":"points","seq":2,"stroke":1,"points":[[1e999,2,3]]}"#,
                #"{"type":"points","seq":3,"stroke":1,"points":[[100,-50,30]]}"#,
                #"{"type":"options","seq":3,"checkmark":"yes"}"#,
                #"{"type":"jump","seq":4}"#,
                #"{"type":"points","seq":"5","stroke":1,"points":[[1,2,3]]}"#,
                #"{"type":"ping","seq":5,"learn":"zed"}"#,
            ].map { Array($0.utf8) } + [Self.badFlags(seq: 5)]
                + [
                    #"{"type":"end","seq":6,"stroke":1}"#, #"{"v":2,"type":"close","seq":7}"#,
                    #"{"type":"close","seq":7}"#,
                ]
                .map { Array($0.utf8) })
        let answers = Self.answers(processor)
        #expect(answers.count == 9)
        #expect(
            answers.filter { !$0.hasPrefix("match") && !$0.hasPrefix("nomatch") } == [
                "non_finite 2", "sequence_duplicate 3", "unknown_type 4", "invalid_field null", "invalid_field null",
                "malformed_binary 5", "unsupported_version null", "closed 7",
            ])
        #expect(answers.contains("match 6") || answers.contains("nomatch 6"))
        #expect(Self.events(processor).map { $0.payload["eventSeq"] as? Int } == Array(1...9))
        #expect(processor.metrics.inputGaps.load(ordering: .relaxed) == 0)
    }

    @Test("a refused message numbered 1 starts its session over; one past a gap reports the gap")
    func refusedRestartAndGap() {
        var processor = Self.processor()
        Self.feed(
            &processor, session: "a",
            [
                #"{"type":"begin","seq":1,"stroke":1}"#, #"{"type":"points","seq":2,"stroke":1,"points":[[1,2,3]]}"#,
                #"{"type":"begin","seq":1,"stroke":"one"}"#,
                #"{"type":"points","seq":2,"stroke":1,"points":[[1,2,3]]}"#,
                #"{"type":"begin","seq":5,"stroke":1,"pointer":-1}"#, #"{"type":"begin","seq":6,"stroke":1}"#,
            ].map { Array($0.utf8) })
        #expect(
            Self.answers(processor) == [
                "session_restart 1", "invalid_field 1", "unknown_stroke 2", "sequence_gap 5", "invalid_field 5",
            ])
        #expect(processor.metrics.inputGaps.load(ordering: .relaxed) == 2)
    }

    @Test("a refused message of a session with no state creates none, and says its seq")
    func refusedWithoutState() {
        var processor = Self.processor()
        Self.feed(
            &processor, session: "b",
            [#"{"type":"begin","seq":1,"stroke":"x"}"#, #"{"type":"begin","seq":2,"stroke":1}"#].map { Array($0.utf8) })
        #expect(Self.answers(processor) == ["invalid_field 1", "session_reset 2"])
        #expect(Self.events(processor).map { $0.payload["eventSeq"] as? Int } == [0, 1])
        #expect(processor.sessionCount == 1)
    }

    @Test("a message over the size limit: a binary one's seq is read from its header, a JSON one's is not")
    func refusedTooLarge() {
        var processor = Self.processor { $0.maxMessageBytes = 64 }
        let large =
            Array(#"{"type":"points","seq":3,"stroke":1,"points":[[1,2,3]]}"#.utf8) + Array(repeating: 32, count: 64)
        Self.feed(
            &processor, session: "a",
            [
                Array(#"{"type":"begin","seq":1,"stroke":1}"#.utf8),
                Self.badFlags(seq: 2) + Array(repeating: 0, count: 64),
                Array(#"{"type":"points","seq":3,"stroke":1,"points":[[1,2,3]]}"#.utf8), large,
                Array(#"{"type":"points","seq":4,"stroke":1,"points":[[1,2,3]]}"#.utf8),
            ])
        #expect(Self.answers(processor) == ["message_too_large 2", "message_too_large null"])
    }
}
