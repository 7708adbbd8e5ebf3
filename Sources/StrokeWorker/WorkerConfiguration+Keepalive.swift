import ZeroMQ

extension WorkerConfiguration {
    /// Turns on TCP keepalive for the connections of `socket` after `seconds` in which nothing arrived (probes
    /// every `keepaliveProbeSeconds`, `keepaliveProbes` of them); nothing if `seconds` is 0. The worker's input
    /// has it (`tcpKeepaliveSeconds`): a lane's SUB socket, or the input forwarder's XSUB when there are several
    /// lanes.
    static func applyKeepalive(seconds: Int32, to socket: ZMQSocket) throws(ZMQError) {
        guard seconds > 0 else { return }
        try socket.setTCPKeepalive(idleSeconds: seconds, intervalSeconds: keepaliveProbeSeconds, count: keepaliveProbes)
    }
}
