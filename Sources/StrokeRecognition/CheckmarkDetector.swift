import Foundation

/// A streaming checkmark detector: fed the points of one stroke as they arrive, it fires at most once, while
/// the stroke is still being drawn.
///
/// Points are resampled online to an even spacing that doubles whenever `capacity` points are held, so the work
/// per point is O(capacity) = O(1) and the decisions are independent of the stroke's size and sampling rate.
/// After each point the stroke is split at its corner (the resampled point farthest from the chord start → end)
/// into a first, downward leg and a second, upward leg. The detector fires when both legs point the right way,
/// turn sharply enough, are straight, and the second leg has grown to `fireRatio` times the first (more for
/// steep, v-like second legs), which is what tells a check from a v.
public struct CheckmarkDetector: Sendable {
    /// Where and when the detector fired.
    public struct Detection: Sendable, Hashable {
        /// Index of the input point (0-based, over the whole stroke) whose arrival fired the detector.
        public var pointIndex: Int
        /// That point's time.
        public var time: Double
    }

    /// The tuning in use.
    public var configuration: CheckmarkConfiguration { settings.configuration }

    /// The tuning, held by reference: every open stroke of a worker has a detector, and the same (hot) copy of
    /// the tuning keeps each detector small.
    private final class Settings: Sendable {
        let configuration: CheckmarkConfiguration
        init(_ configuration: CheckmarkConfiguration) { self.configuration = configuration }
    }

    private let settings: Settings
    /// Copied out of the tuning: read for every point.
    private let capacity: Int
    private let minimumLegPoints: Int
    /// The detection, once it has happened; it is never reported twice for a stroke.
    public private(set) var detection: Detection?

    /// Resampled points in one buffer, x in `0..<room` and y in `room..<2·room` (apart, so that the corner search
    /// runs over SIMD vectors; together, so that a point touches one allocation); the first `walk.count` are in
    /// use.
    private var coordinates: [Double]
    private let room: Int
    private var walk: Walk
    private var pointsSeen = 0

    /// The online resampling: its state is copied into locals for a batch of points and back after it.
    private struct Walk {
        /// Resampled points in use.
        var count = 0
        var spacing: Double
        /// Path length since the last resampled point.
        var sinceLast = 0.0
        var lastRaw: SIMD2<Double>?
    }

    /// Creates a detector for one stroke.
    public init(configuration: CheckmarkConfiguration = .default) {
        self.settings = Settings(configuration)
        self.capacity = configuration.capacity
        self.minimumLegPoints = configuration.minimumLegPoints
        self.walk = Walk(spacing: configuration.initialSpacing ?? 0)
        // Room for `capacity + 1` points: decimation runs when a point passes the capacity.
        self.room = max(configuration.capacity, 1) + 1
        self.coordinates = Array(repeating: 0, count: 2 * room)
    }

    /// Forgets the stroke, keeping the buffer, to start the next one.
    public mutating func reset() {
        detection = nil
        walk = Walk(spacing: configuration.initialSpacing ?? 0)
        pointsSeen = 0
    }

