import Foundation
import StrokeProtocol
import StrokeRecognition
import ZeroMQ

/// The events workers publish, as an `AsyncSequence`: for a consumer written in Swift (a game server, a room
/// service) or a tool, read from a worker's output or a results proxy and decoded (`OutputEvent`).
///
/// ```swift
/// let events = WorkerEvents(.init(endpoints: [.init(parsing: "connect:tcp://127.0.0.1:5556")], prefixes: ["room42/"]))
/// for try await event in events where event.kind == .match {
///     print(event.session ?? "", event.name ?? "")
/// }
/// ```
///
/// Each iteration has a SUB socket of its own, on a thread of its own (libzmq's blocking calls never run on the
/// concurrency pool), from `makeAsyncIterator()` until the iteration ends: the loop is left, its task cancelled,
/// or its iterator released; the thread then closes the socket within 100 ms. Events come in the order the
/// socket received them. A consumer that lags gets `bufferLimit` events held for it, then the thread stops
/// reading and libzmq's queue fills (`highWaterMark`); past that the worker waits for this consumer a while and
/// then drops its events, which their `eventSeq` numbers show (Protocol/README.md, section 8): each event's
/// `eventsLost` counts those of its session that did not arrive just before it. As with any subscriber, events
/// published before the subscription reaches the worker are not received: an iterator's `waitUntilSubscribed` pings
/// a session until its `pong` comes back.
///
/// The iteration throws `ZMQError` when the socket cannot be set up. A message that is not an event of protocol v1
/// (not two frames, or a payload that does not decode) is skipped, as an event lost, and told
/// (`Configuration.undecodable`): one bad message costs its own session an event, where until session 85 it ended
/// the iteration, and with it every session's events.
public struct WorkerEvents: AsyncSequence, Sendable {
    /// Where the events are read, and which.
    public struct Configuration: Sendable {
        /// The worker's output endpoints, or a results proxy's subscriber side (`connect:` or `bind:`).
        public var endpoints: [WorkerConfiguration.Endpoint]
        /// Topic prefixes: session ids, or a prefix a group of sessions shares (`room42/`). Default: `[""]`, every
        /// session.
        public var prefixes: [String]
        /// Whether events of the `$system` topic come too (`stats`, errors of no session). Default: `false`.
        public var system: Bool
        /// CURVE: connect as a client with the server's key. Default: none.
        public var security: TransportSecurity?
        /// Decoded events held for a consumer that lags, before the thread stops reading. Default: `1024`.
        public var bufferLimit: Int
        /// The SUB socket's receive high-water mark, in messages. Default: `100000`.
        public var highWaterMark: Int32
        /// Where the socket's connections are told, as the worker tells its own (`ConnectionWatch`, role
        /// `output`): an endpoint that does not answer, a connection lost, a handshake refused (a wrong CURVE key),
        /// each logged to the watch's logger, and an endpoint libzmq gave up connected again. The sockets are made
        /// in the watch's ZeroMQ context unless the sequence was given one, which must then be the watch's; its
        /// `run(stopped:)` runs on a thread of the caller's. Default: none (a consumer that connects nowhere hears
        /// nothing).
        public var connections: ConnectionWatch?
        /// What is done with a message that is not an event of protocol v1: not two frames (`frame_count`), or a
        /// payload that does not decode. Called on the reader thread with the message's topic and the error (whose
        /// message names the topic too); the message is then skipped, as an event lost (the gap it leaves in its
        /// session's `eventSeq` shows in the `eventsLost` of the session's next event), unless the closure throws,
        /// which ends the iteration with what it threw. Default: `nil`: skipped, and logged as a warning by
        /// `connections`' logger when there is one.
        public var undecodable: (@Sendable (_ topic: String, _ error: ProtocolError) throws -> Void)?

        /// Creates a configuration.
        public init(
            endpoints: [WorkerConfiguration.Endpoint], prefixes: [String] = [""], system: Bool = false,
            security: TransportSecurity? = nil, bufferLimit: Int = 1024, highWaterMark: Int32 = 100_000,
            connections: ConnectionWatch? = nil,
            undecodable: (@Sendable (_ topic: String, _ error: ProtocolError) throws -> Void)? = nil
        ) {
            self.endpoints = endpoints
            self.prefixes = prefixes
            self.system = system
            self.security = security
            self.bufferLimit = bufferLimit
            self.highWaterMark = highWaterMark
            self.connections = connections
            self.undecodable = undecodable
        }
    }

