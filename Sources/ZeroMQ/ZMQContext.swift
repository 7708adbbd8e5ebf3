import CZeroMQ

/// A libzmq context: the owner of I/O threads and the factory of sockets.
///
/// libzmq documents contexts as thread-safe ("a ØMQ context is thread safe and may be shared among as many
/// application threads as necessary"), which is why this box, alone in this module, is `@unchecked Sendable`.
/// Sockets are not: each belongs to the thread that uses it.
public final class ZMQContext: @unchecked Sendable {
    let handle: UnsafeMutableRawPointer

    /// Creates a context with `ioThreads` I/O threads. Default: `1`.
    public init(ioThreads: Int32 = 1) throws(ZMQError) {
        guard let handle = zmq_ctx_new() else { throw ZMQError.last("zmq_ctx_new") }
        self.handle = handle
        if ioThreads != 1 && zmq_ctx_set(handle, ZMQ_IO_THREADS, ioThreads) != 0 {
            let error = ZMQError.last("zmq_ctx_set(ZMQ_IO_THREADS, \(ioThreads))")
            zmq_ctx_term(handle)
            throw error
        }
    }

    /// Makes every blocking call on this context's sockets return `ETERM`, so their threads can close them.
    public func shutdown() {
        zmq_ctx_shutdown(handle)
    }

    /// Terminates the context; libzmq blocks here until every socket is closed and lingering messages are sent.
    deinit {
        while zmq_ctx_term(handle) != 0 && zmq_errno() == EINTR {}
    }

    /// The libzmq version as `(major, minor, patch)`.
    public static var version: (major: Int32, minor: Int32, patch: Int32) {
        var major: Int32 = 0
        var minor: Int32 = 0
        var patch: Int32 = 0
        zmq_version(&major, &minor, &patch)
        return (major, minor, patch)
    }
}
