import Foundation

/// The one error type of `StrokeRecognition`.
///
/// `code` says what went wrong in a machine-readable, extensible way; `message` says it for people and carries
/// the context (the file, the field, the value that was parsed).
public struct RecognitionError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure this is. New codes may be added; switch with a `default`.
    public struct Code: Sendable, Hashable, RawRepresentable, CustomStringConvertible {
        /// The stable name of the code, as it appears in logs and on the wire.
        public let rawValue: String
        /// Creates a code from its stable name.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The stable name of the code.
        public var description: String { rawValue }

        /// A stroke had too few points, or no extent, to be recognized.
        public static let degenerateStroke = Code(rawValue: "degenerate_stroke")
        /// A coordinate or time was NaN or infinite.
        public static let nonFiniteValue = Code(rawValue: "non_finite_value")
        /// A template library file could not be parsed or failed validation.
        public static let malformedLibrary = Code(rawValue: "malformed_library")
        /// A template library file has a format version this build does not read.
        public static let unsupportedVersion = Code(rawValue: "unsupported_version")
        /// Reading or writing a file failed.
        public static let io = Code(rawValue: "io")
        /// A gesture log (the $1 XML format) could not be parsed.
        public static let malformedLog = Code(rawValue: "malformed_log")
        /// A named template or library does not exist.
        public static let notFound = Code(rawValue: "not_found")
        /// A configuration value is out of its documented range.
        public static let invalidConfiguration = Code(rawValue: "invalid_configuration")
    }

    /// The machine-readable kind of failure.
    public var code: Code
    /// A human-readable explanation with its context.
    public var message: String

    /// Creates an error.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// `code: message`.
    public var description: String { "\(code): \(message)" }
}
