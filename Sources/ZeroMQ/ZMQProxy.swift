import CZeroMQ

/// libzmq's built-in proxy (`zmq_proxy_steerable`), e.g. XSUB → XPUB forwarding of a publish–subscribe
/// fabric: messages flow downstream, subscriptions upstream.
public enum ZMQProxy {
    /// A command of a proxy's control socket, as the socket takes it (`PAUSE`).
    ///
    /// libzmq's proxy takes these four only and ends the whole process on any other (4.3.4: it prints "E: invalid
    /// command sent to proxy" and fails an assertion), so text from outside is checked against them before it
    /// reaches a control socket.
    public enum Command: String, Sendable, CaseIterable {
        /// Stop forwarding until `resume`.
        case pause = "PAUSE"
        /// Forward again after `pause`.
        case resume = "RESUME"
        /// End the proxy: its run returns.
        case terminate = "TERMINATE"
        /// Answer with eight 8-byte counts: frames and bytes received and sent on the frontend, then the backend.
        case statistics = "STATISTICS"
    }

    /// Runs the proxy on the calling thread until a `TERMINATE` arrives on `control` or the context is shut
    /// down. `control` (a REP or PAIR socket) also takes `PAUSE`, `RESUME` and `STATISTICS`.
    ///
    /// - Returns: normally when terminated through `control`.
    public static func runSteerable(
        frontend: ZMQSocket, backend: ZMQSocket, capture: ZMQSocket? = nil, control: ZMQSocket?
    ) throws(ZMQError) {
        let result = zmq_proxy_steerable(frontend.rawHandle, backend.rawHandle, capture?.rawHandle, control?.rawHandle)
        if result != 0 {
            let error = ZMQError.last("zmq_proxy_steerable")
            if error.code != .terminated { throw error }
        }
    }
}
