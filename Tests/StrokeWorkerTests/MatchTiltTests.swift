import Foundation
import StrokeProtocol
import StrokeRecognition
import Testing

@testable import StrokeWorker

/// Matching a tilted player's strokes turned back (`--match-follow-tilt`): once a session's matches show its tilt,
/// the library's templates see its next strokes turned back upright by it; its learned templates see them as drawn.
@Suite("Session processor: matching a tilted player's strokes")
struct MatchTiltTests {
    typealias Producer = LearnedTemplatesTests.Producer

    /// A producer of `session` whose detector is off and whose three shapes tilted by `tilt` have been matched:
    /// their rotations give the session its estimate.
    static func tiltedSession(
        _ processor: inout SessionProcessor<CollectingSink>, _ session: String, tilt: Double
    ) -> Producer {
        var producer = Producer(session)
        producer.send(&processor, ["type": "options", "checkmark": false])
        for (shape, index) in [("arrow", 0), ("left_curly_brace", 2), ("arrow", 1)] {
            producer.draw(&processor, TiltFollowingTests.stroke(shape, index: index, turnedBy: tilt))
        }
        return producer
    }

    /// Such a session's next stroke, `gesture`'s `index`-th recorded one tilted alike: its result event.
    static func tiltedStroke(
        _ processor: inout SessionProcessor<CollectingSink>, _ session: String, tilt: Double, gesture: String,
        index: Int
    ) throws -> [String: Any] {
        var producer = tiltedSession(&processor, session, tilt: tilt)
        producer.draw(&processor, TiltFollowingTests.stroke(gesture, index: index, turnedBy: tilt))
        return try #require(MinimumSizeTests.events(processor, session).last)
    }

    /// The strokes: as drawn, each tilted by 45° either way, the built-in library misses them.
    static let cases: [(tilt: Double, gesture: String, index: Int)] = [
        (45, "left_sq_bracket", 0), (45, "question_mark", 1), (-45, "right_sq_bracket", 0),
        (-45, "left_curly_brace", 0),
    ]

    @Test("the premise: in a fresh session, each stroke tilted by 45° is not matched with its gesture")
    func premise() {
        #expect(!TiltFollowingTests.logs.isEmpty)
        for (tilt, gesture, index) in Self.cases {
            var processor = SessionProcessorTests.processor()
            var fresh = Producer("fresh")
            fresh.draw(&processor, TiltFollowingTests.stroke(gesture, index: index, turnedBy: tilt))
            let event = MinimumSizeTests.events(processor, "fresh").last
            #expect(event?["name"] as? String != gesture, "\(gesture) tilted by \(tilt)")
        }
    }

    @Test("after three matches of a tilted hand, the stroke is matched with its gesture, its rotation as drawn")
    func followed() throws {
        for (tilt, gesture, index) in Self.cases {
            var processor = SessionProcessorTests.processor()
            let event = try Self.tiltedStroke(&processor, "tilted", tilt: tilt, gesture: gesture, index: index)
            #expect(event["event"] as? String == "match" && event["name"] as? String == gesture, "\(event)")
            // The turn from the template, as the stroke was drawn: past the library's 30° bound.
            let rotation = try #require(event["rotation"] as? Double)
            #expect(abs(rotation - tilt) <= 15, "\(gesture) tilted by \(tilt): rotation \(rotation)")
            processor.applyTiltFeedback()
            #expect(try #require(processor.tilt(ofSession: "tilted")).correction != 0)
            // The third shape, drawn after two matches, and the stroke were matched turned.
            #expect(processor.metrics.strokesMatchedTurned.load(ordering: .relaxed) == 2)
        }
        var upright = SessionProcessorTests.processor()
        _ = try Self.tiltedStroke(&upright, "upright", tilt: 0, gesture: "left_sq_bracket", index: 0)
        #expect(upright.metrics.strokesMatchedTurned.load(ordering: .relaxed) == 0)
    }

