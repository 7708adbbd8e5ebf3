/// One touch point on the wire.
public struct WirePoint: Sendable, Hashable {
    /// Horizontal coordinate.
    public var x: Double
    /// Vertical coordinate (grows downward, by touch convention).
    public var y: Double
    /// Time in milliseconds on the producer's clock.
    public var t: Double
    /// Pressure in `0...1`, or `nil` when not reported.
    public var pressure: Float?

    /// Creates a point.
    public init(x: Double, y: Double, t: Double, pressure: Float? = nil) {
        self.x = x
        self.y = y
        self.t = t
        self.pressure = pressure
    }
}

/// Per-session options set by an `options` message.
public struct SessionOptions: Sendable, Hashable {
    /// Template library to match against, by name; `nil` keeps the current one.
    public var library: String?
    /// `"sensitive"` or `"invariant"`; `nil` keeps the library's own.
    public var orientation: String?
    /// Whether the checkmark detector runs; `nil` keeps the current setting.
    public var checkmark: Bool?
    /// Whether the checkmark detector judges the session's strokes turned back by the tilt its matches show;
    /// `false` also forgets the tilt estimated so far. `nil` keeps the current setting.
    public var followTilt: Bool?
    /// A gesture the session learned to forget (every template of that name), or `"*"` for all of them.
    public var forget: String?
    /// Milliseconds a gesture of several strokes waits for its next stroke (`0...maximumMultistrokeGap`); 0 makes
    /// every stroke a gesture of its own. `nil` keeps the current setting.
    public var multistroke: Int?
    /// The only gestures the session's strokes may match from now on, or all of them again; `nil` keeps the
    /// current choice.
    public var gestures: Gestures?
    /// The size, in the producer's coordinates, that a stroke's bounding box (a gesture's, over all its strokes)
    /// must reach on its longer side to be matched: a smaller one, a tap or a finger's rest, ends with a `nomatch`
    /// (`too_small`). 0 matches every stroke; `nil` keeps the current setting.
    public var minimumSize: Double?
    /// The score, in `0...1`, that the session's strokes must reach to match, as well as their library's own
    /// `minimumScore` (the higher of the two applies): a game that wants a gesture drawn well at some moments raises
    /// it, and 0 leaves the library's alone. `nil` keeps the current setting.
    public var minimumScore: Double?
    /// Scores, in `0...1`, that the session's strokes must reach to match the gestures of these names (as each
    /// `LearnedName.isValid` requires, at most `maximumGestureScores`), as well as their library's threshold for them
    /// and `minimumScore` (the highest applies): one spell that must be drawn well among gestures that need not be.
    /// They replace the session's earlier ones; empty drops them. `nil` keeps the current ones.
    public var gestureScores: [String: Double]?
    /// The tilt of the player's hand, in whole degrees from `-maximumTilt` to `maximumTilt` (clockwise on a screen
    /// whose y grows downward), that the session's tilt estimate starts from as if its matches had shown it: a game
    /// that kept a player's tilt from an earlier session (a `closed` event's `tilt`) has their first strokes judged
    /// turned back at once. Only where the session follows its tilt (`followTilt`). `nil` keeps the estimate.
    public var tilt: Int?

    /// The most a session's tilt may be given as (`tilt`), either way: the most its estimate holds.
    public static let maximumTilt = 45

    /// Most gestures one `options` message may give a score of their own (`gestureScores`).
    public static let maximumGestureScores = 32

    /// The longest wait for a gesture's next stroke, in milliseconds.
    public static let maximumMultistrokeGap = 10_000

    /// Which gestures a session's strokes may match (`options` with `gestures`).
    public enum Gestures: Sendable, Hashable {
        /// Every gesture of the session's library and of those it learned (`"gestures": "*"`; the default).
        case all
        /// Only the gestures of these names (1 to `maximumCount` names, each as `LearnedName.isValid` requires):
        /// a stroke is matched as if the library and the learned gestures held no others.
        case only([String])

        /// Most names one `options` message may list.
        public static let maximumCount = 32
    }

    /// Creates options.
    public init(
        library: String? = nil, orientation: String? = nil, checkmark: Bool? = nil, forget: String? = nil,
        multistroke: Int? = nil, gestures: Gestures? = nil, minimumSize: Double? = nil, followTilt: Bool? = nil,
        minimumScore: Double? = nil, gestureScores: [String: Double]? = nil, tilt: Int? = nil
    ) {
        self.library = library
        self.orientation = orientation
        self.checkmark = checkmark
        self.forget = forget
        self.multistroke = multistroke
        self.gestures = gestures
        self.minimumSize = minimumSize
        self.followTilt = followTilt
        self.minimumScore = minimumScore
        self.gestureScores = gestureScores
        self.tilt = tilt
    }
}

