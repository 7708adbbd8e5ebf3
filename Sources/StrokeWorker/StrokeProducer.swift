import Foundation
import StrokeProtocol
import ZeroMQ

/// Sends sessions' touch points to workers (or an input proxy) as the protocol's producers do: for producers written
/// in Swift, beside `WorkerEvents` for their events.
///
/// It numbers each session's messages (`seq` 1, 2, 3, …) and strokes, puts the session's shard key on each topic,
/// and encodes binary payloads (JSON where the binary form has no room: `options`, `ping`, an `end` that teaches a
/// gesture) or JSON throughout. It publishes on an XPUB socket so that it sees the workers' subscriptions:
/// `waitForAllBuckets` blocks until they cover every shard bucket, after which nothing it sends is lost to a late
/// subscription (Protocol/README.md, section 8).
///
/// Its socket belongs to one thread, and so does it: create it and use it on one (`ThreadRunner`), never across an
/// `await`; async code uses `AsyncStrokeProducer`, which keeps one on a thread of its own. `deinit` closes the socket.
public final class StrokeProducer {
    /// Where the producer sends, and how.
    public struct Configuration: Sendable {
        /// The workers' inputs, or an input proxy's publisher side (`connect:` or `bind:`).
        public var endpoints: [WorkerConfiguration.Endpoint]
        /// Whether payloads are binary where the binary form can carry them. Default: `true`.
        public var binary: Bool
        /// CURVE: connect as a client with the server's key. Default: none.
        public var security: TransportSecurity?
        /// Messages queued for a worker that lags before libzmq drops them (which the worker then reports as a
        /// `sequence_gap`). Default: `100000`.
        public var sendHighWaterMark: Int32
        /// Where the socket's connections are told, as the worker tells its own (`ConnectionWatch`, role `input`):
        /// an endpoint that does not answer, a connection lost, a handshake refused, each logged to the watch's
        /// logger, and an endpoint libzmq gave up connected again (at the next send). The socket must be made in the
        /// watch's ZeroMQ context (`AsyncStrokeProducer` takes it when given none). Default: none.
        public var connections: ConnectionWatch?

        /// Creates a configuration.
        public init(
            endpoints: [WorkerConfiguration.Endpoint], binary: Bool = true, security: TransportSecurity? = nil,
            sendHighWaterMark: Int32 = 100_000, connections: ConnectionWatch? = nil
        ) {
            self.endpoints = endpoints
            self.binary = binary
            self.security = security
            self.sendHighWaterMark = sendHighWaterMark
            self.connections = connections
        }
    }

    private let socket: ZMQSocket
    private let binary: Bool
    /// The watch of the socket's connections, and where its thread asks for an endpoint to be connected again.
    private let connections: (watch: ConnectionWatch, redial: ConnectionWatch.Redial)?
    /// Each session's last `seq` and last stroke id.
    private var numbering: [String: (sequence: UInt32, stroke: UInt32)] = [:]
    /// The buckets the subscriptions in force cover, as the XPUB reported them.
    private var coverage = ShardKey.Coverage()
    /// The messages' payload, reused.
    private var payload = [UInt8]()
    /// What each session was sent that a worker keeps only as long as the session's state, for `reteach`.
    var remembered: [String: Remembered] = [:]

    /// Connects (or binds) the producer's XPUB socket in `context`.
    public init(_ configuration: Configuration, context: ZMQContext) throws(ZMQError) {
        socket = try ZMQSocket(context, .xpub)
        binary = configuration.binary
        try socket.setLinger(milliseconds: 1000)
        // Subscriptions arrive as messages, up to 4,096 per worker and twice that at a change of the shard count.
        try socket.setHighWaterMarks(
            send: configuration.sendHighWaterMark, receive: Forwarder.subscriptionHighWaterMark)
        try configuration.security?.apply(to: socket)
        if let watch = configuration.connections {
            connections = (watch, try watch.watch(socket, role: .input, endpoints: configuration.endpoints))
        } else {
            connections = nil
        }
        for endpoint in configuration.endpoints { _ = try socket.attach(endpoint) }
    }

    // MARK: - Subscriptions

    /// The shard buckets the workers' subscriptions in force cover now, of `ShardKey.bucketCount`.
    public func coveredBuckets() throws(ZMQError) -> Int {
        try readSubscriptions(waitingMilliseconds: 0)
        return coverage.count
    }

    /// Waits until the workers' subscriptions in force cover every shard bucket; false if they do not within
    /// `timeoutMilliseconds`. Call it again after a worker restarts or the shard count changes.
    public func waitForAllBuckets(timeoutMilliseconds: Int) throws(ZMQError) -> Bool {
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(max(0, timeoutMilliseconds)) * 1_000_000
        while try coveredBuckets() < ShardKey.bucketCount {
            let now = DispatchTime.now().uptimeNanoseconds
            guard now < deadline else { return false }
            try readSubscriptions(waitingMilliseconds: Int32(min(100, (deadline - now) / 1_000_000 + 1)))
        }
        return true
    }

