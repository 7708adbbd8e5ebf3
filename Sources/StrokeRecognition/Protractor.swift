import Foundation

/// The closed-form optimal-rotation cosine distance of Protractor (Li, CHI 2010).
///
/// For unit vectors `t` (template) and `c` (candidate) of 2-D points, the similarity of `t` and `c` rotated by θ
/// is `a·cos θ + b·sin θ`, with `a = Σ tx·cx + ty·cy` and `b = Σ ty·cx − tx·cy`. It peaks at θ* = atan2(b, a)
/// (atan2, not atan(b/a), which picks the worst angle when a < 0). When the rotation is bounded to ±θmax and θ*
/// lies outside, the similarity is unimodal in θ, so the best allowed angle is the nearer bound.
public enum Protractor {
    /// The result of comparing two vectors.
    public struct Alignment: Sendable, Hashable {
        /// Cosine similarity at the chosen angle, in `-1...1`.
        public var similarity: Float
        /// The rotation (radians, counter-clockwise in a y-up frame) applied to the candidate.
        public var angle: Float

        /// Creates an alignment.
        @inlinable
        public init(similarity: Float, angle: Float) {
            self.similarity = similarity
            self.angle = angle
        }

        /// The angular distance `acos(similarity)` in `0...π`, with the argument clamped to `-1...1` so that
        /// identical vectors give exactly 0 rather than NaN.
        public var distance: Float { acos(min(1, max(-1, similarity))) }
    }

    /// Aligns `candidate` to `template` by the best rotation within `±maxRotation` radians.
    ///
    /// Both buffers hold `[x0, y0, x1, y1, …]` of equal length. Pass `.pi` or more for unbounded rotation.
    @inlinable
    public static func align(
        template: UnsafeBufferPointer<Float>,
        candidate: UnsafeBufferPointer<Float>,
        maxRotation: Float
    ) -> Alignment {
        var a: Float = 0
        var b: Float = 0
        var i = 0
        let n = min(template.count, candidate.count)
        while i + 1 < n {
            let tx = template[i]
            let ty = template[i + 1]
            let cx = candidate[i]
            let cy = candidate[i + 1]
            a += tx * cx + ty * cy
            b += ty * cx - tx * cy
            i += 2
        }
        return alignment(a: a, b: b, maxRotation: maxRotation)
    }

    /// The best similarity within `±maxRotation` for the dot products `a` and `b`, without trigonometry.
    ///
    /// `|θ*| ≤ θmax` exactly when `cos θ* = a / r ≥ cos θmax` (with `r = √(a² + b²)`); then the similarity is
    /// `r`, else it is `a·cos θmax + |b|·sin θmax`. `cosMax` and `sinMax` are those of the bound.
    @inlinable
    public static func similarity(a: Float, b: Float, cosMax: Float, sinMax: Float) -> Float {
        let r = (a * a + b * b).squareRoot()
        return a >= r * cosMax ? r : a * cosMax + abs(b) * sinMax
    }

    /// The best similarity and angle for the dot products `a` and `b` within `±maxRotation`.
    @inlinable
    public static func alignment(a: Float, b: Float, maxRotation: Float) -> Alignment {
        let optimal = atan2(b, a)
        if abs(optimal) <= maxRotation {
            return Alignment(similarity: (a * a + b * b).squareRoot(), angle: optimal)
        }
        let angle = optimal > 0 ? maxRotation : -maxRotation
        return Alignment(similarity: a * cos(angle) + b * sin(angle), angle: angle)
    }
}