    /// The events' type.
    public typealias Element = OutputEvent

    /// What to read.
    public let configuration: Configuration
    private let context: ZMQContext?

    /// Creates the sequence; nothing is connected until an iteration starts. `context`: the ZeroMQ context of the
    /// sockets (needed for `inproc://` endpoints; default: a context of each iteration's own).
    public init(_ configuration: Configuration, context: ZMQContext? = nil) {
        self.configuration = configuration
        self.context = context
    }

    /// Starts an iteration: its socket and thread.
    public func makeAsyncIterator() -> AsyncIterator {
        let channel = EventChannel(limit: configuration.bufferLimit)
        let configuration = configuration
        let context = context
        ThreadRunner.start(name: "worker-events") {
            do {
                let shared = context ?? configuration.connections?.context
                try Self.read(configuration, context: shared ?? ZMQContext(), into: channel)
                channel.finish()
            } catch {
                channel.finish(throwing: error)
            }
        }
        return AsyncIterator(channel: channel)
    }

    /// One iteration's events.
    public struct AsyncIterator: AsyncIteratorProtocol {
        private let channel: EventChannel
        /// Stops the thread when the iterator is released.
        private let lifetime: Lifetime
        /// Events read while `waitUntilSubscribed` waited, handed out first.
        private var held: [OutputEvent] = []
        /// The session whose pongs `waitUntilSubscribed` takes, now and later.
        private var probe: String?

        init(channel: EventChannel) {
            self.channel = channel
            self.lifetime = Lifetime(channel)
        }

        /// The next event; `nil` once the iteration was cancelled.
        public mutating func next() async throws -> OutputEvent? {
            if !held.isEmpty { return held.removeFirst() }
            while let event = try await channel.next() {
                if let probe, event.kind == .pong, event.session == probe { continue }
                return event
            }
            return nil
        }

        /// Waits until this iteration's subscription has reached the worker that serves `session`, so that no event
        /// of that worker's sessions is published before it (the slow joiner, Protocol/README.md, section 8): calls
        /// `ping` (which pings `session`) every 10 ms until the session's `pong` comes back here. False if none
        /// comes within `timeout`.
        ///
        /// `session` must be one the iteration's prefixes cover, and a probe of its own: its pongs are kept from
        /// `next()` from now on. Other events read meanwhile come from `next()` afterwards, in order.
        public mutating func waitUntilSubscribed(
            session: String, timeout: Duration = .seconds(10), ping: () async throws -> Void
        ) async throws -> Bool {
            probe = session
            let clock = ContinuousClock()
            let deadline = clock.now.advanced(by: timeout)
            while clock.now < deadline {
                try await ping()
                let look = clock.now.advanced(by: .milliseconds(10))
                while clock.now < look {
                    let event: OutputEvent?
                    do {
                        event = try await channel.next(within: clock.now.duration(to: look))
                    } catch is EventChannel.TimedOut {
                        break
                    }
                    guard let event else { return false }
                    if event.kind == .pong && event.session == session { return true }
                    held.append(event)
                }
            }
            return false
        }

        /// `waitUntilSubscribed(session:timeout:ping:)`, pinging through `producer`.
        public mutating func waitUntilSubscribed(
            pinging producer: AsyncStrokeProducer, session: String, timeout: Duration = .seconds(10)
        ) async throws -> Bool {
            try await waitUntilSubscribed(session: session, timeout: timeout) {
                try await producer.ping(session: session)
            }
        }
    }

    // MARK: - The reader thread

    /// What is wrong with the first of `prefixes` longer than any topic, if one is: a session id is at most
    /// `ShardKey.maximumSessionIDLength` (128) bytes, so such a prefix matches no event, and a worker cuts a
    /// consumer whose subscription passes 1 KiB (`WorkerConfiguration.largestSubscriptionBytes`).
    public static func longPrefixProblem(_ prefixes: [String]) -> String? {
        guard let long = prefixes.first(where: { $0.utf8.count > ShardKey.maximumSessionIDLength }) else { return nil }
        return
            "the prefix \(long.quotedForDisplay(atMost: 40)) is \(long.utf8.count) bytes, longer than any session id "
            + "(\(ShardKey.maximumSessionIDLength)): it would match no event"
    }

