import Foundation
import StrokeRecognition

/// The file a worker writes its sessions to when it stops and reads them back from when it starts
/// (`--state-file`): one JSON object, `{"format": "stroke-worker-state", "version": 1, "sessions": [...]}`.
///
/// While the worker runs, the same file holds its last checkpoint (`"checkpoint": true`,
/// `WorkerConfiguration.checkpointIntervalSeconds`): the sessions whose options or learned gestures differ from a
/// new session's, without their numbering, which is all a worker that crashed can bring back.
public enum StateFile {
    /// The `format` field's value.
    public static let format = "stroke-worker-state"
    /// The version written and read.
    public static let version = 1

    /// What a state file holds.
    public struct Saved: Sendable, Hashable {
        /// The sessions.
        public var sessions: [SessionSnapshot]
        /// Whether it is a checkpoint taken while the worker ran (sessions without their numbering), rather than
        /// what a graceful stop wrote.
        public var isCheckpoint: Bool

        /// Creates the contents of a state file.
        public init(sessions: [SessionSnapshot], isCheckpoint: Bool = false) {
            self.sessions = sessions
            self.isCheckpoint = isCheckpoint
        }
    }

    private struct Contents: Codable {
        var format: String
        var version: Int
        var savedAt: String?
        /// Absent (as in the files of workers before checkpoints) means false.
        var checkpoint: Bool?
        var sessions: [SessionSnapshot]
    }

    /// Reads the sessions from `path`; nil when there is no such file.
    ///
    /// - Throws: `RecognitionError` `.io` when the file cannot be read, `.malformedState` when it is not a state
    ///   file, `.unsupportedVersion` when it is one of another version.
    public static func read(_ path: String) throws(RecognitionError) -> Saved? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw RecognitionError(.io, "cannot read the state file \(path): \(error.localizedDescription)")
        }
        let contents: Contents
        do {
            contents = try JSONDecoder().decode(Contents.self, from: data)
        } catch {
            throw RecognitionError(.malformedState, "the state file \(path) is not a state file: \(error)")
        }
        guard contents.format == format, contents.version == version else {
            throw RecognitionError(
                .unsupportedVersion,
                "the state file \(path) is \"\(contents.format)\" version \(contents.version); this worker reads "
                    + "\"\(format)\" version \(version)")
        }
        return Saved(sessions: contents.sessions, isCheckpoint: contents.checkpoint ?? false)
    }
}

extension RecognitionError.Code {
    /// A state file (`--state-file`) could not be parsed.
    public static let malformedState = RecognitionError.Code(rawValue: "malformed_state")
}
