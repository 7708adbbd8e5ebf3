import CZeroMQ

#if canImport(Glibc)
    import Glibc
#endif

/// `zmq_poll` over a fixed set of sockets and signals, for one thread.
public struct ZMQPoller {
    private var items: [zmq_pollitem_t]
    /// Kept alive while their descriptors are polled.
    private let signals: [ZMQPollSignal]

    /// Creates a poller that waits for input on `sockets`, or for one of `signals`: indices `0..<sockets.count`
    /// are the sockets, the signals follow.
    public init(readable sockets: [ZMQSocket], signals: [ZMQPollSignal] = []) {
        self.signals = signals
        items =
            sockets.map { zmq_pollitem_t(socket: $0.rawHandle, fd: 0, events: Int16(ZMQ_POLLIN), revents: 0) }
            + signals.map { zmq_pollitem_t(socket: nil, fd: $0.readable, events: Int16(ZMQ_POLLIN), revents: 0) }
    }

    /// Waits until a socket is readable, a signal is signalled, or `timeoutMilliseconds` pass (`-1`: forever);
    /// `EINTR` counts as a timeout so that callers re-check their shutdown flag.
    ///
    /// - Returns: the number of readable sockets and signals.
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

    /// Whether the socket or signal at `index` was readable after the last poll.
    public func isReadable(_ index: Int) -> Bool {
        items[index].revents & Int16(ZMQ_POLLIN) != 0
    }
}