    @Test("strokes of a tilted hand sent in one batch are matched as they are one message at a time")
    func inOneBatch() throws {
        // Found by the processor's fuzz target (`make fuzz-coverage`): a match's tilt was taken in before the next
        // message, but in a batch only before the next batch, so that a stroke ending in the same batch as the
        // matches before it was matched as drawn.
        for (tilt, gesture, index) in Self.cases {
            var messages = [[[UInt8]]]()
            var sequence = 0
            func send(_ fields: [String: Any]) throws {
                sequence += 1
                var object = fields
                object["seq"] = sequence
                messages.append([
                    Array(ShardKey.topic(for: "tilted").utf8),
                    Array(try JSONSerialization.data(withJSONObject: object)),
                ])
            }
            try send(["type": "options", "checkmark": false])
            let shapes = [("arrow", 0), ("left_curly_brace", 2), ("arrow", 1), (gesture, index)]
            for (stroke, (shape, shapeIndex)) in shapes.enumerated() {
                let points = TiltFollowingTests.stroke(shape, index: shapeIndex, turnedBy: tilt)
                try send(["type": "begin", "stroke": stroke + 1, "points": points])
                try send(["type": "end", "stroke": stroke + 1])
            }
            var single = SessionProcessorTests.processor()
            for message in messages { SessionProcessorTests.feed(&single, message) }
            var batched = SessionProcessorTests.processor()
            SessionProcessorTests.feedBatched(&batched, messages, sizes: [16])
            #expect(batched.sink.events.map(\.payload) == single.sink.events.map(\.payload), "\(gesture)")
            let last = try #require(MinimumSizeTests.events(batched, "tilted").last)
            #expect(last["name"] as? String == gesture, "\(gesture) tilted by \(tilt): \(last)")
        }
    }

    @Test("with --match-follow-tilt off, the same session's stroke is matched as drawn")
    func notFollowed() throws {
        for (tilt, gesture, index) in Self.cases {
            var processor = SessionProcessorTests.processor { $0.matchFollowsTilt = false }
            let event = try Self.tiltedStroke(&processor, "tilted", tilt: tilt, gesture: gesture, index: index)
            #expect(event["name"] as? String != gesture, "\(gesture) tilted by \(tilt)")
            #expect(processor.metrics.strokesMatchedTurned.load(ordering: .relaxed) == 0)
        }
    }

    @Test("a tilted session that groups strokes has a gesture of two strokes matched turned back, as drawn at first")
    func groupedGesture() throws {
        let (tilt, gesture, index) = Self.cases[0]
        let whole = TiltFollowingTests.stroke(gesture, index: index, turnedBy: tilt)
        // The stroke in two pieces, in the order and directions drawn, sharing the point where the pen was lifted.
        let pieces = [Array(whole[...(whole.count / 2)]), Array(whole[(whole.count / 2)...])]
        var processor = SessionProcessorTests.processor()
        var producer = Producer("grouped")
        producer.send(&processor, ["type": "options", "checkmark": false, "multistroke": 500])
        func drawGesture(_ strokes: [[[Double]]]) throws -> [String: Any] {
            for (number, stroke) in strokes.enumerated() {
                MultistrokeGestureTests.draw(
                    &producer, &processor, stroke, number == strokes.count - 1 ? ["last": true] : [:])
            }
            return try #require(MinimumSizeTests.events(processor, "grouped").last)
        }
        let fresh = try drawGesture(pieces)
        #expect(fresh["name"] as? String != gesture, "the premise, before the session's tilt is known: \(fresh)")
        // Gestures of one stroke tell the hand's tilt, as in `tiltedSession`.
        for (shape, index) in [("arrow", 0), ("left_curly_brace", 2), ("arrow", 1)] {
            _ = try drawGesture([TiltFollowingTests.stroke(shape, index: index, turnedBy: tilt)])
            processor.applyTiltFeedback()
        }
        #expect(try #require(processor.tilt(ofSession: "grouped")).correction != 0)
        let turned = processor.metrics.strokesMatchedTurned.load(ordering: .relaxed)
        let event = try drawGesture(pieces)
        #expect(event["event"] as? String == "match" && event["name"] as? String == gesture, "\(event)")
        #expect((event["strokes"] as? [Int])?.count == 2, "\(event)")
        let rotation = try #require(event["rotation"] as? Double)
        #expect(abs(rotation - tilt) <= 15, "rotation \(rotation)")
        #expect(processor.metrics.strokesMatchedTurned.load(ordering: .relaxed) == turned + 1)
    }

