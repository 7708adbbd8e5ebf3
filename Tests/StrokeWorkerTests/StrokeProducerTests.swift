import Foundation
import StrokeProtocol
import Testing
import ZeroMQ

@testable import StrokeWorker

@Suite("StrokeProducer")
struct StrokeProducerTests {
    /// The recorded check of the scenario vectors, as points.
    static func checkPoints() throws -> [WirePoint] {
        let scenario = try ScenarioReplayer.scenarios()[0]
        return (scenario["messages"] as! [[String: Any]]).flatMap { message in
            ((message["json"] as! [String: Any])["points"] as? [[Double]] ?? []).map {
                WirePoint(x: $0[0], y: $0[1], t: $0[2])
            }
        }
    }

    /// A zig-zag of four legs, 40 points 10 ms apart.
    static let zigzag: [WirePoint] = (0..<40).map { index in
        let x = Double(index) * 5
        let leg = index / 10
        let along = Double(index % 10) * 5
        return WirePoint(x: x, y: leg % 2 == 0 ? along : 50 - along, t: Double(index) * 10)
    }

    /// A producer bound on an inproc endpoint and a SUB socket connected to it that subscribes to everything, on
    /// one thread: `body` gets both. (The SUB connects, so that its subscription goes out while it connects: a
    /// bound SUB would send it only once its thread called it again.)
    static func withPeer<T: Sendable>(
        binary: Bool = true, _ body: @escaping @Sendable (StrokeProducer, ZMQSocket) throws -> T
    ) async throws -> T {
        try await ThreadRunner.run(name: "test-producer") {
            let context = try ZMQContext()
            let endpoint = "inproc://producer-\(UUID().uuidString)"
            let producer = try StrokeProducer(
                .init(endpoints: [.init(bind: true, address: endpoint)], binary: binary), context: context)
            let peer = try ZMQSocket(context, .sub)
            try peer.setLinger(milliseconds: 0)
            try peer.setTimeouts(receive: 5000)
            try peer.connect(endpoint)
            try peer.subscribe("")
            guard try producer.waitForAllBuckets(timeoutMilliseconds: 5000) else {
                throw TestFailure("the peer's subscription did not reach the producer")
            }
            return try body(producer, peer)
        }
    }

