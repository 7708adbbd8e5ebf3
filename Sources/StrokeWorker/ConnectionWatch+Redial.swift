import Synchronization
import ZeroMQ

extension ConnectionWatch {
    /// The endpoints of one watched socket that the watch asks the socket's thread to connect to again: those
    /// libzmq gave up after a handshake that failed for good (a refused key, a protocol error), once their back-off
    /// has passed (`ConnectionTracker.takeDueRetries`).
    ///
    /// The watch's thread asks (`request`); the socket's own thread connects (`apply(to:logger:)`), for a socket
    /// has one owner. Checking costs the owner one atomic load when nothing is asked, so its loop may check on
    /// every turn.
    public final class Redial: Sendable {
        private let pending = Mutex<[String]>([])
        private let asked = Atomic<Bool>(false)

        init() {}

        /// Asks for `endpoint` to be connected again (the watch's thread).
        func request(_ endpoint: String) {
            pending.withLock { $0.append(endpoint) }
            asked.store(true, ordering: .releasing)
        }

        /// Whether an endpoint waits to be connected again.
        var isPending: Bool { asked.load(ordering: .acquiring) }

        /// On the thread that owns `socket`: connects again to each endpoint asked for, first undoing what is left
        /// of the given-up connection (`zmq_disconnect`, which finds nothing when libzmq has let it go). A failure
        /// is logged to `logger`; the endpoint then stays unconnected, as `/readyz` shows.
        public func apply(to socket: ZMQSocket, logger: Logger) {
            guard asked.load(ordering: .acquiring) else { return }
            let endpoints = pending.withLock { pending in
                asked.store(false, ordering: .relaxed)
                defer { pending.removeAll() }
                return pending
            }
            for endpoint in endpoints {
                do {
                    do {
                        try socket.disconnect(endpoint)
                    } catch  where error.code == .noEntry {
                        // Nothing left of it to undo.
                    }
                    try socket.connect(endpoint)
                } catch {
                    logger.error(
                        "could not connect again after a failed handshake",
                        ["endpoint": endpoint, "error": "\(error)"])
                }
            }
        }
    }
}
