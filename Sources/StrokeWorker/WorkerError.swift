/// An error the system gave the worker or the proxy while it ran, as against one of its configuration
/// (`CommandLineArguments.Failure`, exit status 2) or of libzmq (`ZMQError`): an address its metrics endpoint
/// could not listen on. Both executables exit with status 1 on it.
public struct WorkerError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What failed. New codes may be added; switch with a `default`.
    public struct Code: Sendable, Hashable, RawRepresentable, CustomStringConvertible {
        /// The code's name.
        public let rawValue: String
        /// Creates a code.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The code's name.
        public var description: String { rawValue }

        /// A socket could not be made, bound or listened on.
        public static let listen = Code(rawValue: "listen")
    }

    /// What failed.
    public var code: Code
    /// What failed, naming the option and the address, and how to get past it where that is known.
    public var message: String
    /// The system's `errno`.
    public var errno: Int32

    /// Creates an error.
    public init(_ code: Code, _ message: String, errno: Int32) {
        self.code = code
        self.message = message
        self.errno = errno
    }

    /// The message.
    public var description: String { message }
}