    @Test("a session given its player's tilt (options tilt) is followed from its first stroke; closed reports it")
    func givenTilt() throws {
        for (tilt, gesture, index) in Self.cases {
            var processor = SessionProcessorTests.processor()
            var producer = Producer("given")
            producer.send(&processor, ["type": "options", "checkmark": false, "tilt": Int(tilt)])
            #expect(try #require(processor.tilt(ofSession: "given")) == TiltEstimate(degrees: Int8(tilt), samples: 3))
            producer.draw(&processor, TiltFollowingTests.stroke(gesture, index: index, turnedBy: tilt))
            let event = try #require(MinimumSizeTests.events(processor, "given").last)
            #expect(event["name"] as? String == gesture, "\(gesture) tilted by \(tilt): \(event)")
            processor.applyTiltFeedback()
            producer.send(&processor, ["type": "close"])
            let closed = try #require(MinimumSizeTests.events(processor, "given").last)
            #expect(closed["event"] as? String == "closed")
            let reported = try #require(closed["tilt"] as? Int, "\(closed)")
            #expect(abs(Double(reported) - tilt) <= 10, "\(closed)")
        }
        // Not following its tilt, a session takes none; nor does one that has shown none report one.
        var processor = SessionProcessorTests.processor()
        var producer = Producer("upright")
        producer.send(&processor, ["type": "options", "followTilt": false, "tilt": 30])
        #expect(try #require(processor.tilt(ofSession: "upright")).samples == 0)
        producer.send(&processor, ["type": "options", "followTilt": true])
        producer.send(&processor, ["type": "close"])
        let closed = try #require(MinimumSizeTests.events(processor, "upright").last)
        #expect(closed["event"] as? String == "closed" && closed["tilt"] == nil, "\(closed)")
    }

    @Test("a session that turns following off (followTilt false) has its strokes matched as drawn")
    func optionOff() throws {
        var processor = SessionProcessorTests.processor()
        var producer = Self.tiltedSession(&processor, "s", tilt: 45)
        producer.send(&processor, ["type": "options", "followTilt": false])
        producer.draw(&processor, TiltFollowingTests.stroke("left_sq_bracket", index: 0, turnedBy: 45))
        let event = try #require(MinimumSizeTests.events(processor, "s").last)
        #expect(event["name"] as? String != "left_sq_bracket", "\(event)")
    }

    @Test("a gesture the tilted session learned is matched as drawn, by the same hand: its rotation stays near 0")
    func learnedAsDrawn() throws {
        var processor = SessionProcessorTests.processor()
        var producer = Self.tiltedSession(&processor, "s", tilt: 40)
        producer.draw(&processor, TiltFollowingTests.stroke("pigtail", index: 0, turnedBy: 40), learn: "loop")
        producer.send(&processor, ["type": "options", "gestures": ["loop"]])
        producer.draw(&processor, TiltFollowingTests.stroke("pigtail", index: 1, turnedBy: 40))
        processor.applyTiltFeedback()
        #expect(try #require(processor.tilt(ofSession: "s")).correction <= -20)
        let event = try #require(MinimumSizeTests.events(processor, "s").last)
        #expect(event["name"] as? String == "loop" && event["learned"] as? Bool == true, "\(event)")
        let rotation = try #require(event["rotation"] as? Double)
        #expect(abs(rotation) <= 15, "rotation \(rotation)")
    }

