import Foundation

/// The geometric steps of template matching, as small pure functions.
///
/// Each step is public so that it can be tested against hand-computed outputs: resampling, the centroid,
/// translation, uniform scaling, rotation and flattening into a unit vector.
public enum StrokeGeometry {
    // MARK: - Length and resampling

    /// The length of the polyline through `points`.
    public static func pathLength(_ points: [SIMD2<Double>]) -> Double {
        guard points.count > 1 else { return 0 }
        var length = 0.0
        for index in 1..<points.count {
            length += distance(points[index - 1], points[index])
        }
        return length
    }

    /// The power of two that brings a stroke of `extent` (above 0) to about 1, when its segments' squared lengths
    /// would overflow or vanish (`extent` beyond 2^500 or below 2^-500, or infinite: finite coordinates more than
    /// `Double.greatestFiniteMagnitude` apart); nil for every other stroke, which is measured as it is.
    static func rescalingExponent(_ extent: Double) -> Int? {
        guard extent.isFinite else { return -1024 }
        let exponent = Int(extent.exponent)
        return abs(exponent) > 500 ? -exponent : nil
    }

    /// `points` (finite) scaled by the power of two that `rescalingExponent` gives for their extent, and its
    /// exponent; else themselves and 0. Exact, so that lengths measured on them compare as the path's do, however
    /// large or small its coordinates (`pathLength` of a path 1e-300 long is 0, of one 1e200 long infinite).
    static func measurable(_ points: [SIMD2<Double>]) -> (points: [SIMD2<Double>], exponent: Int) {
        guard var low = points.first else { return (points, 0) }
        var high = low
        for point in points {
            low = pointwiseMin(low, point)
            high = pointwiseMax(high, point)
        }
        let extent = (high - low).max()
        guard extent > 0, let exponent = rescalingExponent(extent) else { return (points, 0) }
        return (points.map { scaled($0, by: exponent) }, exponent)
    }

    /// `point` times 2^`exponent`, exactly (but where the result is subnormal).
    static func scaled(_ point: SIMD2<Double>, by exponent: Int) -> SIMD2<Double> {
        SIMD2(
            Double(sign: .plus, exponent: exponent, significand: point.x),
            Double(sign: .plus, exponent: exponent, significand: point.y))
    }

    /// Resamples the polyline to exactly `count` points, evenly spaced along its length.
    ///
    /// The first and last points are kept. Each target distance is computed from the start (`k * length / (count
    /// - 1)`), so rounding never adds or drops a point. A polyline of zero length yields `count` copies of its
    /// first point; an empty one yields an empty array. A polyline whose segments' squared lengths overflow or
    /// vanish (coordinates over about 1e154 or under about 1e-154 apart) is walked scaled by a power of two
    /// (`measurable`), and the points it yields scaled back: its length is not 0 or infinite there.
    public static func resample(_ points: [SIMD2<Double>], count: Int) -> [SIMD2<Double>] {
        precondition(count >= 2, "resample needs at least 2 output points")
        guard !points.isEmpty else { return [] }
        let (measured, exponent) = measurable(points)
        let resampled = [SIMD2<Double>](unsafeUninitializedCapacity: count) { buffer, initialized in
            measured.withUnsafeBufferPointer { input in
                resample(input, into: buffer, origin: .zero, scale: 1)
            }
            initialized = count
        }
        return exponent == 0 ? resampled : resampled.map { scaled($0, by: -exponent) }
    }

