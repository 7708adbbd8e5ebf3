import CZeroMQ

/// libzmq's built-in proxy (`zmq_proxy_steerable`), e.g. XSUB → XPUB forwarding of a publish–subscribe
/// fabric: messages flow downstream, subscriptions upstream.
public enum ZMQProxy {
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
