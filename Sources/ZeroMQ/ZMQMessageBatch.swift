import CZeroMQ

/// A fixed number of messages (`zmq_msg_t`) in one allocation, received into by index: a receive loop that holds
/// several messages at once before it handles them, without reference counting per message.
///
/// Like `ZMQMessage`, a batch is used by one thread at a time. What `bytes(at:)` returns stays valid until the
/// message at that index is received into again (even by a receive that finds nothing: libzmq empties the
/// message) or the batch is freed.
public final class ZMQMessageBatch {
    /// Number of messages.
    public let count: Int
    let messages: UnsafeMutablePointer<zmq_msg_t>

    /// Creates `count` empty messages.
    public init(count: Int) {
        precondition(count > 0, "a batch holds at least one message")
        self.count = count
        messages = .allocate(capacity: count)
        for index in 0..<count { zmq_msg_init(messages + index) }
    }

    deinit {
        for index in 0..<count { zmq_msg_close(messages + index) }
        messages.deallocate()
    }

    /// The contents of message `index`.
    @inline(__always)
    public func bytes(at index: Int) -> UnsafeRawBufferPointer {
        precondition(index >= 0 && index < count, "message \(index) is outside the batch of \(count)")
        return UnsafeRawBufferPointer(start: zmq_msg_data(messages + index), count: zmq_msg_size(messages + index))
    }

    /// Whether more frames of the same multipart message follow message `index`.
    @inline(__always)
    public func hasMore(at index: Int) -> Bool {
        precondition(index >= 0 && index < count, "message \(index) is outside the batch of \(count)")
        return zmq_msg_more(messages + index) != 0
    }
}

// MARK: - Where a message came from

extension ZMQMessageBatch {
    /// The file descriptor of the connection message `index` arrived on (`ZMQ_SRCFD`), or -1 when it did not
    /// come over a connection of its own (inproc) or libzmq does not say. A descriptor names a connection only
    /// while it is open: libzmq may give the same number to a later one.
    @inline(__always)
    public func sourceDescriptor(at index: Int) -> Int32 {
        precondition(index >= 0 && index < count, "message \(index) is outside the batch of \(count)")
        return ZMQMessage.sourceDescriptor(of: messages + index)
    }

    /// A metadata property of the connection message `index` arrived on (`zmq_msg_gets`): `User-Id` (what the
    /// ZAP handler answered for the peer: `ZMQAuthenticator.Decision.allow`), `Peer-Address`, `Socket-Type`; nil
    /// when the connection has no such property.
    public func property(_ name: String, at index: Int) -> String? {
        precondition(index >= 0 && index < count, "message \(index) is outside the batch of \(count)")
        return ZMQMessage.property(name, of: messages + index)
    }
}
