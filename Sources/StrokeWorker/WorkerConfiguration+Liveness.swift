import ZeroMQ

// MARK: - Finding peers that vanished

extension WorkerConfiguration {
    /// Turns on TCP keepalive for the connections of `socket` after `seconds` in which nothing arrived (probes
    /// every `keepaliveProbeSeconds`, `keepaliveProbes` of them); nothing if `seconds` is 0. The worker's input and
    /// output have it (`tcpKeepaliveSeconds`): a lane's SUB and XPUB sockets (or its publisher's), or the input and
    /// output forwarders' when there are several lanes.
    static func applyKeepalive(seconds: Int32, to socket: ZMQSocket) throws(ZMQError) {
        guard seconds > 0 else { return }
        try socket.setTCPKeepalive(idleSeconds: seconds, intervalSeconds: keepaliveProbeSeconds, count: keepaliveProbes)
    }

    /// Turns on ZMTP heartbeats on the connections of `socket` every `milliseconds`, a peer that sends nothing for
    /// three intervals being disconnected (and told the same timeout); nothing if `milliseconds` is 0. The input
    /// has them when `heartbeatMilliseconds` asks: a lane's SUB socket or the input forwarder's XSUB.
    static func applyHeartbeat(milliseconds: Int32, to socket: ZMQSocket) throws(ZMQError) {
        guard milliseconds > 0 else { return }
        try socket.setHeartbeat(intervalMilliseconds: milliseconds, timeoutMilliseconds: milliseconds * 3)
    }

    /// Drops the connections of `socket` to a peer that takes none of the data sent to it for `milliseconds`
    /// (`ZMQSocket.setTCPMaxRetransmitTimeout`); nothing if `milliseconds` is 0. The worker's output has it
    /// (`consumerTimeoutMilliseconds`), on a lane's or publisher's XPUB socket or the output forwarder's.
    static func applyConsumerTimeout(milliseconds: Int32, to socket: ZMQSocket) throws(ZMQError) {
        guard milliseconds > 0 else { return }
        try socket.setTCPMaxRetransmitTimeout(milliseconds: milliseconds)
    }
}
