import Foundation
import StrokeProtocol
import Testing
import ZeroMQ

@testable import StrokeWorker

@Suite("StrokeProducer: gestures of several strokes, and teaching a session again")
struct StrokeProducerReteachingTests {
    /// Reads `count` messages from `peer` (fewer if they stop coming), decoded, with whether each was binary.
    static func read(_ peer: ZMQSocket, count: Int) throws -> [(message: InputMessage, binary: Bool)] {
        var messages = [(message: InputMessage, binary: Bool)]()
        while messages.count < count, let frames = try peer.receiveMultipart(), frames.count == 2 {
            messages.append((try InputDecoder().decode(frames[1]), frames[1].first == BinaryCodec.magic))
        }
        return messages
    }

    /// A message as `kind seq stroke learn last`, `-` where there is no learn.
    static func line(_ message: InputMessage) -> String {
        "\(message.kind.name) \(message.sequence) \(message.stroke) \(message.learn ?? "-") \(message.last)"
    }

    static let a = Array(StrokeProducerTests.zigzag.prefix(3))
    static let b = Array(StrokeProducerTests.zigzag.suffix(2))

    @Test("a gesture's strokes go one after the other, its last end says last (binary); with learn, that end learns")
    func gesture() async throws {
        let lines = try await StrokeProducerTests.withPeer { producer, peer -> [String] in
            let ids = try producer.sendGesture([Self.a, Self.b], session: "g", batch: 2)
            try producer.sendGesture([Self.b, Self.a], session: "g", learn: "two")
            return [ids.map(String.init).joined(separator: ",")]
                + (try Self.read(peer, count: 12)).map { "\(Self.line($0.message)) \($0.binary)" }
        }
        #expect(
            lines == [
                "1,2",
                "begin 1 1 - false true", "points 2 1 - false true", "end 3 1 - false true",
                "begin 4 2 - false true", "points 5 2 - false true", "end 6 2 - true true",
                "begin 7 3 - false true", "points 8 3 - false true", "end 9 3 - false true",
                "begin 10 4 - false true", "points 11 4 - false true", "end 12 4 two false false",
            ])
    }

    @Test("a gesture of no strokes, or with a stroke of no points, is refused before anything is sent")
    func refusedGesture() async throws {
        let codes = try await StrokeProducerTests.withPeer { producer, peer -> [ProtocolError.Code] in
            var codes = [ProtocolError.Code]()
            for strokes in [[], [Self.a, []]] as [[[WirePoint]]] {
                do {
                    try producer.sendGesture(strokes, session: "g")
                } catch let error as ProtocolError {
                    codes.append(error.code)
                }
            }
            try producer.ping(session: "g")
            // The ping is the first message the peer gets: nothing went out before it.
            #expect(try Self.read(peer, count: 1).map { $0.message.kind } == [.ping])
            return codes
        }
        #expect(codes == [.invalidField, .invalidField])
    }

    @Test(
        "reteach sends the latest options, then each gesture taught and not forgotten, grouping on for several strokes")
    func reteach() async throws {
        let (count, messages) = try await StrokeProducerTests.withPeer { producer, peer in
            try producer.setOptions(
                SessionOptions(library: "default", checkmark: false, followTilt: false), session: "r")
            try producer.setOptions(SessionOptions(checkmark: true, gestures: .only(["zig", "two"])), session: "r")
            try producer.setOptions(SessionOptions(gestureScores: ["zig": 0.9]), session: "r")
            try producer.setOptions(SessionOptions(gestureScores: ["two": 0.8]), session: "r")
            try producer.sendStroke(Self.a, session: "r", learn: "zig")
            try producer.sendGesture([Self.a, Self.b], session: "r", learn: "two")
            try producer.sendStroke(Self.b, session: "r", learn: "gone")
            try producer.setOptions(SessionOptions(forget: "gone"), session: "r")
            // Another session's gesture is not this one's.
            try producer.sendStroke(Self.b, session: "other", learn: "theirs")
            #expect(try Self.read(peer, count: 20).count == 20)
            let count = try producer.reteach(session: "r", batch: 8)
            return (count, try Self.read(peer, count: 10).map(\.message))
        }
        #expect(count == 2)
        #expect(
            messages.map(Self.line) == [
                "options 18 0 - false",
                "begin 19 5 - false", "points 20 5 - false", "end 21 5 zig false",
                "begin 22 6 - false", "points 23 6 - false", "end 24 6 - false",
                "begin 25 7 - false", "points 26 7 - false", "end 27 7 two false",
            ])
        #expect(
            messages.first?.options
                == SessionOptions(
                    library: "default", checkmark: true, multistroke: 1000, gestures: .only(["zig", "two"]),
                    followTilt: false, gestureScores: ["two": 0.8]))
    }

    @Test("a tilt given is taught again; following turned off, or on again, drops it unless given with it")
    func rememberedTilt() {
        var remembered = StrokeProducer.Remembered()
        remembered.apply(SessionOptions(tilt: 30))
        remembered.apply(SessionOptions(checkmark: false, followTilt: true))
        #expect(remembered.options.tilt == 30)
        remembered.apply(SessionOptions(followTilt: false))
        #expect(remembered.options.tilt == nil && remembered.options.followTilt == false)
        remembered.apply(SessionOptions(tilt: 10))
        remembered.apply(SessionOptions(followTilt: true))
        #expect(remembered.options.tilt == nil)
        remembered.apply(SessionOptions(followTilt: true, tilt: -20))
        #expect(remembered.options.tilt == -20 && remembered.options.followTilt == true)
    }

    @Test("forget('*') leaves nothing to teach; after close, nothing is remembered; forget(session:) keeps it all")
    func forgetting() async throws {
        let counts = try await StrokeProducerTests.withPeer { producer, _ -> [Int] in
            try producer.sendStroke(Self.a, session: "f", learn: "one")
            try producer.sendStroke(Self.a, session: "f", learn: "two")
            producer.forget(session: "f")
            var counts = [try producer.reteach(session: "f")]
            try producer.setOptions(SessionOptions(forget: LearnedName.all), session: "f")
            counts.append(try producer.reteach(session: "f"))
            try producer.sendStroke(Self.a, session: "c", learn: "one")
            try producer.close(session: "c")
            counts.append(try producer.reteach(session: "c"))
            return counts
        }
        #expect(counts == [2, 0, 0])
    }
}
