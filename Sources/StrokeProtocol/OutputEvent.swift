/// One event a worker published (Protocol/README.md, section 6), decoded from its JSON payload: the fields every
/// event has, and those of its kind, for consumers written in Swift.
///
/// Fields the event's kind does not carry are `nil`, empty or `false`; keys this version does not know are
/// skipped, so that a consumer keeps working when a later worker adds some.
public struct OutputEvent: Sendable, Hashable {
    /// What happened. New kinds may be added; switch with a `default`.
    public struct Kind: Sendable, Hashable, RawRepresentable, CustomStringConvertible {
        /// The kind as it appears in the payload's `event`.
        public let rawValue: String
        /// Creates a kind.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The kind as it appears in the payload's `event`.
        public var description: String { rawValue }

        /// The checkmark detector fired while the stroke is drawn.
        public static let checkmark = Kind(rawValue: "checkmark")
        /// The ended stroke (or gesture) matched a template.
        public static let match = Kind(rawValue: "match")
        /// No template matched well enough, or only one outside the session's choice.
        public static let nomatch = Kind(rawValue: "nomatch")
        /// The session learned the ended stroke as a template.
        public static let learned = Kind(rawValue: "learned")
        /// An input message was refused, or input was lost (`code`).
        public static let error = Kind(rawValue: "error")
        /// The session's state was dropped (`reason`: `closed` or `idle`).
        public static let closed = Kind(rawValue: "closed")
        /// A worker's counters, on the `$system` topic.
        public static let stats = Kind(rawValue: "stats")
        /// The answer to a `ping`.
        public static let pong = Kind(rawValue: "pong")
    }

    /// A gesture and its score, in `candidates` and `unchosen`.
    public struct Candidate: Sendable, Hashable {
        /// The gesture's name.
        public var name: String
        /// Its score, in (0, 1].
        public var score: Double
        /// Whether the score is that of a template the session learned.
        public var learned = false
        /// Whether the template matched drawn the other way round.
        public var backward = false

        /// Creates a candidate.
        public init(name: String, score: Double, learned: Bool = false, backward: Bool = false) {
            self.name = name
            self.score = score
            self.learned = learned
            self.backward = backward
        }
    }

    // MARK: - Every event

    /// What happened.
    public var kind: Kind
    /// The session's id; `nil` on the `$system` topic.
    public var session: String?
    /// The session's event counter (1, 2, 3, …; 0 outside the count, as a `pong`); 0 where the event has none.
    public var eventSeq = 0
    /// The input message this event answers, if one does.
    public var seq: Int?
    /// The stroke the event is about.
    public var stroke: Int?
    /// The pointer that drew it.
    public var pointer: Int?

    // MARK: - By kind

    /// `match`: the gesture; `learned`: the name it was learned as.
    public var name: String?
    /// `match`: the best score.
    public var score: Double?
    /// `match`, `nomatch`: the best gestures, one entry each, best first.
    public var candidates: [Candidate] = []
    /// `nomatch` with `reason` `not_chosen`: the gesture outside the session's choice that the stroke matched.
    public var unchosen: Candidate?
    /// `learned`: the other gesture the stroke comes nearest to, among the session's library and the gestures it
    /// learned before (at the library's threshold or above, strokes of the two may be taken for each other).
    public var nearest: Candidate?
    /// `match`, `nomatch`, `learned`: the stroke's points.
    public var points: Int?
    /// `match`, `nomatch`: the library matched against.
    public var library: String?
    /// `match`: whether the best template is one the session learned.
    public var learned = false
    /// `match`: whether it matched a template drawn the other way round.
    public var backward = false
    /// `match`: how far the stroke is turned from the template it matched, in degrees (−180 to 180, clockwise on
    /// a screen whose y grows downward).
    public var rotation: Double?
    /// `match`, `nomatch`, `learned` in a session that groups strokes: the gesture's stroke ids.
    public var strokes: [Int] = []
    /// `match`, `nomatch`: where the stroke (or gesture) lies, in the producer's coordinates.
    public var bounds: StrokeBounds?
    /// `nomatch`, `closed`: why.
    public var reason: String?
    /// `closed`: the tilt of the player's hand the session had estimated, in whole degrees (clockwise on a screen
    /// whose y grows downward), for the player's next session (`SessionOptions.tilt`); nil where it had none.
    public var tilt: Int?
    /// `error`: the error code (Protocol/README.md, section 7).
    public var code: String?
    /// `error`: what was wrong.
    public var message: String?
    /// `error` `session_reset`: whether the session was restored from a checkpoint or another worker's file.
    public var restored = false
    /// `checkmark`: the index of the point that fired the detector.
    public var pointIndex: Int?
    /// `checkmark`: that point's time.
    public var time: Double?
    /// `learned`: the session's learned templates in all.
    public var templates: Int?
    /// `stats`, `pong`: the worker's shard, `"index/count"`.
    public var shard: String?
    /// `pong`: whether the worker holds state for the session.
    public var known: Bool?
    /// `stats`: the worker's counters by name.
    public var counters: [String: Int] = [:]

    /// Events of the session that did not reach this consumer just before this one: the jump in `eventSeq` from
    /// the session's previous event, less one (Protocol/README.md, section 8). Counted by the consumer
    /// (`WorkerEvents`), not carried in the payload: 0 from a decoder alone, and for a session's first event seen.
    public var eventsLost = 0

    /// Creates an event of `kind` with no other field set.
    public init(kind: Kind) { self.kind = kind }

    /// Whether the worker no longer holds the session's options and learned gestures, so that its producer should
    /// send them again (Protocol/README.md, section 4.1; `StrokeProducer.reteach`): `closed`, and the errors
    /// `session_restart` and `session_reset`, unless the worker brought them back from its checkpoint or another
    /// worker's state file (`restored`).
    public var needsReteach: Bool {
        if kind == .closed { return true }
        guard kind == .error else { return false }
        return code == "session_restart" || code == "session_reset" && !restored
    }
}
