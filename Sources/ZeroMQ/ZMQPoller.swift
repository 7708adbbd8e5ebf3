import CZeroMQ

#if canImport(Glibc)
    import Glibc
#endif

/// `zmq_poll` over a fixed set of sockets, for one thread.
public struct ZMQPoller {
    private var items: [zmq_pollitem_t]

    /// Creates a poller that waits for input on `sockets`.
    public init(readable sockets: [ZMQSocket]) {
        items = sockets.map { zmq_pollitem_t(socket: $0.rawHandle, fd: 0, events: Int16(ZMQ_POLLIN), revents: 0) }
    }

    /// Waits until a socket is readable or `timeoutMilliseconds` pass (`-1`: forever); `EINTR` counts as a
    /// timeout so that callers re-check their shutdown flag.
    ///
    /// - Returns: the number of readable sockets.
    public mutating func poll(timeoutMilliseconds: Int) throws(ZMQError) -> Int {
        let count = Int32(items.count)
        let result = items.withUnsafeMutableBufferPointer { zmq_poll($0.baseAddress, count, timeoutMilliseconds) }
        if result < 0 {
            let number = zmq_errno()
            if number == EINTR { return 0 }
            throw ZMQError(number, "zmq_poll")
        }
        return Int(result)
    }

    /// Whether the socket at `index` was readable after the last poll.
    public func isReadable(_ index: Int) -> Bool {
        items[index].revents & Int16(ZMQ_POLLIN) != 0
    }
}
