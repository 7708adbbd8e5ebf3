import Foundation

/// A stroke preprocessed for matching: the Protractor unit vector and the elastic feature sequence.
///
/// Both come from one resampling to `pointCount` points whose centroid is moved to the origin and whose RMS
/// radius is scaled to 1. No rotation is applied here: the matcher finds the best rotation in closed form
/// (bounded in orientation-sensitive libraries), which would undo any pre-rotation anyway.
public struct ShapeFeatures: Sendable, Hashable {
    /// Number of resampled points.
    public let pointCount: Int
    /// `[x0, y0, x1, y1, …]`, unit Euclidean norm: the Protractor vector.
    public let vector: [Float]
    /// `[x, y, w·tx, w·ty]` per point: the position (unit RMS radius) and the weighted unit tangent.
    public let elastic: [Float]

    /// Preprocesses `points`.
    ///
    /// - Throws: `RecognitionError` `.nonFiniteValue` for NaN or infinite coordinates, `.degenerateStroke` for
    ///   fewer than 2 points or a stroke with no extent.
    public init(points: [SIMD2<Double>], pointCount n: Int, tangentWeight: Double) throws(RecognitionError) {
        self = try points.withUnsafeBufferPointer { (points) throws(RecognitionError) in
            try ShapeFeatures(points: points, pointCount: n, tangentWeight: tangentWeight)
        }
    }

    /// Preprocesses `points` (a buffer, e.g. a slice of a larger one).
    ///
    /// - Throws: as `init(points:pointCount:tangentWeight:)`.
    public init(points: UnsafeBufferPointer<SIMD2<Double>>, pointCount n: Int, tangentWeight: Double)
        throws(RecognitionError)
    {
        (vector, elastic) = try Self.withFeatures(of: points, pointCount: n, tangentWeight: tangentWeight) {
            (Array($0), Array($1))
        }
        self.pointCount = n
    }

    /// Preprocesses a gesture of one stroke or several, joined end to start: `strokeStarts` says where each
    /// stroke after the first begins in `points`. Where the path jumps between strokes the tangent is
    /// scaled by `configuration.jumpTangentFactor` (by default 0: points in the air have none).
    ///
    /// - Throws: as `init(points:pointCount:tangentWeight:)`.
    public init(points: [SIMD2<Double>], strokeStarts: [Int], configuration: RecognizerConfiguration)
        throws(RecognitionError)
    {
        (vector, elastic) = try points.withUnsafeBufferPointer { (points) throws(RecognitionError) in
            try strokeStarts.withUnsafeBufferPointer { (starts) throws(RecognitionError) in
                try Self.withFeatures(of: points, strokeStarts: starts, configuration: configuration) {
                    (Array($0), Array($1))
                }
            }
        }
        self.pointCount = configuration.pointCount
    }

    /// Preprocesses a gesture as `init(points:strokeStarts:configuration:)` does, into temporary memory, and
    /// calls `body` with its features.
    static func withFeatures<Result>(
        of points: UnsafeBufferPointer<SIMD2<Double>>, strokeStarts: UnsafeBufferPointer<Int>,
        configuration: RecognizerConfiguration,
        _ body: (_ vector: UnsafeBufferPointer<Float>, _ elastic: UnsafeBufferPointer<Float>) -> Result
    ) throws(RecognitionError) -> Result {
        try withFeatures(
            of: points, pointCount: configuration.pointCount, tangentWeight: configuration.tangentWeight,
            strokeStarts: strokeStarts, jumpTangentFactor: configuration.jumpTangentFactor, body)
    }

    /// Preprocesses `points` into temporary memory and calls `body` with the Protractor vector and the elastic
    /// features, laid out as `vector` and `elastic`: the matcher's path, which builds no arrays (at the default
    /// 32 points, all of it fits in the 1,024 bytes `withUnsafeTemporaryAllocation` keeps on the stack).
    ///
    /// - Throws: as `init(points:pointCount:tangentWeight:)`.
    static func withFeatures<Result>(
        of points: UnsafeBufferPointer<SIMD2<Double>>, pointCount n: Int, tangentWeight: Double,
        strokeStarts: UnsafeBufferPointer<Int> = .init(start: nil, count: 0), jumpTangentFactor: Double = 1,
        _ body: (_ vector: UnsafeBufferPointer<Float>, _ elastic: UnsafeBufferPointer<Float>) -> Result
    ) throws(RecognitionError) -> Result {
        guard n >= 4 else {
            throw RecognitionError(.invalidConfiguration, "pointCount must be at least 4, got \(n)")
        }
        guard points.count >= 2 else {
            throw RecognitionError(
                .degenerateStroke, "stroke has \(String(counting: points.count, "point")); at least 2 are needed")
        }
        let extent = try Self.extent(points, from: points[0])
        guard extent > 0 else {
            throw RecognitionError(.degenerateStroke, "stroke has no extent (all points are equal)")
        }
        guard let exponent = StrokeGeometry.rescalingExponent(extent) else {
            return features(
                of: points, extent: extent, pointCount: n, tangentWeight: tangentWeight, strokeStarts: strokeStarts,
                jumpTangentFactor: jumpTangentFactor, body)
        }
        // The resampler measures segments on the points as given, and squares their sides: beyond about 1e154 they
        // overflow, below about 1e-154 they vanish. Such a stroke is matched as its copy scaled by a power of two,
        // which is exact, and so the same shape.
        return try withUnsafeTemporaryAllocation(of: SIMD2<Double>.self, capacity: points.count) {
            (scaled) throws(RecognitionError) in
            for (k, point) in points.enumerated() { scaled[k] = StrokeGeometry.scaled(point, by: exponent) }
            let points = UnsafeBufferPointer(scaled)
            // From 1 to 2 now (at most 2 where the extent overflowed).
            let extent = try Self.extent(points, from: points[0])
            return features(
                of: points, extent: extent, pointCount: n, tangentWeight: tangentWeight, strokeStarts: strokeStarts,
                jumpTangentFactor: jumpTangentFactor, body)
        }
    }

