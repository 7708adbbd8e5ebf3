import CZeroMQ

#if canImport(Glibc)
    import Glibc
#endif

/// The reading end of a socket's connection events (`zmq_socket_monitor`): a PAIR socket, owned by one thread as
/// every socket is, connected to the address where the monitored socket publishes them.
///
/// libzmq sends each event from the thread where it happens (an I/O thread, or the reaper as a socket closes), with
/// a send that blocks while the reader is full or gone: a monitor nobody reads stops that thread and every
/// connection it serves. So the reader connects before the monitored socket publishes (`init`, then
/// `ZMQSocket.startMonitor` at the same address with `mask(_:)`), takes events without a limit (its receive
/// high-water mark is 0: events come per connection, not per message), and must stay open until the monitored socket
/// has stopped publishing (`ZMQSocket.stopMonitor`, which the socket's `deinit` calls): `Event.Kind.monitorStopped` is
/// the last event a reader gets.
public final class ZMQSocketMonitor {
    /// One connection event.
    public struct Event: Sendable, Hashable {
        /// What happened.
        public var kind: Kind
        /// The event's value: a file descriptor (connected, accepted, disconnected, closed), an `errno`
        /// (connect, bind, accept or handshake failures), the retry interval in milliseconds (connect retried), or
        /// a ZAP status code (authentication failure).
        public var value: UInt32
        /// The endpoint the event concerns, as the monitored socket bound or connected it (`tcp://…`).
        public var endpoint: String

        /// Creates an event.
        public init(kind: Kind, value: UInt32, endpoint: String) {
            self.kind = kind
            self.value = value
            self.endpoint = endpoint
        }

        /// The kinds of events (libzmq's `ZMQ_EVENT_*`, version 1).
        public struct Kind: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
            /// libzmq's value.
            public var rawValue: UInt16
            /// Wraps a libzmq value.
            public init(rawValue: UInt16) { self.rawValue = rawValue }

            /// A connection to a `connect` endpoint was made (before its handshake).
            public static let connected = Kind(ZMQ_EVENT_CONNECTED)
            /// A connection to a `connect` endpoint is under way, not made at once.
            public static let connectDelayed = Kind(ZMQ_EVENT_CONNECT_DELAYED)
            /// A connection to a `connect` endpoint failed or closed, and will be tried again.
            public static let connectRetried = Kind(ZMQ_EVENT_CONNECT_RETRIED)
            /// A bound endpoint listens.
            public static let listening = Kind(ZMQ_EVENT_LISTENING)
            /// A bind failed.
            public static let bindFailed = Kind(ZMQ_EVENT_BIND_FAILED)
            /// A peer connected to a bound endpoint.
            public static let accepted = Kind(ZMQ_EVENT_ACCEPTED)
            /// Taking a peer's connection failed (`errno`: EMFILE when out of files).
            public static let acceptFailed = Kind(ZMQ_EVENT_ACCEPT_FAILED)
            /// A listening or connecting descriptor was closed.
            public static let closed = Kind(ZMQ_EVENT_CLOSED)
            /// An established connection ended (after a handshake or during it).
            public static let disconnected = Kind(ZMQ_EVENT_DISCONNECTED)
            /// The monitored socket stopped publishing events: the last one.
            public static let monitorStopped = Kind(ZMQ_EVENT_MONITOR_STOPPED)
            /// A handshake failed without a protocol error (the peer closed or the network failed during it).
            public static let handshakeFailedNoDetail = Kind(ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL)
            /// A handshake succeeded: the connection carries messages from now on.
            public static let handshakeSucceeded = Kind(ZMQ_EVENT_HANDSHAKE_SUCCEEDED)
            /// A handshake failed on a protocol error (a peer that is not ZMTP, a CURVE key that does not fit).
            public static let handshakeFailedProtocol = Kind(ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL)
            /// A handshake failed on authentication (the value is the ZAP status code: 400 for a refused key).
            public static let handshakeFailedAuthentication = Kind(ZMQ_EVENT_HANDSHAKE_FAILED_AUTH)

            private init(_ value: Int32) { rawValue = UInt16(truncatingIfNeeded: value) }

            /// Whether this is one of the three handshake failures.
            public var isHandshakeFailure: Bool {
                self == .handshakeFailedNoDetail || self == .handshakeFailedProtocol
                    || self == .handshakeFailedAuthentication
            }

            /// libzmq's name without the prefix, in lower case (`connect_retried`).
            public var description: String {
                let names: [Kind: String] = [
                    .connected: "connected", .connectDelayed: "connect_delayed", .connectRetried: "connect_retried",
                    .listening: "listening", .bindFailed: "bind_failed", .accepted: "accepted",
                    .acceptFailed: "accept_failed", .closed: "closed", .disconnected: "disconnected",
                    .monitorStopped: "monitor_stopped", .handshakeFailedNoDetail: "handshake_failed_no_detail",
                    .handshakeSucceeded: "handshake_succeeded", .handshakeFailedProtocol: "handshake_failed_protocol",
                    .handshakeFailedAuthentication: "handshake_failed_auth",
                ]
                return names[self] ?? "event_\(rawValue)"
            }
        }
    }

    /// The reader: poll it for events (`ZMQPoller`).
    public let socket: ZMQSocket
    /// The inproc address the monitored socket publishes at.
    public let address: String
    private let message = ZMQMessage()

    /// Creates a reader connected to `address` (an `inproc://` name unique in the context), before anything
    /// publishes there.
    public init(_ context: ZMQContext, address: String) throws(ZMQError) {
        socket = try ZMQSocket(context, .pair)
        self.address = address
        try socket.setHighWaterMarks(receive: 0)
        try socket.setLinger(milliseconds: 0)
        try socket.connect(address)
    }

    /// The mask of `ZMQ_EVENT_*` bits for `ZMQSocket.startMonitor` that publishes `events`, and `monitorStopped`
    /// last.
    public static func mask(_ events: [Event.Kind]) -> Int32 {
        events.reduce(Int32(ZMQ_EVENT_MONITOR_STOPPED)) { $0 | Int32($1.rawValue) }
    }

    /// The next event, or `nil` when none is queued (`dontWait`).
    ///
    /// - Throws: `ZMQError` when receiving fails, with code `.other` for a message that is not an event.
    public func receive(dontWait: Bool = true) throws(ZMQError) -> Event? {
        guard try socket.receive(into: message, dontWait: dontWait) else { return nil }
        let header = message.bytes
        let size = header.count
        let kind = size == 6 ? header.loadUnaligned(as: UInt16.self) : 0
        let value = size == 6 ? header.loadUnaligned(fromByteOffset: 2, as: UInt32.self) : 0
        var endpoint = ""
        if message.hasMore {
            try socket.receive(into: message)
            endpoint = String(decoding: message.bytes, as: UTF8.self)
            while message.hasMore { try socket.receive(into: message) }
        }
        guard size == 6 else { throw ZMQError(EPROTO, "monitor event of \(size) bytes, not 6", code: .other) }
        return Event(kind: Event.Kind(rawValue: kind), value: value, endpoint: endpoint)
    }
}
