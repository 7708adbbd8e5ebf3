import ZeroMQ

extension ZMQSocket {
    /// Binds or connects as the endpoint says.
    ///
    /// - Returns: the endpoint actually bound (with the port chosen for `tcp://host:*`), or `nil` after a connect.
    @discardableResult
    public func attach(_ endpoint: WorkerConfiguration.Endpoint) throws(ZMQError) -> String? {
        guard endpoint.bind else {
            try connect(endpoint.address)
            return nil
        }
        try bind(endpoint.address)
        return lastEndpoint
    }
}