    /// Resamples `input` into every slot of `output` (at least 2), mapping each point `p` to
    /// `(p - origin) * scale` on the way. `input` must not be empty.
    ///
    /// Resampling commutes with this uniform map, so the walk runs on the raw points with each segment's length
    /// computed once, and only the output points are mapped.
    public static func resample(
        _ input: UnsafeBufferPointer<SIMD2<Double>>,
        into output: UnsafeMutableBufferPointer<SIMD2<Double>>,
        origin: SIMD2<Double>,
        scale: Double
    ) {
        let count = output.count
        precondition(count >= 2 && !input.isEmpty)
        let segments = input.count - 1
        // The segments' lengths, then the distance along the path to each input point (`distances[s]`, to
        // input[s]) and four slots more for the search below.
        let room = max(segments, 1)
        Workspace.with(byteCount: (2 * room + 5) * MemoryLayout<Double>.stride) { workspace in
            let lengths = workspace.bindMemory(to: Double.self, capacity: 2 * room + 5)
            let distances = lengths + room
            distances[0] = 0
            let total = segmentLengths(
                from: input[0], count: segments, position: { input[$0 + 1] }, into: lengths, distances: distances
            ).total
            let first = (input[0] - origin) * scale
            guard total > 0 else {
                for k in 0..<count { output[k] = first }
                return
            }
            output[0] = first
            let interval = total / Double(count - 1)
            // Output point k lies on the segment input[s] → input[s + 1] with s the number of input points after
            // the first, short of the last, whose distance is below k's (a walk from the start that passes a point
            // while its distance is below k's stops there; the distances never decrease). Found four points at a
            // time, by counting, where a walk that tests one at a time mispredicted about once per output point:
            // 270 ns instead of 350 for a stroke of the $1 logs (79 points on average) to 32. +∞ from `segments`
            // on stops every count at the last segment. The same values in the same order as the walk: the same
            // bits.
            for pad in 0..<4 { distances[segments + pad] = .infinity }
            var segment = 0  // the segment input[segment] → input[segment + 1]
            for k in 1..<(count - 1) {
                let target = Double(k) * interval
                var passed = 4
                while passed == 4 {
                    let next = distances + segment + 1
                    passed =
                        (next[0] < target ? 1 : 0) + (next[1] < target ? 1 : 0) + (next[2] < target ? 1 : 0)
                        + (next[3] < target ? 1 : 0)
                    segment += passed
                }
                let travelled = distances[segment]  // distance from the start to input[segment]
                let length = lengths[segment]
                let t = length > 0 ? min(1, max(0, (target - travelled) / length)) : 0
                let a = input[segment]
                output[k] = (a + (input[min(segment + 1, segments)] - a) * t - origin) * scale
            }
            output[count - 1] = (input[input.count - 1] - origin) * scale
        }
    }

    /// Which of the `count` points that `resample` spaces evenly along `points` lie on a jump: a segment from one
    /// stroke's last point to the next one's first (`strokeStarts`, ascending), drawn in the air. A point where a
    /// stroke ends or begins is on the stroke.
    static func jumps(_ points: UnsafeBufferPointer<SIMD2<Double>>, strokeStarts: UnsafeBufferPointer<Int>, count: Int)
        -> [Bool]
    {
        var inAir = [Bool](repeating: false, count: count)
        guard count >= 2, points.count >= 2 else { return inAir }
        // The distance along the path to each jump's ends.
        var spans = [(from: Double, to: Double)]()
        var travelled = 0.0
        var next = 0
        for index in 1..<points.count {
            let length = distance(points[index - 1], points[index])
            while next < strokeStarts.count && strokeStarts[next] < index { next += 1 }
            if next < strokeStarts.count && strokeStarts[next] == index {
                spans.append((travelled, travelled + length))
            }
            travelled += length
        }
        guard travelled > 0 else { return inAir }
        let interval = travelled / Double(count - 1)
        for span in spans where span.to > span.from {
            let first = max(1, Int((span.from / interval).rounded(.down)))
            for k in first..<(count - 1) {
                let target = Double(k) * interval
                if target >= span.to { break }
                if target > span.from { inAir[k] = true }
            }
        }
        return inAir
    }