    /// Number of points fed so far.
    public var pointCount: Int { pointsSeen }

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
        let first = pointsSeen
        pointsSeen += points.count
        guard detection == nil else { return nil }
        let (room, capacity, legPoints) = (room, capacity, minimumLegPoints)
        var walk = self.walk
        let settings = self.settings
        let fired = coordinates.withUnsafeMutableBufferPointer { buffer -> Int? in
            let xs = buffer.baseAddress!
            let ys = xs + room
            for offset in points.indices {
                let point = points[offset]
                guard point.x.isFinite, point.y.isFinite,
                    Self.append(point.position, to: &walk, xs: xs, ys: ys, capacity: capacity)
                else { continue }
                if Self.mightFire(count: walk.count, xs: xs, ys: ys, legPoints: legPoints),
                    Self.fires(
                        UnsafeBufferPointer(start: xs, count: walk.count),
                        UnsafeBufferPointer(start: ys, count: walk.count), spacing: walk.spacing,
                        configuration: settings.configuration)
                {
                    return offset
                }
            }
            return nil
        }
        self.walk = walk
        guard let fired else { return nil }
        detection = Detection(pointIndex: first + fired, time: points[fired].time)
        return detection
    }

    /// Resamples online; returns whether a new resampled point was emitted.
    @inline(__always)
    private static func append(
        _ point: SIMD2<Double>, to walk: inout Walk, xs: UnsafeMutablePointer<Double>,
        ys: UnsafeMutablePointer<Double>, capacity: Int
    ) -> Bool {
        guard let previous = walk.lastRaw else {
            walk.lastRaw = point
            push(point, to: &walk, xs: xs, ys: ys)
            return false
        }
        walk.lastRaw = point
        var remaining = StrokeGeometry.distance(previous, point)
        if !(walk.spacing > 0) {
            // Relative spacing: the first movement sets the scale.
            guard remaining > 0 else { return false }
            walk.spacing = remaining
        }
        // Emit points every `spacing` along the segment, measured from its start: one square root per input
        // point, however many points it emits.
        let length = remaining
        let segmentStart = previous
        let delta = point - previous
        var travelled = 0.0
        var emitted = false
        while walk.sinceLast + remaining >= walk.spacing, remaining > 0 {
            travelled += walk.spacing - walk.sinceLast
            let next = segmentStart + delta * (travelled / length)
            push(next, to: &walk, xs: xs, ys: ys)
            emitted = true
            remaining = max(0, length - travelled)
            walk.sinceLast = 0
            if walk.count > capacity { decimate(&walk, xs: xs, ys: ys) }
        }
        walk.sinceLast += remaining
        return emitted
    }

    /// Appends a resampled point (there is room: `count <= capacity` before it).
    @inline(__always)
    private static func push(
        _ point: SIMD2<Double>, to walk: inout Walk, xs: UnsafeMutablePointer<Double>, ys: UnsafeMutablePointer<Double>
    ) {
        xs[walk.count] = point.x
        ys[walk.count] = point.y
        walk.count += 1
    }

    /// Keeps every other resampled point and doubles the spacing.
    private static func decimate(_ walk: inout Walk, xs: UnsafeMutablePointer<Double>, ys: UnsafeMutablePointer<Double>)
    {
        let droppedLast = walk.count % 2 == 0
        var write = 0
        for read in stride(from: 0, to: walk.count, by: 2) {
            xs[write] = xs[read]
            ys[write] = ys[read]
            write += 1
        }
        walk.count = write
        if droppedLast { walk.sinceLast += walk.spacing }
        walk.spacing *= 2
    }

    // MARK: - Deciding

    /// The early out, inlined before the O(n) test of `fires`, where most points stop: both legs need points,
    /// and the pen must be moving up (screen coordinates) and not far to the left over the last few resampled
    /// points, as it does on a check's straight second leg.
    @inline(__always)
    private static func mightFire(
        count n: Int, xs: UnsafeMutablePointer<Double>, ys: UnsafeMutablePointer<Double>, legPoints k: Int
    ) -> Bool {
        guard n >= 2 * k + 1 else { return false }
        let recentX = xs[n - 1] - xs[n - 1 - k]
        let recentY = ys[n - 1] - ys[n - 1 - k]
        return recentY < 0 && recentX > 0.5 * recentY
    }

    /// The full test, once `mightFire` passed: split the resampled points at the corner, check both legs and the
    /// turn.
    @inline(never)
    private static func fires(
        _ xs: UnsafeBufferPointer<Double>, _ ys: UnsafeBufferPointer<Double>, spacing: Double,
        configuration c: CheckmarkConfiguration
    ) -> Bool {
        let n = xs.count
        func point(_ index: Int) -> SIMD2<Double> { SIMD2(xs[index], ys[index]) }
        let start = point(0)
        let end = point(n - 1)
        let chord = end - start
        let chordLength = (chord * chord).sum().squareRoot()
        guard chordLength > 0 else { return false }
        let corner = Self.corner(xs, ys, count: n, start: start, chord: chord)
        guard corner >= c.minimumLegPoints, n - 1 - corner >= c.minimumLegPoints else { return false }
        let first = point(corner) - start
        let second = end - point(corner)
        let firstLength = (first * first).sum().squareRoot()
        let secondLength = (second * second).sum().squareRoot()
        guard firstLength > 0, secondLength > 0 else { return false }
        let ratio = secondLength / firstLength
        guard ratio >= min(c.fireRatio, c.steepFireRatio) else { return false }
        let secondDirection = atan2(second.y, second.x) * 180 / .pi
        let firstDirection = atan2(first.y, first.x) * 180 / .pi
        let steep = -secondDirection > c.steepAngle && firstDirection > c.steepFirstAngle
        guard ratio >= (steep ? c.steepFireRatio : c.fireRatio) else { return false }
        let turn = firstDirection - secondDirection
        guard c.firstLegDirection.contains(firstDirection), c.secondLegDirection.contains(secondDirection),
            c.turn.contains(turn)
        else { return false }
        let firstArc = Double(corner) * spacing
        let secondArc = Double(n - 1 - corner) * spacing
        guard firstArc / firstLength <= c.firstLegMaxCurl, secondArc / secondLength <= c.secondLegMaxCurl else {
            return false
        }
        let k = max(2, n / 12)
        let into = point(corner) - point(max(0, corner - k))
        let outOf = point(min(n - 1, corner + k)) - point(corner)
        let localTurn = (atan2(into.y, into.x) - atan2(outOf.y, outOf.x)) * 180 / .pi
        return localTurn / turn >= c.minimumSharpness
    }
}
