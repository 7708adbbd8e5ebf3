import CZeroMQ

#if canImport(Glibc)
    import Glibc
#endif

/// A libzmq socket, owned by exactly one thread.
///
/// libzmq sockets are not thread-safe, so this class is deliberately not `Sendable`: create it on the thread
/// that uses it. `deinit` closes the handle; the socket holds its context so that the context outlives it.
public final class ZMQSocket {
    /// The socket types this project uses.
    public enum Kind: Int32, Sendable {
        /// Publisher.
        case pub = 1
        /// Subscriber.
        case sub = 2
        /// Request (control clients).
        case req = 3
        /// Reply (control servers).
        case rep = 4
        /// Pull end of a pipeline.
        case pull = 7
        /// Push end of a pipeline.
        case push = 8
        /// Extended publisher: sees subscriptions.
        case xpub = 9
        /// Extended subscriber: sends subscriptions as messages.
        case xsub = 10
        /// Exclusive pair (inproc signalling).
        case pair = 0
    }

    let handle: UnsafeMutableRawPointer
    /// The socket's type.
    public let kind: Kind
    /// The context, kept alive while the socket exists: `zmq_ctx_term` blocks until every socket is closed,
    /// so a context must never be released before its sockets.
    private let context: ZMQContext
    /// Whether the socket publishes connection events (`startMonitor`), which `deinit` stops before closing it.
    private var monitored = false

    /// Creates a socket in `context`.
    public init(_ context: ZMQContext, _ kind: Kind) throws(ZMQError) {
        guard let handle = zmq_socket(context.handle, kind.rawValue) else {
            throw ZMQError.last("zmq_socket(\(kind))")
        }
        self.handle = handle
        self.kind = kind
        self.context = context
    }

    deinit {
        stopMonitor()
        zmq_close(handle)
    }

    // MARK: - Endpoints

    /// Binds to `endpoint` (`tcp://127.0.0.1:5555`, `ipc:///tmp/x`, `inproc://name`, `tcp://127.0.0.1:*`); one
    /// `checkEndpoint` refuses is refused before libzmq sees it.
    public func bind(_ endpoint: String) throws(ZMQError) {
        try Self.checkEndpoint(endpoint, binding: true)
        guard zmq_bind(handle, endpoint) == 0 else {
            var error = ZMQError.failedEndpoint(endpoint, binding: true)
            if error.errno == ENODEV && endpoint.hasPrefix("tcp://") {
                // libzmq 4.3.4 (Debian 12's) reads a bound TCP host as an interface: "localhost" is no device.
                error.message +=
                    " (a bound TCP endpoint takes *, a numeric IPv4 address, an IPv6 address in brackets or an "
                    + "interface name such as lo, not a host name: tcp://127.0.0.1:PORT, tcp://[::1]:PORT or "
                    + "tcp://*:PORT)"
            }
            throw error
        }
    }

    /// Connects to `endpoint`; one `checkEndpoint` refuses is refused before libzmq sees it.
    public func connect(_ endpoint: String) throws(ZMQError) {
        try Self.checkEndpoint(endpoint, binding: false)
        guard zmq_connect(handle, endpoint) == 0 else {
            throw ZMQError.failedEndpoint(endpoint, binding: false)
        }
    }

    /// Stops listening on a bound endpoint.
    public func unbind(_ endpoint: String) throws(ZMQError) {
        guard zmq_unbind(handle, endpoint) == 0 else { throw ZMQError.last("zmq_unbind(\(endpoint))") }
    }

    /// Disconnects from a connected endpoint.
    public func disconnect(_ endpoint: String) throws(ZMQError) {
        guard zmq_disconnect(handle, endpoint) == 0 else { throw ZMQError.last("zmq_disconnect(\(endpoint))") }
    }

    // MARK: - Connection events

    /// Publishes the connection events in `events` (a mask of `ZMQ_EVENT_*`) on a PAIR socket bound at the inproc
    /// `address` (`zmq_socket_monitor`); read them with `ZMQSocketMonitor`, which connects there first.
    public func startMonitor(_ address: String, events: Int32) throws(ZMQError) {
        guard zmq_socket_monitor(handle, address, events) == 0 else {
            throw ZMQError.last("zmq_socket_monitor(\(address))")
        }
        monitored = true
    }

    /// Stops publishing connection events: the reader gets `monitorStopped` last, and may close after it. Before
    /// this, a reader that closes would block the next event's sender (`ZMQSocketMonitor`).
    public func stopMonitor() {
        guard monitored else { return }
        zmq_socket_monitor(handle, nil, 0)
        monitored = false
    }

    // MARK: - Receiving

    /// Receives one frame into `message`, retrying on `EINTR`.
    ///
    /// - Returns: `false` when `dontWait` is set and nothing is queued.
    @discardableResult
    public func receive(into message: ZMQMessage, dontWait: Bool = false) throws(ZMQError) -> Bool {
        try receive(into: message.pointer, dontWait: dontWait)
    }