    /// How long a receive waits before the thread looks whether the consumer has gone, in milliseconds.
    static let pollMilliseconds: Int32 = 100

    /// Receives and decodes until the consumer has gone.
    private static func read(_ configuration: Configuration, context: ZMQContext, into channel: EventChannel) throws {
        if let problem = longPrefixProblem(configuration.prefixes) { throw ProtocolError(.badTopic, problem) }
        let socket = try ZMQSocket(context, .sub)
        try socket.setLinger(milliseconds: 0)
        try socket.setHighWaterMarks(receive: configuration.highWaterMark)
        try socket.setTimeouts(receive: pollMilliseconds)
        try configuration.security?.apply(to: socket)
        for prefix in configuration.prefixes { try socket.subscribe(prefix) }
        if configuration.system && !configuration.prefixes.contains("") { try socket.subscribe("$") }
        let watch = configuration.connections
        let redial = try watch?.watch(socket, role: .output, endpoints: configuration.endpoints)
        for endpoint in configuration.endpoints { _ = try socket.attach(endpoint) }
        let topic = ZMQMessage()
        let payload = ZMQMessage()
        var losses = LossCounter()
        while !channel.isStopped {
            if let watch, let redial { redial.apply(to: socket, logger: watch.logger) }
            guard try socket.receive(into: topic) else { continue }
            let name = String(decoding: topic.bytes, as: UTF8.self)
            var frames = 1
            if topic.hasMore {
                try socket.receive(into: payload)
                frames += 1
                while payload.hasMore {
                    try socket.receive(into: payload)
                    frames += 1
                }
            }
            if name.hasPrefix("$") && !configuration.system { continue }
            var event: OutputEvent
            do {
                event = try decode(topic: name, frames: frames, payload: payload)
            } catch {
                try skip(topic: name, error, configuration)
                continue
            }
            losses.count(&event)
            guard channel.send(event) else { return }
        }
    }

    /// The event of a message of `frames` frames on `topic`, whose second frame is `payload`.
    private static func decode(topic: String, frames: Int, payload: ZMQMessage) throws(ProtocolError) -> OutputEvent {
        guard frames == 2 else {
            throw ProtocolError(.frameCount, "a message of \(frames) frames on topic \(topic), not [topic, event]")
        }
        do {
            return try OutputEvent(decoding: payload.bytes)
        } catch {
            throw ProtocolError(error.code, "an event on topic \(topic): \(error.message)")
        }
    }

    /// Tells of a message that is not an event, as `configuration.undecodable` says; throws what it throws.
    private static func skip(topic: String, _ error: ProtocolError, _ configuration: Configuration) throws {
        if let undecodable = configuration.undecodable {
            try undecodable(topic, error)
        } else {
            configuration.connections?.logger.warning("skipped a message that is not an event: \(error)")
        }
    }
}

/// Counts the events each session lost on the way to one iteration, from the jumps in their `eventSeq`.
struct LossCounter {
    /// Each session's last `eventSeq` seen, until its `closed` event: a session that starts again counts from 1.
    private var last: [String: Int] = [:]

    /// Sessions whose last `eventSeq` is held: those with events seen and no `closed` since.
    var sessions: Int { last.count }

    /// Sets `event.eventsLost`. Events outside the count (`eventSeq` 0: pongs, and events of sessions the worker
    /// holds no state for) and events of no session are left alone.
    mutating func count(_ event: inout OutputEvent) {
        guard let session = event.session, event.eventSeq > 0 else { return }
        if let previous = last[session], event.eventSeq > previous + 1 {
            event.eventsLost = event.eventSeq - previous - 1
        }
        last[session] = event.kind == .closed ? nil : event.eventSeq
    }
}

/// Tells the channel that its consumer has gone when the last copy of an iterator is released.
private final class Lifetime: Sendable {
    let channel: EventChannel
    init(_ channel: EventChannel) { self.channel = channel }
    deinit { channel.stop() }
}