    /// Reads the (un)subscription messages that arrived, waiting up to `waitingMilliseconds` for the first.
    private func readSubscriptions(waitingMilliseconds: Int32) throws(ZMQError) {
        var wait = waitingMilliseconds
        while true {
            try socket.setTimeouts(receive: wait)
            guard let frame = try socket.receiveMultipart(dontWait: wait == 0)?.first else { return }
            coverage.add(subscriptionFrame: frame)
            wait = 0
        }
    }

    // MARK: - Sending

    /// Sends `message` for `session`, numbered as its next message (`seq`; a `ping` carries none). Binary where the
    /// binary form carries it (see `Configuration.binary`), and where its coordinates fit its 32-bit floats: beyond,
    /// they would arrive as infinities, so such a message goes as JSON (a whole stroke sent by `sendStroke`, where
    /// one of its points lies beyond).
    ///
    /// - Throws: `ProtocolError` (`bad_topic`) for a session id the protocol does not allow, (`non_finite`) for a
    ///   point with a NaN or an infinity, (`too_many_points`, `invalid_field`) for a message of more points than
    ///   the binary form counts or a `points` message of none, before the message takes a sequence number;
    ///   `ZMQError`.
    public func send(_ message: InputMessage, session: String) throws {
        try send(message, session: session, binaryCarries: try Self.check(message.points))
    }

    /// `send(_:session:)` for points `check` has passed: `binaryCarries` is what it returned for them (or for the
    /// whole stroke they belong to, which `sendOneStroke` checks once).
    private func send(_ message: InputMessage, session: String, binaryCarries: Bool) throws {
        let topic = Array(ShardKey.topic(for: session).utf8)
        _ = try topic.withUnsafeBytes { (bytes) throws(ProtocolError) in try ShardKey.check(topic: bytes) }
        guard message.points.count <= Self.maximumPointsPerMessage else {
            throw ProtocolError(
                .tooManyPoints,
                "a message carries at most \(Self.maximumPointsPerMessage) points, got \(message.points.count)")
        }
        // The worker answers one without points with invalid_field; before session 86 it went out, numbered.
        guard message.kind != .points || !message.points.isEmpty else {
            throw ProtocolError(.invalidField, "a points message carries at least one point")
        }
        var message = message
        if message.kind == .ping {
            message.hasSequence = false
        } else {
            var numbers = numbering[session, default: (0, 0)]
            numbers.sequence &+= 1
            numbering[session] = numbers
            message.sequence = numbers.sequence
            message.hasSequence = true
        }
        if binary && message.kind != .options && message.kind != .ping && message.learn == nil && binaryCarries {
            BinaryCodec.encode(message, into: &payload)
        } else {
            var writer = JSONWriter()
            JSONInputEncoder.encode(message, into: &writer)
            payload = writer.bytes
        }
        if let connections { connections.redial.apply(to: socket, logger: connections.watch.logger) }
        try socket.send(topic, more: true)
        try socket.send(payload)
    }

    /// The most points one message carries: the binary form counts them in 16 bits, and a worker's
    /// `--max-points-per-message` is at most this (4,096 by default).
    public static let maximumPointsPerMessage = Int(UInt16.max)

    /// Refuses a point with a NaN or an infinity, which the worker would refuse (`non_finite`) after the message
    /// took a sequence number; returns whether the binary form carries the points as they are: `x` and `y` travel
    /// as 32-bit floats (`pressure` is one already, the time a 64-bit one), and a finite coordinate beyond their
    /// range would arrive as an infinity, which the worker refuses too. One pass over them.
    static func check(_ points: [WirePoint]) throws(ProtocolError) -> Bool {
        let largest = Double(Float.greatestFiniteMagnitude)
        var carries = true
        for (index, point) in points.enumerated() {
            guard point.x.isFinite && point.y.isFinite && point.t.isFinite && (point.pressure?.isFinite ?? true) else {
                throw ProtocolError(.nonFinite, "point \(index) has a NaN or infinite value")
            }
            carries = carries && abs(point.x) <= largest && abs(point.y) <= largest
        }
        return carries
    }