    /// Writes the lengths of the segments `start → position(0)` and `position(k - 1) → position(k)` for
    /// `k < count` to `lengths`; returns whether all are finite (false for a NaN or infinite point, or an
    /// overflow) and their sum, added in order. With `distances`, writes the sum so far after each segment `k`
    /// to `distances[k + 1]`: the distance along the path to `position(k)`.
    ///
    /// Four segments at a time: the square roots, the slow part, run four to an instruction. Each length is
    /// computed as `distance` computes it, so the values are the same bits. The resampler and the checkmark
    /// detector share it.
    @inline(__always)
    static func segmentLengths(
        from start: SIMD2<Double>, count: Int, position: (Int) -> SIMD2<Double>,
        into lengths: UnsafeMutablePointer<Double>, distances: UnsafeMutablePointer<Double>? = nil
    ) -> (finite: Bool, total: Double) {
        var previous = start
        var k = 0
        var finite = true
        var total = 0.0
        while k + 4 <= count {
            let (p0, p1, p2, p3) = (position(k), position(k + 1), position(k + 2), position(k + 3))
            let dx = SIMD4(p0.x, p1.x, p2.x, p3.x) - SIMD4(previous.x, p0.x, p1.x, p2.x)
            let dy = SIMD4(p0.y, p1.y, p2.y, p3.y) - SIMD4(previous.y, p0.y, p1.y, p2.y)
            let four = (dx * dx + dy * dy).squareRoot()
            UnsafeMutableRawPointer(lengths + k).storeBytes(of: four, as: SIMD4<Double>.self)
            // A NaN or infinite length fails the comparison.
            finite = finite && all(four .< SIMD4(repeating: .infinity))
            total += four[0]
            distances?[k + 1] = total
            total += four[1]
            distances?[k + 2] = total
            total += four[2]
            distances?[k + 3] = total
            total += four[3]
            distances?[k + 4] = total
            previous = p3
            k += 4
        }
        while k < count {
            let point = position(k)
            lengths[k] = distance(previous, point)
            finite = finite && lengths[k] < .infinity
            total += lengths[k]
            distances?[k + 1] = total
            previous = point
            k += 1
        }
        return (finite, total)
    }

    // MARK: - Translation, scale, rotation

    /// The mean of the points.
    public static func centroid(_ points: [SIMD2<Double>]) -> SIMD2<Double> {
        guard !points.isEmpty else { return .zero }
        var sum = SIMD2<Double>.zero
        for point in points { sum += point }
        return sum / Double(points.count)
    }

    /// The points moved so that their centroid is the origin.
    public static func translatedToOrigin(_ points: [SIMD2<Double>]) -> [SIMD2<Double>] {
        let center = centroid(points)
        return points.map { $0 - center }
    }

    /// The root-mean-square distance of the points from the origin.
    public static func rmsRadius(_ points: [SIMD2<Double>]) -> Double {
        guard !points.isEmpty else { return 0 }
        var sum = 0.0
        for point in points { sum += (point * point).sum() }
        return (sum / Double(points.count)).squareRoot()
    }

    /// The points scaled uniformly so that their RMS radius is 1.
    ///
    /// Uniform scaling keeps the aspect ratio, so a straight line or a bracket keeps its shape instead of being
    /// blown up along its thin side. Points with no extent are returned unchanged.
    public static func scaledToUnitRadius(_ points: [SIMD2<Double>]) -> [SIMD2<Double>] {
        let radius = rmsRadius(points)
        guard radius > 0, radius.isFinite else { return points }
        return points.map { $0 / radius }
    }

    /// The points rotated by `angle` radians about the origin (counter-clockwise in a y-up frame).
    public static func rotated(_ points: [SIMD2<Double>], by angle: Double) -> [SIMD2<Double>] {
        let c = cos(angle)
        let s = sin(angle)
        // Both coordinates are computed from the original point: x is not overwritten before y is computed.
        return points.map { SIMD2($0.x * c - $0.y * s, $0.x * s + $0.y * c) }
    }

    /// The angle of the line from the centroid to the first point (the $1 "indicative angle").
    public static func indicativeAngle(_ points: [SIMD2<Double>]) -> Double {
        guard let first = points.first else { return 0 }
        let center = centroid(points)
        return atan2(first.y - center.y, first.x - center.x)
    }

    /// Flattens the points into `[x0, y0, x1, y1, …]` scaled to unit Euclidean norm.
    public static func unitVector(_ points: [SIMD2<Double>]) -> [Float] {
        var norm = 0.0
        for point in points { norm += (point * point).sum() }
        norm = norm.squareRoot()
        let scale = norm > 0 ? 1 / norm : 0
        var vector = [Float]()
        vector.reserveCapacity(points.count * 2)
        for point in points {
            vector.append(Float(point.x * scale))
            vector.append(Float(point.y * scale))
        }
        return vector
    }

    // MARK: - Helpers

    /// The Euclidean distance between two points.
    @inlinable
    public static func distance(_ a: SIMD2<Double>, _ b: SIMD2<Double>) -> Double {
        let d = b - a
        return (d * d).sum().squareRoot()
    }
}
