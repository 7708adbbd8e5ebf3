import CZeroMQ

extension ZMQSocket {
    // MARK: - Generic options

    /// Sets an integer option.
    public func setOption(_ option: Int32, _ value: Int32, name: String) throws(ZMQError) {
        var value = value
        guard zmq_setsockopt(handle, option, &value, MemoryLayout<Int32>.size) == 0 else {
            throw ZMQError.last("zmq_setsockopt(\(name), \(value))")
        }
    }

    /// Sets a 64-bit integer option.
    public func setOption64(_ option: Int32, _ value: Int64, name: String) throws(ZMQError) {
        var value = value
        guard zmq_setsockopt(handle, option, &value, MemoryLayout<Int64>.size) == 0 else {
            throw ZMQError.last("zmq_setsockopt(\(name), \(value))")
        }
    }

    /// Sets a bytes option.
    public func setOption(_ option: Int32, bytes: [UInt8], name: String) throws(ZMQError) {
        let result = bytes.withUnsafeBytes { zmq_setsockopt(handle, option, $0.baseAddress, $0.count) }
        guard result == 0 else { throw ZMQError.last("zmq_setsockopt(\(name))") }
    }

    /// Reads an integer option.
    public func intOption(_ option: Int32, name: String) throws(ZMQError) -> Int32 {
        var value: Int32 = 0
        var size = MemoryLayout<Int32>.size
        guard zmq_getsockopt(handle, option, &value, &size) == 0 else {
            throw ZMQError.last("zmq_getsockopt(\(name))")
        }
        return value
    }

    // MARK: - Named options

    /// Subscribes a SUB socket to topics starting with `prefix` (all topics for an empty prefix).
    public func subscribe(_ prefix: [UInt8]) throws(ZMQError) {
        try setOption(ZMQ_SUBSCRIBE, bytes: prefix, name: "ZMQ_SUBSCRIBE")
    }

    /// Subscribes to topics starting with the UTF-8 `prefix`.
    public func subscribe(_ prefix: String) throws(ZMQError) { try subscribe(Array(prefix.utf8)) }

    /// Removes a subscription.
    public func unsubscribe(_ prefix: [UInt8]) throws(ZMQError) {
        try setOption(ZMQ_UNSUBSCRIBE, bytes: prefix, name: "ZMQ_UNSUBSCRIBE")
    }

    /// How long unsent messages are kept after close, in milliseconds (`-1`: forever).
    public func setLinger(milliseconds: Int32) throws(ZMQError) {
        try setOption(ZMQ_LINGER, milliseconds, name: "ZMQ_LINGER")
    }

    /// The high-water marks: messages queued per peer before sends block or drop (0: unlimited).
    public func setHighWaterMarks(send: Int32? = nil, receive: Int32? = nil) throws(ZMQError) {
        if let send { try setOption(ZMQ_SNDHWM, send, name: "ZMQ_SNDHWM") }
        if let receive { try setOption(ZMQ_RCVHWM, receive, name: "ZMQ_RCVHWM") }
    }

    /// Sends and receives time out after this many milliseconds (`-1`: never).
    public func setTimeouts(send: Int32? = nil, receive: Int32? = nil) throws(ZMQError) {
        if let send { try setOption(ZMQ_SNDTIMEO, send, name: "ZMQ_SNDTIMEO") }
        if let receive { try setOption(ZMQ_RCVTIMEO, receive, name: "ZMQ_RCVTIMEO") }
    }

    /// ZMTP heartbeats: ping every `interval` ms, drop the peer after `timeout` ms without an answer.
    public func setHeartbeat(intervalMilliseconds interval: Int32, timeoutMilliseconds timeout: Int32) throws(ZMQError)
    {
        try setOption(ZMQ_HEARTBEAT_IVL, interval, name: "ZMQ_HEARTBEAT_IVL")
        try setOption(ZMQ_HEARTBEAT_TIMEOUT, timeout, name: "ZMQ_HEARTBEAT_TIMEOUT")
        try setOption(ZMQ_HEARTBEAT_TTL, timeout, name: "ZMQ_HEARTBEAT_TTL")
    }