    @Test("it numbers each session's messages and strokes, binary where the binary form has room, JSON elsewhere")
    func numberingAndEncoding() async throws {
        let received = try await Self.withPeer { producer, peer -> [String] in
            try producer.sendStroke(Array(Self.zigzag.prefix(5)), session: "a", batch: 2)
            try producer.ping(session: "a")
            try producer.sendStroke(Array(Self.zigzag.prefix(2)), session: "a", learn: "zig")
            try producer.setOptions(SessionOptions(checkmark: false), session: "b")
            var lines = [String]()
            for _ in 0..<9 {
                guard let frames = try peer.receiveMultipart(), frames.count == 2 else { break }
                let message = try InputDecoder().decode(frames[1])
                let form = frames[1].first == BinaryCodec.magic ? "binary" : "json"
                let topic = String(decoding: frames[0], as: UTF8.self)
                lines.append(
                    "\(topic) \(form) \(message.kind.name) seq \(message.hasSequence ? "\(message.sequence)" : "-") "
                        + "stroke \(message.stroke) points \(message.points.count)")
            }
            return lines
        }
        let a = ShardKey.topic(for: "a")
        let b = ShardKey.topic(for: "b")
        #expect(
            received == [
                "\(a) binary begin seq 1 stroke 1 points 1", "\(a) binary points seq 2 stroke 1 points 2",
                "\(a) binary points seq 3 stroke 1 points 2", "\(a) binary end seq 4 stroke 1 points 0",
                "\(a) json ping seq - stroke 0 points 0", "\(a) binary begin seq 5 stroke 2 points 1",
                "\(a) binary points seq 6 stroke 2 points 1", "\(a) json end seq 7 stroke 2 points 0",
                "\(b) json options seq 1 stroke 0 points 0",
            ])
    }

    @Test("coordinates beyond 32-bit floats go as JSON; a NaN or infinity is refused before it takes a number")
    func pointsTheBinaryFormCannotCarry() async throws {
        let received = try await Self.withPeer { producer, peer -> [String] in
            let far = WirePoint(x: 1e300, y: -3, t: 5)
            try producer.send(InputMessage(kind: .begin, sequence: 0, stroke: 1, points: [far]), session: "d")
            for bad in [Double.nan, .infinity] {
                #expect(throws: ProtocolError.self) {
                    try producer.send(
                        InputMessage(kind: .points, sequence: 0, stroke: 1, points: [WirePoint(x: 1, y: 2, t: bad)]),
                        session: "d")
                }
            }
            // A whole stroke with a bad point sends none of it; a gesture with one in its last stroke, none of its
            // strokes (until session 78 the first went out, and the worker matched it alone as the gesture).
            let stroke = [WirePoint(x: 0, y: 0, t: 0), WirePoint(x: .nan, y: 1, t: 1)]
            #expect(throws: ProtocolError.self) { try producer.sendStroke(stroke, session: "d") }
            #expect(throws: ProtocolError.self) {
                try producer.sendGesture([Array(Self.zigzag.prefix(3)), stroke], session: "d")
            }
            // More points than a message carries, or a batch it cannot: refused, not a crash of the process (the
            // binary encoder's precondition, until session 78), and nothing sent.
            let long = Array(repeating: WirePoint(x: 1, y: 2, t: 3), count: StrokeProducer.maximumPointsPerMessage + 1)
            #expect(throws: ProtocolError.self) {
                try producer.send(InputMessage(kind: .points, sequence: 0, stroke: 1, points: long), session: "d")
            }
            for batch in [0, -1, StrokeProducer.maximumPointsPerMessage + 1] {
                #expect(throws: ProtocolError.self) {
                    try producer.sendStroke(long, session: "d", batch: batch)
                }
                #expect(throws: ProtocolError.self) {
                    try producer.sendGesture([Array(Self.zigzag.prefix(3))], session: "d", batch: batch)
                }
            }
            try producer.send(InputMessage(kind: .end, sequence: 0, stroke: 1), session: "d")
            var lines = [String]()
            for _ in 0..<2 {
                guard let frames = try peer.receiveMultipart(), frames.count == 2 else { break }
                let message = try InputDecoder().decode(frames[1])
                let form = frames[1].first == BinaryCodec.magic ? "binary" : "json"
                lines.append("\(form) \(message.kind.name) \(message.sequence) \(message.points.map(\.x))")
            }
            return lines
        }
        #expect(received == ["json begin 1 [1e+300]", "binary end 2 []"])
    }

    @Test("JSON throughout when asked; a closed session starts its numbering again")
    func jsonAndClose() async throws {
        let received = try await Self.withPeer(binary: false) { producer, peer -> [String] in
            try producer.sendStroke(Array(Self.zigzag.prefix(1)), session: "c")
            try producer.close(session: "c")
            try producer.sendStroke(Array(Self.zigzag.prefix(1)), session: "c")
            var lines = [String]()
            for _ in 0..<5 {
                guard let frames = try peer.receiveMultipart() else { break }
                let message = try InputDecoder().decode(frames[1])
                lines.append("\(frames[1].first == UInt8(ascii: "{")) \(message.kind.name) \(message.sequence)")
            }
            return lines
        }
        #expect(received == ["true begin 1", "true end 2", "true close 3", "true begin 1", "true end 2"])
    }

    @Test("the buckets covered follow the subscriptions in force: all, none once they are gone, prefixes' shares")
    func coverage() async throws {
        let counts = try await Self.withPeer { producer, peer -> [Int] in
            var counts = [try producer.coveredBuckets()]
            try peer.unsubscribe(Array("".utf8))
            for _ in 0..<500 where try producer.coveredBuckets() > 0 { Thread.sleep(forTimeInterval: 0.01) }
            counts.append(try producer.coveredBuckets())
            try peer.subscribe("0a1/")
            try peer.subscribe("f")
            for _ in 0..<500 where try producer.coveredBuckets() < 257 { Thread.sleep(forTimeInterval: 0.01) }
            counts.append(try producer.coveredBuckets())
            return counts
        }
        #expect(counts == [ShardKey.bucketCount, 0, 1 + 256])
    }

    @Test("a session id the protocol does not allow, or a stroke of no points, is refused before anything is sent")
    func refused() async throws {
        let (codes, next) = try await Self.withPeer { producer, peer -> ([ProtocolError.Code], UInt32?) in
            var codes = [ProtocolError.Code]()
            let attempts: [() throws -> Void] = [
                { try producer.ping(session: "") }, { _ = try producer.sendStroke([], session: "s") },
                // Session 86: a points message of no points went out, numbered, for the worker to refuse; so did
                // options that set nothing.
                { try producer.send(InputMessage(kind: .points, sequence: 0, stroke: 1), session: "s") },
                { try producer.setOptions(SessionOptions(), session: "s") },
            ]
            for attempt in attempts {
                do {
                    try attempt()
                } catch let error as ProtocolError {
                    codes.append(error.code)
                }
            }
            // The first message that goes out is the next one, numbered 1: nothing refused took a number.
            try producer.send(
                InputMessage(kind: .begin, sequence: 0, stroke: 1, points: [Self.zigzag[0]]), session: "s")
            let frames = try peer.receiveMultipart()
            return (codes, try frames.map { try InputDecoder().decode($0[1]).sequence })
        }
        #expect(codes == [.badTopic, .invalidField, .invalidField, .invalidField])
        #expect(next == 1)
    }

    @Test("through a worker in process: a check, a gesture learned, the detector turned off, as WorkerEvents read them")
    func throughAWorker() async throws {
        let context = try ZMQContext()
        let check = try Self.checkPoints()
        try await WorkerEventsTests.withInprocWorker(context, prefix: "swift-p") { input, _, events in
            let subscribed = WorkerEventsTests.Flag()
            async let received = WorkerEventsTests.collect(events, count: 4, subscribed: subscribed)
            try await ThreadRunner.run(name: "test-producer") {
                let producer = try StrokeProducer(
                    .init(endpoints: [.init(bind: false, address: input)]), context: context)
                guard try producer.waitForAllBuckets(timeoutMilliseconds: 10_000) else {
                    throw TestFailure("the worker's subscriptions did not cover every bucket")
                }
                for _ in 0..<500 where !subscribed.value.load(ordering: .acquiring) {
                    try producer.ping(session: "swift-p")
                    Thread.sleep(forTimeInterval: 0.01)
                }
                try producer.sendStroke(check, session: "swift-p", batch: 8)
                try producer.sendStroke(Self.zigzag, session: "swift-p", learn: "zig")
                try producer.setOptions(SessionOptions(checkmark: false), session: "swift-p")
                try producer.sendStroke(check, session: "swift-p")
            }
            let got = try await received
            #expect(got.map(\.kind) == [.checkmark, .match, .learned, .match])
            #expect(got.map { $0.name ?? "-" } == ["-", "check", "zig", "check"])
            // Stroke 1: begin, 5 messages of 8 points (the 39 after the first), end: its match answers seq 7. Stroke 2:
            // begin, 2 messages of up to 32, end (8–11); the options take 12; stroke 3 is 13–16.
            #expect(got.map { $0.seq ?? -1 } == [got[0].seq ?? -1, 7, 11, 16])
            #expect(got.map(\.stroke) == [1, 1, 2, 3] && got[2].templates == 1)
        }
    }
}
