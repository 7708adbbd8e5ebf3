import Foundation
import StrokeProtocol
import StrokeWorker
import ZeroMQ

/// A producer and a consumer of one session, each on a socket of its own, that ping the session and read its pongs
/// (`stroke-tool ping`). Used by one thread.
final class Pinger {
    private let producer: ZMQSocket
    private let consumer: ZMQSocket
    private let session: String
    /// The session's input topic: its shard key, a slash and its id.
    private let topic: [UInt8]
    /// Seconds each wait may take.
    private let timeout: Double

    /// Connects a producer (XPUB, so that it sees the worker's subscriptions) to `input` and a consumer of the
    /// session's events to `output`, both CURVE clients with `security`. Each endpoint is read as `watch` and
    /// `send` read theirs (`connect:` when given bare, `bind:` taken; IPv6 on the socket for an address in
    /// brackets); `connections` (if any, made in the sockets' context) tells what becomes of their connections.
    init(
        input: String, output: String, session: String, timeout: Double, security: TransportSecurity?,
        connections: ConnectionWatch? = nil
    ) throws {
        let context = try connections?.context ?? ZMQContext()
        producer = try ZMQSocket(context, .xpub)
        consumer = try ZMQSocket(context, .sub)
        for socket in [producer, consumer] {
            try security?.apply(to: socket)
            try socket.setLinger(milliseconds: 0)
        }
        self.session = session
        self.topic = Array(ShardKey.topic(for: session).utf8)
        self.timeout = timeout
        try consumer.subscribe(session)
        let outputEndpoint = WorkerConfiguration.Endpoint(parsing: WatchCommand.connecting(output))
        let inputEndpoint = WorkerConfiguration.Endpoint(parsing: WatchCommand.connecting(input))
        try connections?.watch(consumer, role: .output, endpoints: [outputEndpoint])
        try connections?.watch(producer, role: .input, endpoints: [inputEndpoint])
        try consumer.attach(outputEndpoint)
        try producer.attach(inputEndpoint)
    }

    /// How a run ended.
    enum Outcome {
        /// Every pong came back.
        case answered(PingCommand.Report)
        /// No subscription covered the session, or no pong came back, within the timeout.
        case unanswered
        /// The first pong came back, but that of timed ping `sequence` (1 to `count`) did not.
        case lost(sequence: Int)
    }

    /// Waits for a subscription that covers the session's topic, pings until the first pong, then times `count`
    /// round trips.
    ///
    /// - Throws: `ZMQError`.
    func run(count: Int) throws -> Outcome {
        guard try waitForSubscription(), let first = try firstPong() else { return .unanswered }
        var trips = [Double]()
        for index in 0..<count {
            let sequence = index + 1
            let sent = DispatchTime.now().uptimeNanoseconds
            try ping(sequence: sequence)
            guard try pong(sequence: sequence, until: Self.deadline(after: timeout)) != nil else {
                return .lost(sequence: sequence)
            }
            trips.append(Double(DispatchTime.now().uptimeNanoseconds - sent) / 1000)
        }
        return .answered(
            PingCommand.Report(
                session: session, shard: first["shard"] as? String ?? "?", known: first["known"] as? Bool ?? false,
                roundTripsMicroseconds: trips))
    }

    // MARK: - Steps

    /// Reads the worker's subscriptions until one covers the topic (`""` covers all); false at the deadline.
    private func waitForSubscription() throws -> Bool {
        let deadline = Self.deadline(after: timeout)
        while let remaining = Self.milliseconds(until: deadline) {
            try producer.setTimeouts(receive: remaining)
            guard let frame = try producer.receiveMultipart()?.first else { return false }
            if frame.first == 1, topic.starts(with: frame.dropFirst()) { return true }
        }
        return false
    }

    /// Pings (numbered 0) every 100 ms until a pong comes back: the consumer's own subscription may still be on
    /// its way to the worker. The pong's fields, or nil at the deadline.
    private func firstPong() throws -> [String: Any]? {
        let deadline = Self.deadline(after: timeout)
        while Self.milliseconds(until: deadline) != nil {
            try ping(sequence: 0)
            if let pong = try pong(sequence: nil, until: min(deadline, Self.deadline(after: 0.1))) { return pong }
        }
        return nil
    }

    private func ping(sequence: Int) throws {
        _ = try producer.sendMultipart([topic, Array(#"{"type":"ping","seq":\#(sequence)}"#.utf8)])
    }

    /// The next pong for the session (with `sequence`, when given), skipping its other events; nil at `deadline`.
    private func pong(sequence: Int?, until deadline: UInt64) throws -> [String: Any]? {
        while let remaining = Self.milliseconds(until: deadline) {
            try consumer.setTimeouts(receive: remaining)
            guard let frames = try consumer.receiveMultipart() else { return nil }
            guard frames.count == 2, frames[0] == Array(session.utf8),
                let event = try? JSONSerialization.jsonObject(with: Data(frames[1])) as? [String: Any],
                event["event"] as? String == "pong"
            else { continue }
            if let sequence, event["seq"] as? Int != sequence { continue }
            return event
        }
        return nil
    }

    // MARK: - Time

    private static func deadline(after seconds: Double) -> UInt64 {
        DispatchTime.now().uptimeNanoseconds + UInt64(seconds * 1e9)
    }

    /// Milliseconds left until `deadline` (at least 1), or nil once it has passed.
    private static func milliseconds(until deadline: UInt64) -> Int32? {
        let now = DispatchTime.now().uptimeNanoseconds
        guard now < deadline else { return nil }
        return Int32(clamping: max(1, (deadline - now) / 1_000_000))
    }
}