/// The rules for the names of gestures a session learns (`end` with `learn`, `options` with `forget`) or chooses
/// (`options` with `gestures`).
public enum LearnedName {
    /// Longest name, in UTF-8 bytes.
    public static let maximumBytes = 64
    /// The `forget` value that names every learned gesture (so no gesture may be called that).
    public static let all = "*"

    /// Whether `name` may name a learned gesture: 1 to `maximumBytes` bytes, no control characters, not `all`.
    public static func isValid(_ name: String) -> Bool {
        let bytes = name.utf8
        return !bytes.isEmpty && bytes.count <= maximumBytes && name != all
            && !name.unicodeScalars.contains { $0.properties.generalCategory == .control }
    }
}

/// A decoded input message of wire protocol v1.
///
/// Decoders fill an existing value (`InputDecoder.decode(_:into:)`) so that the `points` buffer keeps its
/// capacity from message to message: decoding allocates nothing once warm.
public struct InputMessage: Sendable, Hashable {
    /// The message types.
    public enum Kind: UInt8, Sendable, Hashable, CaseIterable {
        /// A stroke starts (its first points may ride along).
        case begin = 1
        /// More points of an open stroke.
        case points = 2
        /// The stroke ends (its last points may ride along); it is matched against the library.
        case end = 3
        /// The stroke is abandoned without a result.
        case cancel = 4
        /// The session is over; its state is dropped.
        case close = 5
        /// Per-session options (JSON only).
        case options = 6
        /// A probe of the way to the session's worker and back (JSON only): answered with a `pong` event, outside
        /// the session's numbering; it creates no state, and leaves a session the worker holds as it was but for
        /// its idle time (a ping counts as activity).
        case ping = 7

        /// The `type` string of the JSON form.
        public var name: String {
            switch self {
            case .begin: "begin"
            case .points: "points"
            case .end: "end"
            case .cancel: "cancel"
            case .close: "close"
            case .options: "options"
            case .ping: "ping"
            }
        }
    }

    /// The message type.
    public var kind: Kind = .points
    /// The producer's per-session sequence number.
    public var sequence: UInt32 = 0
    /// The producer's stroke id, unique among a session's open strokes.
    public var stroke: UInt32 = 0
    /// The pointer (finger) id, echoed in events. Default: `0`.
    public var pointer: UInt16 = 0
    /// The points carried, in order.
    public var points: [WirePoint] = []
    /// Options, for `.options` messages.
    public var options: SessionOptions? {
        get { optionsBox?.value }
        set { optionsBox = newValue.map(OptionsBox.init) }
    }
    /// `options`, boxed: a message clears them for every message it is reused for, and clearing a reference takes
    /// a test, where clearing an optional `SessionOptions` in place runs its outlined tag test and destroy (69
    /// instructions per message, measured with `make profile`, once it had grown its `multistroke`).
    @usableFromInline var optionsBox: OptionsBox?
    /// For `.end` messages: the name under which the session learns the stroke as a template of its own, instead
    /// of matching it.
    public var learn: String?
    /// For `.end` messages: the stroke is the last of its gesture, which is matched at once (in a session that
    /// groups strokes into gestures; see `SessionOptions.multistroke`).
    public var last = false
    /// Whether the message carries `seq`: every one does but a `ping`, for which it is optional (its `pong` then
    /// answers `seq` null).
    public var hasSequence = true

    /// Creates an empty message.
    public init() {}

    /// Creates a message.
    public init(
        kind: Kind, sequence: UInt32, stroke: UInt32 = 0, pointer: UInt16 = 0, points: [WirePoint] = [],
        options: SessionOptions? = nil, learn: String? = nil, last: Bool = false
    ) {
        self.kind = kind
        self.sequence = sequence
        self.stroke = stroke
        self.pointer = pointer
        self.points = points
        self.options = options
        self.learn = learn
        self.last = last
    }

    /// Clears the message for reuse, keeping the points' capacity.
    @inlinable
    public mutating func reset() {
        kind = .points
        sequence = 0
        stroke = 0
        pointer = 0
        // `removeAll(keepingCapacity:)` goes through `replaceSubrange` (about 80 instructions); the few points of a
        // message of single points are dropped one at a time for a fraction of that.
        if points.count <= 4 {
            while !points.isEmpty { points.removeLast() }
        } else {
            points.removeAll(keepingCapacity: true)
        }
        if optionsBox != nil { optionsBox = nil }
        // Tested first: storing nil over nil still calls the release of the old value (11 instructions a message).
        if learn != nil { learn = nil }
        last = false
        hasSequence = true
    }
}

/// An immutable box around `SessionOptions` (see `InputMessage.optionsBox`).
@usableFromInline
final class OptionsBox: Sendable, Hashable {
    let value: SessionOptions

    init(_ value: SessionOptions) { self.value = value }

    @usableFromInline
    static func == (lhs: OptionsBox, rhs: OptionsBox) -> Bool { lhs.value == rhs.value }

    @usableFromInline
    func hash(into hasher: inout Hasher) { value.hash(into: &hasher) }
}
