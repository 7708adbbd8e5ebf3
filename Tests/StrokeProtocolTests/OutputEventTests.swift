import Foundation
import Testing

@testable import StrokeProtocol

@Suite("Output events decoded for Swift consumers")
struct OutputEventTests {
    /// What the worker's encoder writes for session `player-1`, event 7, answering input 40, stroke 3.
    private func encoded(_ write: (EventEncoder.Context, inout JSONWriter) -> Void) -> [UInt8] {
        Array("player-1".utf8).withUnsafeBytes { session in
            var writer = JSONWriter()
            write(
                EventEncoder.Context(session: session, eventSequence: 7, sequence: 40, stroke: 3, pointer: 1), &writer)
            return writer.bytes
        }
    }

    @Test("a match reads back as the encoder wrote it: gesture, score, candidates, learned and the gesture's strokes")
    func match() throws {
        let payload = encoded { context, writer in
            EventEncoder.result(
                context, name: "fireball", score: 0.8479,
                candidates: [
                    .init(name: "fireball", score: 0.8479, learned: true, rotation: -92.46),
                    .init(name: "circle", score: 0.71, rotation: 12),
                ],
                points: 40, library: "default", strokes: [2, 3],
                bounds: StrokeBounds(minX: -3.25, minY: 0.123456, maxX: 120, maxY: 7), into: &writer)
        }
        #expect(String(decoding: payload, as: UTF8.self).hasSuffix(#","bounds":[-3.25,0.1235,120,7]}"#))
        let event = try OutputEvent(decoding: payload)
        #expect(event.kind == .match)
        #expect(event.session == "player-1" && event.eventSeq == 7 && event.seq == 40)
        #expect(event.stroke == 3 && event.pointer == 1)
        #expect(event.name == "fireball" && event.score == 0.8479 && event.learned && !event.backward)
        #expect(event.rotation == -92.5, "the match's turn, to a tenth of a degree")
        #expect(String(decoding: payload, as: UTF8.self).components(separatedBy: "rotation").count == 2, "match only")
        #expect(
            event.candidates == [
                .init(name: "fireball", score: 0.8479, learned: true), .init(name: "circle", score: 0.71),
            ])
        #expect(event.points == 40 && event.library == "default" && event.strokes == [2, 3])
        #expect(event.bounds == StrokeBounds(minX: -3.25, minY: 0.1235, maxX: 120, maxY: 7))
        #expect(event.bounds?.center == SIMD2(58.375, 3.56175) && event.bounds?.size == SIMD2(123.25, 6.8765))
    }

    @Test("a stroke's bounds: the least and greatest x and y of its points; none for no points")
    func bounds() {
        let points: [SIMD2<Double>] = [SIMD2(3, 4), SIMD2(-1, 9), SIMD2(5, -2), SIMD2(0, 0)]
        #expect(
            points.withUnsafeBufferPointer { StrokeBounds(of: $0) }
                == StrokeBounds(minX: -1, minY: -2, maxX: 5, maxY: 9))
        #expect([SIMD2<Double>]().withUnsafeBufferPointer { StrokeBounds(of: $0) } == nil)
        // Widened a point at a time, the box is the one of all the points; a NaN widens nothing.
        var grown = StrokeBounds(minX: 3, minY: 4, maxX: 3, maxY: 4)
        for point in points.dropFirst() + [SIMD2(.nan, .nan)] { grown.include(point) }
        #expect(grown == StrokeBounds(minX: -1, minY: -2, maxX: 5, maxY: 9))
    }

    @Test("bounds of other than four numbers are refused, naming the field")
    func badBounds() {
        let text = #"{"v":1,"event":"match","session":"s","eventSeq":1,"seq":2,"bounds":[1,2,3]}"#
        #expect(throws: ProtocolError.self) { try OutputEvent(decoding: Array(text.utf8)) }
        do {
            _ = try OutputEvent(decoding: Array(text.utf8))
        } catch {
            #expect(error.code == .invalidField && error.message.hasPrefix("bounds: 3 numbers"))
        }
    }

    @Test("a nomatch names its reason and the gesture outside the choice")
    func nomatch() throws {
        let payload = encoded { context, writer in
            EventEncoder.result(
                context, name: nil, score: nil, candidates: [.init(name: "ice", score: 0.52)], points: 12,
                library: "spells", reason: "not_chosen", unchosen: .init(name: "fire", score: 0.81, backward: true),
                into: &writer)
        }
        let event = try OutputEvent(decoding: payload)
        #expect(event.kind == .nomatch && event.name == nil && event.score == nil)
        #expect(event.reason == "not_chosen")
        #expect(event.unchosen == .init(name: "fire", score: 0.81, backward: true))
        #expect(event.candidates.map(\.name) == ["ice"] && event.library == "spells")
    }

    @Test("checkmark, learned, error, closed and pong events carry their own fields")
    func otherKinds() throws {
        let checkmark = try OutputEvent(
            decoding: encoded { EventEncoder.checkmark($0, pointIndex: 32, time: 11_582.5, into: &$1) })
        #expect(checkmark.kind == .checkmark && checkmark.pointIndex == 32 && checkmark.time == 11_582.5)
        let learned = try OutputEvent(
            decoding: encoded { EventEncoder.learned($0, name: "bolt", templates: 2, points: 55, into: &$1) })
        #expect(learned.kind == .learned && learned.name == "bolt" && learned.templates == 2 && learned.points == 55)
        #expect(learned.nearest == nil)
        let near = try OutputEvent(
            decoding: encoded {
                EventEncoder.learned(
                    $0, name: "zap", templates: 3, points: 40,
                    nearest: .init(name: "bolt", score: 0.9123, learned: true), into: &$1)
            })
        #expect(near.nearest?.name == "bolt" && near.nearest?.score == 0.9123 && near.nearest?.learned == true)
        let reset = try OutputEvent(
            decoding: encoded {
                EventEncoder.error($0, code: "session_reset", message: "restored", restored: true, into: &$1)
            })
        #expect(reset.kind == .error && reset.code == "session_reset" && reset.message == "restored" && reset.restored)
        let closed = try OutputEvent(decoding: encoded { EventEncoder.closed($0, reason: "idle", into: &$1) })
        #expect(closed.kind == .closed && closed.reason == "idle" && closed.tilt == nil)
        let tilted = try OutputEvent(
            decoding: encoded { EventEncoder.closed($0, reason: "closed", tilt: -38, into: &$1) })
        #expect(tilted.kind == .closed && tilted.reason == "closed" && tilted.tilt == -38)
        let pong = try OutputEvent(decoding: encoded { EventEncoder.pong($0, shard: "1/3", known: true, into: &$1) })
        #expect(pong.kind == .pong && pong.shard == "1/3" && pong.known == true)
    }

    @Test("a producer teaches again after closed, session_restart and a session_reset not restored, and no other")
    func needsReteach() throws {
        func error(_ code: String, restored: Bool = false) throws -> OutputEvent {
            try OutputEvent(
                decoding: encoded { EventEncoder.error($0, code: code, message: "m", restored: restored, into: &$1) })
        }
        let closed = try ["idle", "closed"].map { reason in
            try OutputEvent(decoding: encoded { EventEncoder.closed($0, reason: reason, into: &$1) })
        }
        #expect(closed.map(\.needsReteach) == [true, true])
        #expect(try error("session_restart").needsReteach && error("session_reset").needsReteach)
        #expect(try !error("session_reset", restored: true).needsReteach)
        #expect(try !error("sequence_gap").needsReteach && !error("too_many_templates").needsReteach)
        let learned = try OutputEvent(
            decoding: encoded { EventEncoder.learned($0, name: "bolt", templates: 2, points: 55, into: &$1) })
        #expect(!learned.needsReteach)
    }

    @Test("damaged events, cut short or with a byte changed anywhere, decode or are refused: never a crash")
    func damaged() throws {
        let events = [
            encoded { context, writer in
                EventEncoder.result(
                    context, name: "fireball", score: 0.8479,
                    candidates: [.init(name: "fireball", score: 0.8479, learned: true), .init(name: "v", score: 0.7)],
                    points: 40, library: "default", strokes: [2, 3],
                    bounds: StrokeBounds(minX: -3.25, minY: 0.5, maxX: 120, maxY: 7), into: &writer)
            },
            encoded {
                EventEncoder.error($0, code: "session_reset", message: "a \"quoted\" word", restored: true, into: &$1)
            },
            Array(#"{"v":1,"event":"stats","session":null,"shard":"0/2","counters":{"sessions":12,"pings":3}}"#.utf8),
        ]
        var (decoded, refused) = (0, 0)
        for payload in events {
            #expect(throws: Never.self) { try OutputEvent(decoding: payload) }
            // Every strict prefix is an unfinished object.
            for length in 0..<payload.count {
                #expect(throws: ProtocolError.self) { try OutputEvent(decoding: Array(payload.prefix(length))) }
            }
            for index in payload.indices {
                for byte: UInt8 in [0x00, 0x22, 0x2C, 0x2D, 0x30, 0x39, 0x5B, 0x5D, 0x7B, 0x7D, 0x80, 0xFF] {
                    var damaged = payload
                    damaged[index] = byte
                    do {
                        _ = try OutputEvent(decoding: damaged)
                        decoded += 1
                    } catch {
                        refused += 1
                    }
                }
            }
        }
        // Both outcomes occur: a changed digit still decodes, a changed brace does not.
        #expect(decoded > 0 && refused > 0)
    }

    @Test("a stats event of the system topic: no session, the shard and its counters")
    func stats() throws {
        let text = #"{"v":1,"event":"stats","session":null,"shard":"0/2","counters":{"sessions":12,"pings":3}}"#
        let event = try OutputEvent(decoding: Array(text.utf8))
        #expect(event.kind == .stats && event.session == nil && event.seq == nil && event.eventSeq == 0)
        #expect(event.shard == "0/2" && event.counters == ["sessions": 12, "pings": 3])
    }

    @Test("keys and kinds a later worker may add are kept or skipped, not refused")
    func laterVersions() throws {
        let text = #"{"v":1,"event":"wave","session":"s","eventSeq":1,"seq":2,"speed":{"x":[1,2]},"name":"w"}"#
        let event = try OutputEvent(decoding: Array(text.utf8))
        #expect(event.kind == OutputEvent.Kind(rawValue: "wave") && event.name == "w" && event.seq == 2)
    }

    @Test("what is not an event of protocol v1 is refused with what was wrong")
    func refused() {
        let cases: [(String, ProtocolError.Code, String)] = [
            (#"{"event":"match"}"#, .unsupportedVersion, "missing"),
            (#"{"v":2,"event":"match"}"#, .unsupportedVersion, "v: 2"),
            (#"{"v":1}"#, .invalidField, "event"),
            (#"{"v":1,"event":"match""#, .malformedJSON, ""),
            (#"{"v":1,"event":"match","candidates":[{"name":"x"}]}"#, .malformedJSON, "a candidate"),
            (#"{"v":1,"event":"match","eventSeq":"7"}"#, .malformedJSON, ""),
            ("[]", .malformedJSON, ""),
        ]
        for (text, code, words) in cases {
            do {
                _ = try OutputEvent(decoding: Array(text.utf8))
                Issue.record("accepted \(text)")
            } catch {
                #expect(error.code == code, "\(text): \(error)")
                #expect(words.isEmpty || error.message.contains(words), "\(text): \(error)")
            }
        }
    }
}