    /// Sends a whole stroke for `session`: `begin` with its first point, `points` messages of `batch` points, and
    /// `end`, which teaches the stroke as the gesture `learn` when given (remembered for `reteach`), and with `last`
    /// ends the session's gesture of several strokes with this one (Protocol/README.md, section 4.2). Returns the
    /// stroke's id.
    ///
    /// - Throws: `ProtocolError` before anything is sent: (`invalid_field`) for a stroke of no points or a `batch`
    ///   outside 1...65,535, (`non_finite`) for a point with a NaN or an infinity; then `ZMQError`.
    @discardableResult
    public func sendStroke(
        _ points: [WirePoint], session: String, batch: Int = 32, pointer: UInt16 = 0, learn: String? = nil,
        last: Bool = false
    ) throws -> UInt32 {
        let stroke = try sendOneStroke(
            points, session: session, batch: batch, pointer: pointer, learn: learn, last: last)
        if let learn { remembered[session, default: Remembered()].taught.append((learn, [points])) }
        return stroke
    }

    /// `sendStroke` without remembering what it teaches.
    @discardableResult
    func sendOneStroke(
        _ points: [WirePoint], session: String, batch: Int, pointer: UInt16 = 0, learn: String? = nil,
        last: Bool = false
    ) throws -> UInt32 {
        // All of them before the first message: a bad point halfway would leave the stroke open at the worker.
        let carries = try Self.check(stroke: points, batch: batch)
        return try sendCheckedStroke(
            points, carries: carries, session: session, batch: batch, pointer: pointer, learn: learn, last: last)
    }

    /// Checks a stroke before its first message is sent: `check`'s verdict on its points, and a stroke of no points
    /// or a `batch` outside 1...65,535 points a message refused (`invalid_field`).
    static func check(stroke points: [WirePoint], batch: Int) throws(ProtocolError) -> Bool {
        guard !points.isEmpty else {
            throw ProtocolError(.invalidField, "points: a stroke needs at least one point")
        }
        guard (1...maximumPointsPerMessage).contains(batch) else {
            throw ProtocolError(.invalidField, "batch: 1 to \(maximumPointsPerMessage) points a message, got \(batch)")
        }
        return try check(points)
    }

    /// `sendOneStroke` for a stroke `check(stroke:batch:)` has passed, `carries` its verdict.
    func sendCheckedStroke(
        _ points: [WirePoint], carries: Bool, session: String, batch: Int, pointer: UInt16 = 0, learn: String? = nil,
        last: Bool = false
    ) throws -> UInt32 {
        let first = points[0]
        let stroke = newStroke(session)
        try send(
            InputMessage(kind: .begin, sequence: 0, stroke: stroke, pointer: pointer, points: [first]),
            session: session,
            binaryCarries: carries)
        var start = 1
        while start < points.count {
            let end = min(points.count, start + batch)
            try send(
                InputMessage(
                    kind: .points, sequence: 0, stroke: stroke, pointer: pointer, points: Array(points[start..<end])),
                session: session, binaryCarries: carries)
            start = end
        }
        try send(
            InputMessage(kind: .end, sequence: 0, stroke: stroke, pointer: pointer, learn: learn, last: last),
            session: session, binaryCarries: true)
        return stroke
    }

    /// Sets `session`'s options (its library, checkmark detector, chosen gestures, …); the latest value of each is
    /// remembered for `reteach`, and `forget` drops the gestures it names from what `reteach` sends.
    ///
    /// - Throws: `ProtocolError` (`invalid_field`) for options that set nothing, which the worker would refuse,
    ///   before the message takes a sequence number (before session 86 it went out); what `send` throws.
    public func setOptions(_ options: SessionOptions, session: String) throws {
        guard options != SessionOptions() else {
            throw ProtocolError(.invalidField, "an options message sets at least one option")
        }
        try send(InputMessage(kind: .options, sequence: 0, options: options), session: session)
        remembered[session, default: Remembered()].apply(options)
    }

    /// Pings `session`: its worker answers with a `pong` event (outside the session's numbering).
    public func ping(session: String) throws {
        try send(InputMessage(kind: .ping, sequence: 0), session: session)
    }

    /// Closes `session` (the worker drops its state) and forgets its numbering, options and taught gestures.
    public func close(session: String) throws {
        try send(InputMessage(kind: .close, sequence: 0), session: session)
        forget(session: session)
        remembered[session] = nil
    }

    /// Starts `session`'s numbering over, as a restarted producer does: its next message is `seq` 1, and the worker,
    /// if it still holds the session, answers `session_restart` and starts it afresh (a way out after
    /// `sequence_late` errors). What `reteach` sends is kept.
    public func forget(session: String) {
        numbering[session] = nil
    }

    /// A fresh stroke id for `session`.
    private func newStroke(_ session: String) -> UInt32 {
        var numbers = numbering[session, default: (0, 0)]
        numbers.stroke &+= 1
        numbering[session] = numbers
        return numbers.stroke
    }
}
