import StrokeRecognition

/// A stroke being drawn: its points so far and its checkmark detector, both in `storage`.
struct OpenStroke {
    var id: UInt32
    var pointer: UInt16
    /// Whether the checkmark detector runs for this stroke (the session's option).
    var detecting: Bool
    /// Set when the stroke passed the per-stroke point limit: its points are dropped and it ends without a match.
    var overflowed = false
    /// Points and detector in one allocation (pooled with the stroke). The detector is kept even when not
    /// detecting, so that the hot loop never tests an optional.
    var storage: StrokeStorage

    init(id: UInt32, pointer: UInt16, detecting: Bool, checkmark: CheckmarkConfiguration) {
        self.id = id
        self.pointer = pointer
        self.detecting = detecting
        self.storage = StrokeStorage.make(
            pointCapacity: StrokeStorage.initialPointCapacity,
            detector: CheckmarkDetector.State(configuration: checkmark))
    }

    /// Points received so far (kept).
    var pointCount: Int { storage.header.pointCount }
}

/// The state of one session, owned by exactly one lane thread and updated in place.
struct Session {
    /// The session id's bytes (the input topic without its shard key).
    var key: SessionKey
    var hash: UInt64
    var sequence = SequenceTracker()
    /// Last event sequence number published (events are numbered from 1).
    var eventSequence: UInt64 = 0
    /// Lane clock (seconds) of the last message.
    var lastActive: UInt32
    /// Index of the session's library in the registry.
    var library: Int32 = 0
    /// Orientation override: nil = the library's own.
    var invariant: Bool?
    var checkmark = true
    /// Open strokes; usually zero or one, so a small array (no allocation while idle).
    var strokes: [OpenStroke] = []

    init(key: SessionKey, hash: UInt64, now: UInt32) {
        self.key = key
        self.hash = hash
        self.lastActive = now
    }
}