    @Test("a tilted session's stroke of huge coordinates, which the turn takes past Double's range, is answered")
    func hugeCoordinates() throws {
        var processor = SessionProcessorTests.processor()
        var producer = Self.tiltedSession(&processor, "s", tilt: 40)
        // Finite as sent; turned by the estimate, x·cos − y·sin overflows to infinity.
        producer.draw(&processor, [[1.7e308, -1.7e308, 0], [-1.7e308, 1.7e308, 10], [1.7e308, 1.7e308, 20]])
        producer.draw(&processor, TiltFollowingTests.stroke("left_sq_bracket", index: 0, turnedBy: 40))
        let events = MinimumSizeTests.events(processor, "s").suffix(2)
        #expect(events.count == 2)
        #expect(events.first?["event"] as? String == "nomatch", "\(events)")
        #expect(events.last?["name"] as? String == "left_sq_bracket", "the session goes on: \(events)")
    }

    @Test("a recognizer that matches any rotation ignores a request's turn: the same event, rotation and all")
    func invariantIgnoresTurn() throws {
        let registry = SessionProcessorTests.registry
        let points = TiltFollowingTests.stroke("arrow", index: 0, turnedBy: 45).map { SIMD2($0[0], $0[1]) }
        let payloads = [Int8(-45), 0].map { turn in
            "s".utf8.withContiguousStorageIfAvailable { id in
                points.withUnsafeBufferPointer { points in
                    var writer = JSONWriter()
                    RecognitionRequest(
                        context: .init(session: UnsafeRawBufferPointer(id), eventSequence: 1, sequence: 1, stroke: 1),
                        recognizer: registry.entries[0].recognizer(invariant: true), library: registry.entries[0].name,
                        slot: .init(library: 0, invariant: true), points: points, turn: turn
                    ).encode(into: &writer)
                    return String(decoding: writer.bytes, as: UTF8.self)
                }
            }
        }
        #expect(payloads[0] != nil && payloads[0] == payloads[1], "\(payloads)")
        #expect(payloads[0]?.contains(#""name":"arrow""#) == true, "\(payloads)")
    }

    @Test("a request recognized off the lane, from a batch, keeps its turn")
    func fromBatch() throws {
        let registry = SessionProcessorTests.registry
        let points = TiltFollowingTests.stroke("left_sq_bracket", index: 0, turnedBy: 45).map { SIMD2($0[0], $0[1]) }
        var direct = [String: String]()
        var batch = EventPipe.Batch()
        for (session, turn) in [("turned", Int8(-45)), ("as-drawn", 0)] {
            Array(session.utf8).withUnsafeBytes { id in
                points.withUnsafeBufferPointer { points in
                    let request = RecognitionRequest(
                        context: .init(session: id, eventSequence: 1, sequence: 1, stroke: 1),
                        recognizer: registry.entries[0].recognizer(invariant: nil), library: registry.entries[0].name,
                        slot: .init(library: 0, invariant: nil), points: points, turn: turn)
                    var writer = JSONWriter()
                    request.encode(into: &writer)
                    direct[session] = String(decoding: writer.bytes, as: UTF8.self)
                    batch.append(request)
                }
            }
        }
        var writer = JSONWriter()
        var tiltSamples: [TiltFeedback.Sample] = []
        var fromBatch = [String: String]()
        batch.forEachEvent(
            encodingRequestsWith: &writer, registry: registry, metrics: WorkerMetrics(), tiltSamples: &tiltSamples
        ) {
            topic, payload in
            fromBatch[String(decoding: topic, as: UTF8.self)] = String(decoding: payload, as: UTF8.self)
        }
        #expect(fromBatch == direct)
        let turned = try #require(direct["turned"])
        #expect(turned.contains(#""name":"left_sq_bracket""#), "\(turned)")
        #expect(direct["turned"] != direct["as-drawn"])
    }
}
