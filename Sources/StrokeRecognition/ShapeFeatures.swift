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
        guard n >= 4 else {
            throw RecognitionError(.invalidConfiguration, "pointCount must be at least 4, got \(n)")
        }
        guard points.count >= 2 else {
            throw RecognitionError(.degenerateStroke, "stroke has \(points.count) point(s); at least 2 are needed")
        }
        // Work relative to the first point, divided by the extent, so that huge or tiny coordinates keep precision.
        let origin = points[0]
        var extent = 0.0
        for point in points {
            guard point.x.isFinite, point.y.isFinite else {
                throw RecognitionError(.nonFiniteValue, "stroke has a NaN or infinite coordinate")
            }
            extent = max(extent, abs(point.x - origin.x), abs(point.y - origin.y))
        }
        guard extent > 0, extent.isFinite else {
            throw RecognitionError(.degenerateStroke, "stroke has no extent (all points are equal)")
        }
        var vector = [Float]()
        var elastic = [Float]()
        withUnsafeTemporaryAllocation(of: SIMD2<Double>.self, capacity: n) { shape in
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
            vector = [Float](unsafeUninitializedCapacity: 2 * n) { out, initialized in
                for k in 0..<n {
                    out[2 * k] = Float(shape[k].x * toUnitNorm)
                    out[2 * k + 1] = Float(shape[k].y * toUnitNorm)
                }
                initialized = 2 * n
            }
            elastic = [Float](unsafeUninitializedCapacity: 4 * n) { out, initialized in
                for k in 0..<n {
                    let d = shape[min(k + 1, n - 1)] - shape[max(k - 1, 0)]
                    let length = (d * d).sum().squareRoot()
                    let tangent = length > 0 ? d * (tangentWeight / length) : .zero
                    out[4 * k] = Float(shape[k].x * toUnitRadius)
                    out[4 * k + 1] = Float(shape[k].y * toUnitRadius)
                    out[4 * k + 2] = Float(tangent.x)
                    out[4 * k + 3] = Float(tangent.y)
                }
                initialized = 4 * n
            }
        }
        self.pointCount = n
        self.vector = vector
        self.elastic = elastic
    }
}
