import Foundation

/// Dynamic time warping over elastic feature sequences (`[x, y, w·tx, w·ty]` per point).
///
/// The warping path is kept within a Sakoe–Chiba band of `band` points around the diagonal. The distance is
/// the sum of Euclidean feature distances along the best path divided by the number of points, so it reads as
/// "mean deviation per point, in units of the shape's RMS radius".
public enum ElasticMatcher {
    /// Number of floats per point in an elastic feature sequence.
    public static let stride = 4

    /// The banded DTW distance between two sequences of `count` points, or `.infinity` once it is certain to
    /// exceed `abandonAbove` (early abandoning).
    ///
    /// `scratch` must hold at least `2 * count` floats; it is overwritten.
    @inlinable
    public static func distance(
        _ lhs: UnsafePointer<Float>,
        _ rhs: UnsafePointer<Float>,
        count: Int,
        band: Int,
        abandonAbove: Float,
        scratch: UnsafeMutablePointer<Float>
    ) -> Float {
        let limit = abandonAbove * Float(count)
        var previous = scratch
        var current = scratch + count
        for j in 0..<count { previous[j] = .infinity }
        for i in 0..<count {
            let low = max(0, i - band)
            let high = min(count - 1, i + band)
            if low > 0 { current[low - 1] = .infinity }
            let l = lhs + i * stride
            var left = Float.infinity
            var rowMinimum = Float.infinity
            for j in low...high {
                let r = rhs + j * stride
                let d0 = l[0] - r[0]
                let d1 = l[1] - r[1]
                let d2 = l[2] - r[2]
                let d3 = l[3] - r[3]
                let cost = (d0 * d0 + d1 * d1 + d2 * d2 + d3 * d3).squareRoot()
                let best: Float
                if i == 0 && j == 0 {
                    best = 0
                } else {
                    let diagonal = j > 0 ? previous[j - 1] : .infinity
                    best = min(min(diagonal, previous[j]), left)
                }
                left = cost + best
                current[j] = left
                rowMinimum = min(rowMinimum, left)
            }
            if high < count - 1 { current[high + 1] = .infinity }
            if rowMinimum > limit { return .infinity }
            swap(&previous, &current)
        }
        return previous[count - 1] / Float(count)
    }
}
