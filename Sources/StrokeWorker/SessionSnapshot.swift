import Foundation
import StrokeProtocol
import StrokeRecognition

/// What a session keeps across a restart of its worker (`WorkerConfiguration.stateFile`): its numbering, its
/// options and the gestures it learned.
///
/// Strokes still open when the worker stopped are not kept (their later messages get `unknown_stroke`, as after
/// any loss of state); gestures of several strokes are matched during the drain, before the snapshot.
public struct SessionSnapshot: Sendable, Hashable, Codable {
    /// The session id (the input topic without its shard key).
    public var session: String
    /// The last input sequence number processed; nil when it was not kept (a checkpoint's sessions, and those that
    /// came back from one and had no message since): the session's first message after its restore then gets
    /// `session_reset` with `restored: true` (`SequenceTracker.afterCheckpoint()`).
    public var seq: UInt32?
    /// The last event sequence number published.
    public var eventSeq: UInt64
    /// The name of the session's library.
    public var library: String
    /// The orientation the session set (`invariant` or `sensitive`); nil: its library's own.
    public var orientation: String?
    /// Whether the checkmark detector runs for the session's strokes.
    public var checkmark: Bool
    /// Whether the checkmark detector follows the session's tilt (`followTilt`), where it differs from its
    /// worker's default (`WorkerConfiguration.checkmarkFollowsTilt`); nil: the default of the worker that restores
    /// it.
    public var followTilt: Bool?
    /// The score the session's strokes must reach beside their library's threshold, where it set one
    /// (`minimumScore`); nil: its library's alone.
    public var minimumScore: Double?
    /// The scores the session's strokes must reach to match gestures of these names, where it set some
    /// (`gestureScores`); nil: none.
    public var gestureScores: [String: Double]?
    /// Milliseconds the session's gestures wait for a next stroke; 0: every stroke is a gesture of its own.
    public var multistroke: Int
    /// The gestures the session chose to be matched among; nil: all.
    public var gestures: [String]?
    /// The templates the session learned, resampled as the matcher keeps them.
    public var learned: [GestureTemplate]?
    /// The minimum stroke size the session set, where it differs from its worker's default; nil: the default.
    public var minimumSize: Double?
    /// How far the session's hand turns what it draws, from its matches (`TiltEstimate`), once one is in; nil:
    /// none yet. Kept so that a session's checkmark detector goes on judging its strokes turned back after the
    /// restart, instead of waiting for two matches again.
    public var tilt: TiltEstimate?

    /// Creates a snapshot.
    public init(
        session: String, seq: UInt32?, eventSeq: UInt64, library: String, orientation: String? = nil,
        checkmark: Bool = true, multistroke: Int = 0, gestures: [String]? = nil, learned: [GestureTemplate]? = nil,
        minimumSize: Double? = nil, tilt: TiltEstimate? = nil, followTilt: Bool? = nil, minimumScore: Double? = nil,
        gestureScores: [String: Double]? = nil
    ) {
        self.session = session
        self.seq = seq
        self.eventSeq = eventSeq
        self.library = library
        self.orientation = orientation
        self.checkmark = checkmark
        self.multistroke = multistroke
        self.gestures = gestures
        self.learned = learned
        self.minimumSize = minimumSize
        self.tilt = tilt
        self.followTilt = followTilt
        self.minimumScore = minimumScore
        self.gestureScores = gestureScores
    }

    /// The session's bucket (`ShardKey.bucket(of:)`), which decides the worker and lane that hold it.
    public var bucket: Int { ShardKey.bucket(of: session) }
}