    /// Receives the next frame into message `index` of a batch; the same as `receive(into:dontWait:)` otherwise.
    ///
    /// - Returns: `false` when `dontWait` is set and nothing is queued.
    @discardableResult
    public func receive(into batch: ZMQMessageBatch, at index: Int, dontWait: Bool = false) throws(ZMQError) -> Bool {
        precondition(index >= 0 && index < batch.count, "message \(index) is outside the batch of \(batch.count)")
        return try receive(into: batch.messages + index, dontWait: dontWait)
    }

    @inline(__always)
    private func receive(into message: UnsafeMutablePointer<zmq_msg_t>, dontWait: Bool) throws(ZMQError) -> Bool {
        while true {
            if zmq_msg_recv(message, handle, dontWait ? ZMQ_DONTWAIT : 0) >= 0 { return true }
            let number = zmq_errno()
            if number == EINTR { continue }
            if number == EAGAIN { return false }
            throw ZMQError(number, "zmq_msg_recv")
        }
    }

    /// Receives a whole multipart message as byte arrays (for tests and control paths, not hot loops).
    public func receiveMultipart(dontWait: Bool = false) throws(ZMQError) -> [[UInt8]]? {
        let message = ZMQMessage()
        var frames = [[UInt8]]()
        guard try receive(into: message, dontWait: dontWait) else { return nil }
        frames.append(Array(message.bytes))
        while message.hasMore {
            try receive(into: message)
            frames.append(Array(message.bytes))
        }
        return frames
    }

    // MARK: - Sending

    /// Sends one frame, copying `bytes`; `more` marks that another frame of the same message follows.
    ///
    /// - Returns: `false` when `dontWait` is set and the frame could not be queued (high-water mark, or no
    ///   subscriber on an `XPUB_NODROP` socket).
    @discardableResult
    public func send(_ bytes: UnsafeRawBufferPointer, more: Bool = false, dontWait: Bool = false) throws(ZMQError)
        -> Bool
    {
        let flags = (more ? ZMQ_SNDMORE : 0) | (dontWait ? ZMQ_DONTWAIT : 0)
        while true {
            if zmq_send(handle, bytes.baseAddress, bytes.count, flags) >= 0 { return true }
            let number = zmq_errno()
            if number == EINTR { continue }
            if number == EAGAIN { return false }
            throw ZMQError(number, "zmq_send")
        }
    }

    /// Sends the frame `message` holds without copying it (`zmq_msg_send`): libzmq takes its content and leaves
    /// it empty, ready for the next receive. `more` marks that another frame of the same message follows.
    ///
    /// - Returns: `false` when `dontWait` is set and the frame could not be queued (the message keeps it).
    @discardableResult
    public func send(_ message: ZMQMessage, more: Bool = false, dontWait: Bool = false) throws(ZMQError) -> Bool {
        let flags = (more ? ZMQ_SNDMORE : 0) | (dontWait ? ZMQ_DONTWAIT : 0)
        while true {
            if zmq_msg_send(message.pointer, handle, flags) >= 0 { return true }
            let number = zmq_errno()
            if number == EINTR { continue }
            if number == EAGAIN { return false }
            throw ZMQError(number, "zmq_msg_send")
        }
    }

    /// Sends a frame given as bytes.
    @discardableResult
    public func send(_ bytes: [UInt8], more: Bool = false, dontWait: Bool = false) throws(ZMQError) -> Bool {
        let flags = (more ? ZMQ_SNDMORE : 0) | (dontWait ? ZMQ_DONTWAIT : 0)
        while true {
            let result = bytes.withUnsafeBytes { zmq_send(handle, $0.baseAddress, $0.count, flags) }
            if result >= 0 { return true }
            let number = zmq_errno()
            if number == EINTR { continue }
            if number == EAGAIN { return false }
            throw ZMQError(number, "zmq_send")
        }
    }

    /// Sends a frame given as UTF-8 text.
    @discardableResult
    public func send(_ text: String, more: Bool = false, dontWait: Bool = false) throws(ZMQError) -> Bool {
        try send(Array(text.utf8), more: more, dontWait: dontWait)
    }

    /// Sends a multipart message of byte arrays.
    @discardableResult
    public func sendMultipart(_ frames: [[UInt8]], dontWait: Bool = false) throws(ZMQError) -> Bool {
        for (index, frame) in frames.enumerated() {
            let more = index < frames.count - 1
            guard try send(frame, more: more, dontWait: dontWait) else { return false }
        }
        return true
    }

    // MARK: - Raw access

    /// The libzmq handle, for the poller and the proxy in this module.
    var rawHandle: UnsafeMutableRawPointer { handle }
}
