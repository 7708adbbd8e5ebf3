import CZeroMQ

#if canImport(Glibc)
    import Glibc
#endif

/// The one error type of the `ZeroMQ` module: a failed libzmq call with its errno and `zmq_strerror` text.
public struct ZMQError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure this is. New codes may be added; switch with a `default`.
    public struct Code: Sendable, Hashable, RawRepresentable, CustomStringConvertible {
        /// The stable name of the code.
        public let rawValue: String
        /// Creates a code from its stable name.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The stable name of the code.
        public var description: String { rawValue }

        /// The operation would block (`EAGAIN`): nothing to receive, or the send queue is full.
        public static let wouldBlock = Code(rawValue: "would_block")
        /// The context was terminated (`ETERM`): the socket must be closed.
        public static let terminated = Code(rawValue: "terminated")
        /// An endpoint could not be bound or connected, or is malformed.
        public static let endpoint = Code(rawValue: "endpoint")
        /// The socket has no such endpoint to unbind or disconnect (`ENOENT`).
        public static let noEntry = Code(rawValue: "no_entry")
        /// An option or argument was rejected (`EINVAL`).
        public static let invalidArgument = Code(rawValue: "invalid_argument")
        /// Any other failure; see `errno` and `message`.
        public static let other = Code(rawValue: "other")
    }

    /// The machine-readable kind of failure.
    public var code: Code
    /// The errno libzmq reported.
    public var errno: Int32
    /// The libzmq call and its context, e.g. `zmq_bind(tcp://127.0.0.1:5555)`.
    public var operation: String
    /// `zmq_strerror(errno)`.
    public var message: String
    /// The endpoint a failed `zmq_bind` or `zmq_connect` was given, as given; nil for the other calls.
    public var endpoint: String?
    /// Whether the failed call was `zmq_bind` (of `endpoint`) rather than `zmq_connect`.
    public var binding = false

    /// The error of a failed `zmq_bind` (`binding`) or `zmq_connect` of `endpoint`, from the current `zmq_errno()`
    /// or from `errno`: code `.endpoint`, with `endpoint` and `binding` set.
    public static func failedEndpoint(_ endpoint: String, binding: Bool, errno: Int32 = zmq_errno()) -> ZMQError {
        var error = ZMQError(errno, "\(binding ? "zmq_bind" : "zmq_connect")(\(endpoint))", code: .endpoint)
        error.endpoint = endpoint
        error.binding = binding
        return error
    }

    /// Creates an error from the current `zmq_errno()`.
    public static func last(_ operation: String, code: Code? = nil) -> ZMQError {
        let number = zmq_errno()
        return ZMQError(number, operation, code: code)
    }

    /// Creates an error from an errno value.
    public init(_ errno: Int32, _ operation: String, code: Code? = nil) {
        self.errno = errno
        self.operation = operation
        self.message = String(cString: zmq_strerror(errno))
        if let code {
            self.code = code
        } else {
            switch errno {
            case EAGAIN: self.code = .wouldBlock
            case ETERM: self.code = .terminated
            case EINVAL: self.code = .invalidArgument
            case ENOENT: self.code = .noEntry
            default: self.code = .other
            }
        }
    }

    /// `operation: message (errno N)`.
    public var description: String { "\(operation): \(message) (errno \(errno))" }
}
