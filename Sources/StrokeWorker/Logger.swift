import Foundation
import StrokeRecognition

/// A small structured logger writing one line per record to standard error (through `LogOutput`, which drops a
/// line rather than end the process or block the caller when the reader is gone or stalled).
public struct Logger: Sendable {
    /// Severity, lowest first.
    public enum Level: Int, Sendable, Comparable, CaseIterable {
        /// Everything, including per-connection details.
        case debug
        /// Start, stop, listening addresses, statistics.
        case info
        /// Recoverable trouble.
        case warning
        /// Failures.
        case error

        /// The level's name.
        public var name: String {
            switch self {
            case .debug: "debug"
            case .info: "info"
            case .warning: "warning"
            case .error: "error"
            }
        }

        /// Parses a level name.
        public init?(name: String) {
            guard let level = Self.allCases.first(where: { $0.name == name.lowercased() }) else { return nil }
            self = level
        }

        /// Orders by severity.
        public static func < (lhs: Level, rhs: Level) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    /// Output format.
    public enum Format: String, Sendable, CaseIterable {
        /// `2026-11-30T10:00:00Z info message key=value`.
        case text
        /// One JSON object per line.
        case json
    }

    /// The lowest level written.
    public var level: Level
    /// The format.
    public var format: Format
    /// A label added to every record (e.g. the shard).
    public var label: String

    /// Creates a logger.
    public init(level: Level = .info, format: Format = .text, label: String = "stroke-worker") {
        self.level = level
        self.format = format
        self.label = label
    }

    /// Writes a record if `level` is enabled.
    public func log(_ level: Level, _ message: @autoclosure () -> String, _ metadata: [String: String] = [:]) {
        guard level >= self.level else { return }
        LogOutput.write(line(level, message(), metadata, time: Date().ISO8601Format()))
    }

    /// The record's line, its newline included: one line whatever the message and the values hold.
    func line(_ level: Level, _ message: String, _ metadata: [String: String], time: String) -> String {
        switch format {
        case .text:
            let fields = metadata.sorted { $0.key < $1.key }.map { " \($0.key)=\(Self.textValue($0.value))" }.joined()
            let label = label.controlCharactersEscaped
            return "\(time) \(level.name) [\(label)] \(message.controlCharactersEscaped)\(fields)\n"
        case .json:
            var record = metadata
            record["time"] = time
            record["level"] = level.name
            record["label"] = label
            record["message"] = message
            let data = (try? JSONSerialization.data(withJSONObject: record, options: [.sortedKeys])) ?? Data()
            return String(decoding: data, as: UTF8.self) + "\n"
        }
    }

    /// A value of the text format as logfmt writes it: as it is when it is one word of printable characters
    /// (`path=/var/lib/x`), else in quotes with escapes (`error="state file: no such file"`), so that a value with a
    /// space, a `=`, a quote or a line break neither reads as more fields nor starts a line of its own.
    static func textValue(_ value: String) -> String {
        let plain =
            !value.isEmpty
            && !value.unicodeScalars.contains {
                $0 == "=" || $0 == "\"" || $0.properties.isWhitespace || $0.properties.generalCategory == .control
            }
        return plain ? value : value.quotedForDisplay
    }

    /// Writes a debug record.
    public func debug(_ message: @autoclosure () -> String, _ metadata: [String: String] = [:]) {
        log(.debug, message(), metadata)
    }

    /// Writes an info record.
    public func info(_ message: @autoclosure () -> String, _ metadata: [String: String] = [:]) {
        log(.info, message(), metadata)
    }

    /// Writes a warning record.
    public func warning(_ message: @autoclosure () -> String, _ metadata: [String: String] = [:]) {
        log(.warning, message(), metadata)
    }

    /// Writes an error record.
    public func error(_ message: @autoclosure () -> String, _ metadata: [String: String] = [:]) {
        log(.error, message(), metadata)
    }
}
