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
