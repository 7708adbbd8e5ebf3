import Foundation

/// A streaming checkmark detector: fed the points of one stroke as they arrive, it fires at most once, while
/// the stroke is still being drawn.
///
/// Points are resampled online to an even spacing that doubles whenever `capacity` points are held, so the work
/// per point is O(capacity) = O(1) and the decisions are independent of the stroke's size and sampling rate.
/// After each point the stroke is split at its corner (the resampled point farthest from the chord start → end)
/// into a first, downward leg and a second, upward leg. The detector fires when both legs point the right way,
/// turn sharply enough, are straight, and the second leg has grown to `fireRatio` times the first, in height as
/// well as in length (more for steep, v-like second legs), which is what tells a check from a v; or to
/// `earlyFireFactor` of that while the second leg is still at speed, as a check's flick is and a v's, slowing to
/// a stop near the first leg's length, is not (the resampled points keep their times for this). A leg's
/// straightness is its path through nine of its resampled points ÷ its chord, which a finger's jitter barely
/// changes; and it never fires in the stroke's first `minimumDuration` (100 ms), where a hook of the landing
/// finger would look like a small check.
///
/// A detector owns its buffer of resampled points. `State` is the same detector without the buffer, for callers
/// that keep it in memory of their own.
public struct CheckmarkDetector: Sendable {
    /// Where and when the detector fired.
    public struct Detection: Sendable, Hashable {
        /// Index of the input point (0-based, over the whole stroke) whose arrival fired the detector.
        public var pointIndex: Int
        /// That point's time.
        public var time: Double
    }

    private var state: State
    /// The resampled points (`State.bufferCount` doubles).
    private var coordinates: [Double]

    /// The cosine and sine of the turn given to every point before it is judged; nil for none.
    private let turn: SIMD2<Double>?

    /// Creates a detector for one stroke, which judges its points turned about the origin by `degrees` (positive
    /// from the x axis toward the y axis: clockwise on a screen whose y grows downward), as a tilted player's
    /// strokes are turned back upright (`TiltEstimate.correction`). Default: `0`, as drawn.
    public init(configuration: CheckmarkConfiguration = .default, turnedBy degrees: Double = 0) {
        self.state = State(configuration: configuration)
        self.coordinates = Array(repeating: 0, count: state.bufferCount)
        self.turn = degrees == 0 || !degrees.isFinite ? nil : Self.turn(degrees: degrees)
    }

    /// The cosine and sine of a turn by `degrees`, as `State.add(positions:times:buffer:turn:)` takes them.
    public static func turn(degrees: Double) -> SIMD2<Double> {
        let radians = degrees * .pi / 180
        return SIMD2(cos(radians), sin(radians))
    }

    /// `turn(degrees:)` of a whole number of degrees, read from a table: the same values, for a caller that turns
    /// every message's points (a tilted session's, in the worker), where a sine and a cosine cost 134 of 1,882
    /// instructions a single-point message (`make profile` with `TILT=30`).
    @inlinable
    public static func turn(wholeDegrees degrees: Int8) -> SIMD2<Double> {
        wholeDegreeTurns[Int(degrees) - Int(Int8.min)]
    }

    /// `turn(degrees:)` of every `Int8`, from `Int8.min` up.
    @usableFromInline static let wholeDegreeTurns: [SIMD2<Double>] = (Int(Int8.min)...Int(Int8.max)).map {
        turn(degrees: Double($0))
    }

    /// The tuning in use.
    public var configuration: CheckmarkConfiguration { state.configuration }

    /// The detection, once it has happened; it is never reported twice for a stroke.
    public var detection: Detection? { state.detection }

    /// Number of points fed so far.
    public var pointCount: Int { state.pointCount }

    /// Whether the stroke looked like a check under a millisecond after its first point and was held back: its
    /// times advance as if they were seconds, not milliseconds (`State.timesLookLikeSeconds`).
    public var timesLookLikeSeconds: Bool { state.timesLookLikeSeconds }

    /// Forgets the stroke, keeping the buffer, to start the next one.
    public mutating func reset() {
        state.reset()
    }

    // MARK: - Feeding

    /// Feeds one point; returns the detection if this point fired it. Non-finite points are ignored.
    @discardableResult
    public mutating func add(_ point: StrokePoint) -> Detection? {
        withUnsafePointer(to: point) { add(contentsOf: UnsafeBufferPointer(start: $0, count: 1)) }
    }

    /// Feeds a batch of points (as touch frameworks coalesce them); returns the detection if one of them fired
    /// it. The result is the same as feeding them one by one.
    @discardableResult
    @inlinable
    public mutating func add(contentsOf points: some Sequence<StrokePoint>) -> Detection? {
        if let fired = points.withContiguousStorageIfAvailable({ add(contentsOf: $0) }) { return fired }
        var fired: Detection?
        for point in points {
            if let detection = add(point) { fired = detection }
        }
        return fired
    }

    /// Feeds a batch of points held in a buffer; returns the detection if one of them fired it. The result is
    /// the same as feeding them one by one: the detector's state stays in registers across the batch.
    @discardableResult
    public mutating func add(contentsOf points: UnsafeBufferPointer<StrokePoint>) -> Detection? {
        coordinates.withUnsafeMutableBufferPointer { buffer in
            guard let turn else { return state.add(contentsOf: points, buffer: buffer.baseAddress!) }
            let positions = points.map(\.position)
            return positions.withUnsafeBufferPointer {
                state.add(
                    positions: $0, times: TimeColumn(points, time: \.time), buffer: buffer.baseAddress!, turn: turn)
            }
        }
    }
}
