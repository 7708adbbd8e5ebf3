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
    public init(points: [SIMD2<Double>], pointCount: Int, tangentWeight: Double) throws(RecognitionError) {
        guard pointCount >= 4 else {
            throw RecognitionError(.invalidConfiguration, "pointCount must be at least 4, got \(pointCount)")
        }
        guard points.allSatisfy({ $0.x.isFinite && $0.y.isFinite }) else {
            throw RecognitionError(.nonFiniteValue, "stroke has a NaN or infinite coordinate")
        }
        guard points.count >= 2 else {
            throw RecognitionError(.degenerateStroke, "stroke has \(points.count) point(s); at least 2 are needed")
        }
        // Work relative to the first point so that huge absolute coordinates do not cost precision.
        let origin = points[0]
        let local = points.map { $0 - origin }
        let extent = local.reduce(0.0) { max($0, abs($1.x), abs($1.y)) }
        guard extent > 0, extent.isFinite, StrokeGeometry.pathLength(local) > extent * 1e-9 else {
            throw RecognitionError(.degenerateStroke, "stroke has no extent (all points are equal)")
        }
        // Pre-scale by the extent so that tiny or huge strokes keep full precision.
        let resampled = StrokeGeometry.resample(local.map { $0 / extent }, count: pointCount)
        let shape = StrokeGeometry.scaledToUnitRadius(StrokeGeometry.translatedToOrigin(resampled))
        self.pointCount = pointCount
        self.vector = StrokeGeometry.unitVector(shape)
        self.elastic = Self.elasticFeatures(shape, tangentWeight: tangentWeight)
    }

    /// `[x, y, w·tx, w·ty]` per point, with the unit tangent taken by central differences.
    static func elasticFeatures(_ shape: [SIMD2<Double>], tangentWeight: Double) -> [Float] {
        let n = shape.count
        var features = [Float]()
        features.reserveCapacity(n * 4)
        for i in 0..<n {
            let ahead = shape[min(i + 1, n - 1)]
            let behind = shape[max(i - 1, 0)]
            let d = ahead - behind
            let length = (d * d).sum().squareRoot()
            let tangent = length > 0 ? d / length : .zero
            features.append(Float(shape[i].x))
            features.append(Float(shape[i].y))
            features.append(Float(tangent.x * tangentWeight))
            features.append(Float(tangent.y * tangentWeight))
        }
        return features
    }
}
