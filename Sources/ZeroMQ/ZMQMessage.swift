import CZeroMQ

/// A reusable `zmq_msg_t`: initialized once, filled by every receive, closed once in `deinit`.
///
/// Receiving into the same message releases its previous content (libzmq's `zmq_msg_recv` contract), so a
/// receive loop allocates nothing on the Swift side. The bytes are valid until the next receive.
public final class ZMQMessage {
    let pointer: UnsafeMutablePointer<zmq_msg_t>

    /// Creates an empty message.
    public init() {
        pointer = .allocate(capacity: 1)
        zmq_msg_init(pointer)
    }

    deinit {
        zmq_msg_close(pointer)
        pointer.deallocate()
    }

    /// The frame's bytes, valid until the next receive into this message.
    public var bytes: UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: zmq_msg_data(pointer), count: zmq_msg_size(pointer))
    }

    /// The frame's size in bytes.
    public var count: Int { zmq_msg_size(pointer) }

    /// Whether more frames of the same multipart message follow.
    public var hasMore: Bool { zmq_msg_more(pointer) != 0 }
}

// MARK: - Where a message came from

extension ZMQMessage {
    /// The file descriptor of the connection the frame arrived on (`ZMQ_SRCFD`), or -1 (as
    /// `ZMQMessageBatch.sourceDescriptor(at:)`).
    public var sourceDescriptor: Int32 { Self.sourceDescriptor(of: pointer) }

    /// A metadata property of the connection the frame arrived on (as `ZMQMessageBatch.property(_:at:)`).
    public func property(_ name: String) -> String? { Self.property(name, of: pointer) }

    /// `ZMQ_SRCFD` of a received `zmq_msg_t`: the one place both message types read it.
    @inline(__always)
    static func sourceDescriptor(of message: UnsafeMutablePointer<zmq_msg_t>) -> Int32 {
        zmq_msg_get(message, ZMQ_SRCFD)
    }

    /// A metadata property of a received `zmq_msg_t` (`zmq_msg_gets`), nil when its connection has none.
    static func property(_ name: String, of message: UnsafeMutablePointer<zmq_msg_t>) -> String? {
        guard let value = zmq_msg_gets(message, name) else { return nil }
        return String(cString: value)
    }
}