    /// TCP keepalive on the socket's TCP connections: after `idle` seconds in which nothing arrived, the system
    /// probes the peer every `interval` seconds and drops the connection after `count` probes went unanswered.
    ///
    /// The probes carry no data, unlike ZMTP heartbeats (`setHeartbeat`): a peer that has just closed its end of
    /// the connection acknowledges them, where a heartbeat's bytes make its system reset the connection.
    public func setTCPKeepalive(idleSeconds idle: Int32, intervalSeconds interval: Int32, count: Int32)
        throws(ZMQError)
    {
        try setOption(ZMQ_TCP_KEEPALIVE, Int32(1), name: "ZMQ_TCP_KEEPALIVE")
        try setOption(ZMQ_TCP_KEEPALIVE_IDLE, idle, name: "ZMQ_TCP_KEEPALIVE_IDLE")
        try setOption(ZMQ_TCP_KEEPALIVE_INTVL, interval, name: "ZMQ_TCP_KEEPALIVE_INTVL")
        try setOption(ZMQ_TCP_KEEPALIVE_CNT, count, name: "ZMQ_TCP_KEEPALIVE_CNT")
    }

    /// Drops a TCP connection on which sent data has gone unacknowledged, or the peer's receive window has stayed
    /// closed, for `milliseconds` (`ZMQ_TCP_MAXRT`, the system's `TCP_USER_TIMEOUT`; 0: the system's
    /// retransmission limits, about 15 minutes on Linux).
    ///
    /// It finds a peer that stopped reading or vanished while there is data for it, which ZMTP heartbeats do not:
    /// a ping waits behind that data and is never sent.
    public func setTCPMaxRetransmitTimeout(milliseconds: Int32) throws(ZMQError) {
        try setOption(ZMQ_TCP_MAXRT, milliseconds, name: "ZMQ_TCP_MAXRT")
    }

    /// The largest inbound message accepted; a peer that sends a larger one is disconnected (`-1`: no limit).
    public func setMaxMessageSize(_ bytes: Int64) throws(ZMQError) {
        try setOption64(ZMQ_MAXMSGSIZE, bytes, name: "ZMQ_MAXMSGSIZE")
    }

    /// On an XPUB socket, make sends fail with `EAGAIN` at the high-water mark instead of dropping silently.
    public func setNoDrop(_ enabled: Bool) throws(ZMQError) {
        try setOption(ZMQ_XPUB_NODROP, Int32(enabled ? 1 : 0), name: "ZMQ_XPUB_NODROP")
    }

    /// Whether the socket's later TCP binds and connects may use IPv6 (`ZMQ_IPV6`): an IPv6 address (`[::1]`) works
    /// only with it, a host name then resolves to IPv6 addresses too, and `*` binds both families where the system has
    /// IPv6 (libzmq falls back to IPv4 where it has not).
    public func setIPv6(_ enabled: Bool) throws(ZMQError) {
        try setOption(ZMQ_IPV6, Int32(enabled ? 1 : 0), name: "ZMQ_IPV6")
    }

    /// On an XPUB socket, pass every subscription message up, duplicates included.
    public func setVerbose(_ enabled: Bool) throws(ZMQError) {
        try setOption(ZMQ_XPUB_VERBOSE, Int32(enabled ? 1 : 0), name: "ZMQ_XPUB_VERBOSE")
    }

    /// On an XPUB socket, pass every subscription and every unsubscription message up, duplicates included, and,
    /// when a connection ends, an unsubscription for each prefix it held (`ZMQ_XPUB_VERBOSER`).
    public func setVerboser(_ enabled: Bool) throws(ZMQError) {
        try setOption(ZMQ_XPUB_VERBOSER, Int32(enabled ? 1 : 0), name: "ZMQ_XPUB_VERBOSER")
    }

    /// Whether the socket has a frame to receive right now.
    public var isReadable: Bool {
        ((try? intOption(ZMQ_EVENTS, name: "ZMQ_EVENTS")) ?? 0) & Int32(ZMQ_POLLIN) != 0
    }

    /// The endpoint last bound, with the port the system chose for `tcp://host:*`.
    public var lastEndpoint: String {
        var buffer = [CChar](repeating: 0, count: 1024)
        var size = buffer.count
        guard zmq_getsockopt(handle, ZMQ_LAST_ENDPOINT, &buffer, &size) == 0 else { return "" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
