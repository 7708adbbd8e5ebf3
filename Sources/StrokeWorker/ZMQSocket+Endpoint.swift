import ZeroMQ

extension ZMQSocket {
    /// Binds or connects as the endpoint says, with IPv6 on the socket first where the endpoint needs it
    /// (`WorkerConfiguration.Endpoint.usesIPv6`).
    ///
    /// - Returns: the endpoint actually bound (with the port chosen for `tcp://host:*`), or `nil` after a connect.
    @discardableResult
    public func attach(_ endpoint: WorkerConfiguration.Endpoint) throws(ZMQError) -> String? {
        if endpoint.usesIPv6 { try setIPv6(true) }
        guard endpoint.bind else {
            try connect(endpoint.address)
            return nil
        }
        try bind(endpoint.address)
        return lastEndpoint
    }
}
