import Foundation
import StrokeRecognition

/// The file a worker writes its sessions to when it stops and reads them back from when it starts
/// (`--state-file`): one JSON object, `{"format": "stroke-worker-state", "version": 1, "sessions": [...]}`.
///
/// While the worker runs, the same file holds its last checkpoint (`"checkpoint": true`,
/// `WorkerConfiguration.checkpointIntervalSeconds`): the sessions whose options or learned gestures differ from a
/// new session's, without their numbering, which is all a worker that crashed can bring back. Each file also names
/// the worker's shard (`"shard": "i/N"`) and when it was written (`"savedAt"`, to the millisecond), by which a
/// worker that adopts sessions takes each bucket's from the newest file (`currentSessions(of:servedBy:)`).
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
        /// The shard of the worker whose sessions these were: the file holds every session of its buckets that
        /// had anything to keep (less those of `keptBy`); nil in the files of workers before session 38.
        public var shard: Shard?
        /// For the sessions a worker no longer serves after a change of the shard count (`PATH.departed`): the
        /// shard it serves now, whose buckets' sessions it kept and left out of this file.
        public var keptBy: Shard?
        /// When the sessions were as the file holds them (when the file was written, or for `PATH.departed`
        /// when the file they were read from was); nil when not known.
        public var savedAt: Date?

        /// Creates the contents of a state file.
        public init(
            sessions: [SessionSnapshot], isCheckpoint: Bool = false, shard: Shard? = nil, keptBy: Shard? = nil,
            savedAt: Date? = nil
        ) {
            self.sessions = sessions
            self.isCheckpoint = isCheckpoint
            self.shard = shard
            self.keptBy = keptBy
            self.savedAt = savedAt
        }

        /// Whether the file holds every session of `bucket` that had anything to keep, as of `savedAt`.
        public func holdsAll(ofBucket bucket: Int) -> Bool {
            guard let shard, savedAt != nil else { return false }
            return shard.serves(bucket: bucket) && !(keptBy?.serves(bucket: bucket) ?? false)
        }
    }

    /// A worker's shard, `index/count` (`--shard`): it serves the buckets whose number mod `count` is `index`.
    public struct Shard: Sendable, Hashable, CustomStringConvertible {
        /// The worker's index, `0..<count`.
        public var index: Int
        /// How many workers share the buckets.
        public var count: Int

        /// The shard `index/count`.
        public init(index: Int, count: Int) {
            self.index = index
            self.count = count
        }

        /// Reads `index/count`; nil unless `0 <= index < count`.
        public init?(_ text: String) {
            let parts = text.split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]), count > 0,
                (0..<count).contains(index)
            else { return nil }
            self.init(index: index, count: count)
        }

        /// Whether the shard serves `bucket`.
        public func serves(bucket: Int) -> Bool { bucket % count == index }

        /// `index/count`.
        public var description: String { "\(index)/\(count)" }
    }
}

extension RecognitionError.Code {
    /// A state file (`--state-file`) could not be parsed.
    public static let malformedState = RecognitionError.Code(rawValue: "malformed_state")
}
