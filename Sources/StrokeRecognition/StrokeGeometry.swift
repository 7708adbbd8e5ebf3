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

    /// Resamples the polyline to exactly `count` points, evenly spaced along its length.
    ///
    /// The first and last points are kept. Each target distance is computed from the start (`k * length / (count
    /// - 1)`), so rounding never adds or drops a point. A polyline of zero length yields `count` copies of its
    /// first point; an empty one yields an empty array.
    public static func resample(_ points: [SIMD2<Double>], count: Int) -> [SIMD2<Double>] {
        precondition(count >= 2, "resample needs at least 2 output points")
        guard !points.isEmpty else { return [] }
        return [SIMD2<Double>](unsafeUninitializedCapacity: count) { buffer, initialized in
            points.withUnsafeBufferPointer { input in
                resample(input, into: buffer, origin: .zero, scale: 1)
            }
            initialized = count
        }
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
        Workspace.with(byteCount: max(segments, 1) * MemoryLayout<Double>.stride) { workspace in
            let lengths = workspace.bindMemory(to: Double.self, capacity: max(segments, 1))
            let total = segmentLengths(input, into: lengths)
            let first = (input[0] - origin) * scale
            guard total > 0 else {
                for k in 0..<count { output[k] = first }
                return
            }
            output[0] = first
            let interval = total / Double(count - 1)
            var segment = 0  // the segment input[segment] → input[segment + 1]
            var travelled = 0.0  // distance from the start to input[segment]
            for k in 1..<(count - 1) {
                let target = Double(k) * interval
                while segment < segments - 1 && travelled + lengths[segment] < target {
                    travelled += lengths[segment]
                    segment += 1
                }
                let length = lengths[segment]
                let t = length > 0 ? min(1, max(0, (target - travelled) / length)) : 0
                let a = input[segment]
                output[k] = (a + (input[min(segment + 1, segments)] - a) * t - origin) * scale
            }
            output[count - 1] = (input[input.count - 1] - origin) * scale
        }
    }

    /// Writes the length of each segment `input[k] → input[k + 1]` to `lengths[k]`; returns their sum, added in
    /// order.
    ///
    /// Four segments at a time: the square roots, the slow part, run four to an instruction. Each length is
    /// computed as `distance` computes it, so the values are the same bits.
    private static func segmentLengths(
        _ input: UnsafeBufferPointer<SIMD2<Double>>, into lengths: UnsafeMutablePointer<Double>
    ) -> Double {
        let segments = input.count - 1
        guard segments > 0 else { return 0 }
        let points = UnsafeRawPointer(input.baseAddress!)
        let pointSize = MemoryLayout<SIMD2<Double>>.stride
        var total = 0.0
        var index = 0
        while index + 4 <= segments {
            // Points index…index+4 as x0 y0 x1 y1 | x2 y2 x3 y3 | x4 y4.
            let a = points.loadUnaligned(fromByteOffset: index * pointSize, as: SIMD4<Double>.self)
            let b = points.loadUnaligned(fromByteOffset: (index + 2) * pointSize, as: SIMD4<Double>.self)
            let c = points.loadUnaligned(fromByteOffset: (index + 4) * pointSize, as: SIMD2<Double>.self)
            let dx = SIMD4(a[2], b[0], b[2], c[0]) - SIMD4(a[0], a[2], b[0], b[2])
            let dy = SIMD4(a[3], b[1], b[3], c[1]) - SIMD4(a[1], a[3], b[1], b[3])
            let four = (dx * dx + dy * dy).squareRoot()
            UnsafeMutableRawPointer(lengths + index).storeBytes(of: four, as: SIMD4<Double>.self)
            total += four[0]
            total += four[1]
            total += four[2]
            total += four[3]
            index += 4
        }
        while index < segments {
            let length = distance(input[index], input[index + 1])
            lengths[index] = length
            total += length
            index += 1
        }
        return total
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
