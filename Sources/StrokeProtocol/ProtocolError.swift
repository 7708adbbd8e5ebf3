/// The one error type of `StrokeProtocol`: input that does not follow wire protocol v1.
///
/// `code` is what goes on the wire in error events (see `Protocol/README.md`); `message` says what was parsed.
public struct ProtocolError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A machine-readable error code. New codes may be added; switch with a `default`.
    public struct Code: Sendable, Hashable, RawRepresentable, CustomStringConvertible {
        /// The code as it appears in error events.
        public let rawValue: String
        /// Creates a code.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The code as it appears in error events.
        public var description: String { rawValue }

        /// The payload is neither a JSON object nor a binary message, or the JSON is not well formed.
        public static let malformedJSON = Code(rawValue: "malformed_json")
        /// A binary message is truncated, too long or has a bad header.
        public static let malformedBinary = Code(rawValue: "malformed_binary")
        /// The message's `type` is not one of the protocol's.
        public static let unknownType = Code(rawValue: "unknown_type")
        /// A field is missing, has the wrong type or is out of range.
        public static let invalidField = Code(rawValue: "invalid_field")
        /// A coordinate, time or pressure is NaN or infinite.
        public static let nonFinite = Code(rawValue: "non_finite")
        /// The protocol version is not 1.
        public static let unsupportedVersion = Code(rawValue: "unsupported_version")
        /// The topic is not `<shard key>/<session id>`, or its shard key does not match the session id.
        public static let badTopic = Code(rawValue: "bad_topic")
        /// The message does not have exactly two frames.
        public static let frameCount = Code(rawValue: "frame_count")
        /// The message is larger than the configured limit.
        public static let messageTooLarge = Code(rawValue: "message_too_large")
        /// A message carries more points than the configured limit.
        public static let tooManyPoints = Code(rawValue: "too_many_points")
    }

    /// The machine-readable code.
    public var code: Code
    /// What was wrong, with what was parsed.
    public var message: String

    /// Creates an error.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// `code: message`.
    public var description: String { "\(code): \(message)" }
}
