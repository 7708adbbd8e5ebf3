import Foundation
import StrokeProtocol
import ZeroMQ

@testable import StrokeWorker

/// A producer (XPUB, so it can wait for the worker's subscription) and a consumer (SUB) for integration tests.
/// Use it on one thread: create and drive it inside `onThread`.
final class TestClient {
    let producer: ZMQSocket
    let consumer: ZMQSocket

    /// `curve`: the client's keys and the worker's public key, for a worker with `TransportSecurity`.
    init(context: ZMQContext, input: String, output: String, curve: (ZMQCurveKeyPair, serverKey: String)? = nil)
        throws
    {
        producer = try ZMQSocket(context, .xpub)
        consumer = try ZMQSocket(context, .sub)
        if let (keys, serverKey) = curve {
            try producer.makeCurveClient(keys, serverKey: serverKey)
            try consumer.makeCurveClient(keys, serverKey: serverKey)
        }
        try producer.setLinger(milliseconds: 0)
        try consumer.setLinger(milliseconds: 0)
        try producer.setHighWaterMarks(send: 0)
        try consumer.setHighWaterMarks(receive: 0)
        try consumer.subscribe("")
        try consumer.connect(output)
        try producer.connect(input)
        // Once the worker's subscriptions that reached the producer cover every shard bucket, nothing sent from now
        // on is lost. One lane subscribes to everything at once; several lanes behind the internal proxy subscribe
        // to their buckets one by one, and a message to a bucket not yet subscribed would be dropped here.
        try producer.setTimeouts(receive: 5000)
        try Self.waitForAllBuckets(producer)
        // Ping a probe session until the consumer's subscription has reached the worker (its pong comes back).
        try consumer.setTimeouts(receive: 50)
        let probe = Array(ShardKey.topic(for: Self.probeSession).utf8)
        for _ in 0..<100 {
            try producer.sendMultipart([probe, Array(#"{"type":"ping"}"#.utf8)])
            if try consumer.receiveMultipart() != nil { break }
        }
        while try consumer.receiveMultipart(dontWait: true) != nil {}
        try consumer.setTimeouts(receive: 10_000)
    }

    /// The session the client pings the worker for (its pong comes back on its topic; the worker keeps no state).
    static let probeSession = "probe-client"

    /// Reads subscription messages until one covers everything (`""`) or all 4,096 bucket prefixes are in.
    private static func waitForAllBuckets(_ producer: ZMQSocket) throws {
        var coverage = ShardKey.Coverage()
        while !coverage.isComplete {
            guard let frame = try producer.receiveMultipart()?.first else {
                throw TestFailure(
                    "the worker's subscriptions cover \(coverage.count) of \(ShardKey.bucketCount) buckets")
            }
            coverage.add(subscriptionFrame: frame)
        }
    }

    func send(session: String, _ json: String) throws {
        try producer.sendMultipart([Array(ShardKey.topic(for: session).utf8), Array(json.utf8)])
    }

    func send(session: String, binary message: InputMessage) throws {
        try producer.sendMultipart([Array(ShardKey.topic(for: session).utf8), BinaryCodec.encode(message)])
    }

    func sendRaw(_ frames: [[UInt8]]) throws { try producer.sendMultipart(frames) }

    /// The next event, skipping probe leftovers; fails after the receive timeout.
    func nextEvent() throws -> (topic: String, event: [String: Any]) {
        while true {
            guard let frames = try consumer.receiveMultipart() else { throw TestFailure("no event within 10 s") }
            let topic = String(decoding: frames[0], as: UTF8.self)
            if topic == Self.probeSession { continue }
            let event = try JSONSerialization.jsonObject(with: Data(frames[1])) as! [String: Any]
            if event["event"] as? String == "stats" { continue }
            return (topic, event)
        }
    }

    func events(_ count: Int) throws -> [(topic: String, event: [String: Any])] {
        try (0..<count).map { _ in try nextEvent() }
    }
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Runs blocking socket code on a dedicated thread (sockets stay on one thread).
func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread {
            continuation.resume(with: Result { try body() })
        }.start()
    }
}

/// Runs `body` on a dedicated thread with a client of the worker at `input` and `output`, on a context of its own
/// (`context`: a shared one, for inproc endpoints).
func withClient<T: Sendable>(
    input: String, output: String, context: ZMQContext? = nil, curve: (ZMQCurveKeyPair, serverKey: String)? = nil,
    _ body: @escaping @Sendable (TestClient) throws -> T
) async throws -> T {
    try await onThread {
        let client = try TestClient(
            context: try context ?? ZMQContext(), input: input, output: output, curve: curve)
        return try body(client)
    }
}

/// Starts a worker, runs `body` with its bound endpoints, then shuts it down and waits for `run()` to return.
func withWorker(
    _ configure: (inout WorkerConfiguration) -> Void, context: ZMQContext? = nil,
    _ body: @escaping @Sendable (_ input: String, _ output: String, _ worker: Worker) async throws -> Void
) async throws {
    var configuration = WorkerConfiguration()
    configuration.inputs = [.init(bind: true, address: "tcp://127.0.0.1:*")]
    configuration.outputs = [.init(bind: true, address: "tcp://127.0.0.1:*")]
    configuration.statsIntervalSeconds = 0
    configuration.logLevel = .warning
    // One lane unless a test asks for more: its subscription covers malformed topics too (see Protocol §7).
    configuration.lanes = 1
    configure(&configuration)
    let worker = try Worker(configuration: configuration, context: context)
    let running = Task { try await worker.run() }
    await worker.waitUntilReady()
    let endpoints = worker.endpoints
    func endpoint(_ role: String) -> String {
        let entry = endpoints.first { $0.hasPrefix("\(role):") }!
        return String(entry.dropFirst(role.count + 1))
    }
    do {
        try await body(endpoint("input"), endpoint("output"), worker)
    } catch {
        worker.shutdown()
        _ = try? await running.value
        throw error
    }
    worker.shutdown()
    try await running.value
}
