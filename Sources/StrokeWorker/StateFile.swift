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
}

extension RecognitionError.Code {
    /// A state file (`--state-file`) could not be parsed.
    public static let malformedState = RecognitionError.Code(rawValue: "malformed_state")
}