    /// The features of `points` whose `extent` (above 0, finite) `withFeatures` found: computed relative to the
    /// first point and divided by the extent, so that coordinates far from 0 keep their precision.
    private static func features<Result>(
        of points: UnsafeBufferPointer<SIMD2<Double>>, extent: Double, pointCount n: Int, tangentWeight: Double,
        strokeStarts: UnsafeBufferPointer<Int>, jumpTangentFactor: Double,
        _ body: (_ vector: UnsafeBufferPointer<Float>, _ elastic: UnsafeBufferPointer<Float>) -> Result
    ) -> Result {
        let origin = points[0]
        return withUnsafeTemporaryAllocation(of: SIMD2<Double>.self, capacity: n) { shape in
            StrokeGeometry.resample(points, into: shape, origin: origin, scale: 1 / extent)
            var center = SIMD2<Double>.zero
            for point in shape { center += point }
            center /= Double(n)
            var squares = 0.0
            for k in 0..<n {
                shape[k] -= center
                squares += (shape[k] * shape[k]).sum()
            }
            let radius = (squares / Double(n)).squareRoot()
            let toUnitRadius = radius > 0 ? 1 / radius : 0
            let toUnitNorm = toUnitRadius / Double(n).squareRoot()
            return withUnsafeTemporaryAllocation(of: Float.self, capacity: 6 * n) { out in
                let vector = UnsafeMutableBufferPointer(rebasing: out[0..<(2 * n)])
                let elastic = UnsafeMutableBufferPointer(rebasing: out[(2 * n)...])
                for k in 0..<n {
                    vector[2 * k] = Float(shape[k].x * toUnitNorm)
                    vector[2 * k + 1] = Float(shape[k].y * toUnitNorm)
                }
                for k in 0..<n {
                    let d = shape[min(k + 1, n - 1)] - shape[max(k - 1, 0)]
                    let length = (d * d).sum().squareRoot()
                    let tangent = length > 0 ? d * (tangentWeight / length) : .zero
                    elastic[4 * k] = Float(shape[k].x * toUnitRadius)
                    elastic[4 * k + 1] = Float(shape[k].y * toUnitRadius)
                    elastic[4 * k + 2] = Float(tangent.x)
                    elastic[4 * k + 3] = Float(tangent.y)
                }
                if !strokeStarts.isEmpty {
                    let inAir = StrokeGeometry.jumps(points, strokeStarts: strokeStarts, count: n)
                    for k in 0..<n where inAir[k] {
                        elastic[4 * k + 2] *= Float(jumpTangentFactor)
                        elastic[4 * k + 3] *= Float(jumpTangentFactor)
                    }
                }
                return body(UnsafeBufferPointer(vector), UnsafeBufferPointer(elastic))
            }
        }
    }

    /// The largest distance of a coordinate from `origin`'s, over all points (the same value as the largest
    /// `abs(point - origin)`: a difference grows with the point).
    ///
    /// - Throws: `RecognitionError` `.nonFiniteValue` for a NaN or infinite coordinate.
    private static func extent(_ points: UnsafeBufferPointer<SIMD2<Double>>, from origin: SIMD2<Double>)
        throws(RecognitionError) -> Double
    {
        // Branch-free over the points: the lowest and highest coordinates, and `p - p`, which is 0 for every finite
        // coordinate and NaN otherwise.
        var low = origin
        var high = origin
        var finite = SIMD2<Double>.zero
        for point in points {
            low.replace(with: point, where: point .< low)
            high.replace(with: point, where: point .> high)
            finite += point - point
        }
        guard finite == .zero else {
            throw RecognitionError(.nonFiniteValue, "stroke has a NaN or infinite coordinate")
        }
        return max((high - origin).max(), (origin - low).max())
    }
}
