#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A file descriptor that a `ZMQPoller` waits on beside its sockets and that any thread can make readable: how
/// one thread wakes another that sleeps in `zmq_poll`, with no socket between them (a non-blocking pipe).
///
/// `signal()` may be called from any thread; `clear()` belongs to the thread that polls. Signals that come
/// before a `clear()` count as one. Both ends are closed in `deinit`.
public final class ZMQPollSignal: Sendable {
    /// The pipe's read end, which `zmq_poll` waits on.
    let readable: Int32
    /// The end `signal()` writes to.
    private let writable: Int32

    /// Creates an unsignalled descriptor.
    ///
    /// - Throws: `ZMQError` with the system's errno when no pipe can be created (`EMFILE`, `ENFILE`).
    public init() throws(ZMQError) {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw ZMQError(errno, "pipe") }
        for end in ends {
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
        }
        readable = ends[0]
        writable = ends[1]
    }

    deinit {
        close(readable)
        close(writable)
    }

    /// Makes the descriptor readable, waking the thread that polls it.
    public func signal() {
        var byte: UInt8 = 1
        // A full pipe is signalled already: nothing is lost when the write does not happen.
        _ = write(writable, &byte, 1)
    }

    /// Makes the descriptor unreadable again (after a poll found it readable).
    public func clear() {
        var drained: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        while read(readable, &drained, MemoryLayout.size(ofValue: drained)) > 0 {}
    }
}
