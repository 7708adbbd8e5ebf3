extension ElasticMatcher {
    /// Lanes computed at once by `distances(candidates:templates:count:band:rows:)`.
    public typealias Lanes = SIMD8<Float>

    /// Banded DTW distances of up to eight (candidate, template) pairs at once, one pair per SIMD lane.
    ///
    /// The dynamic-programming recurrence is a chain of dependent additions; running eight independent chains
    /// side by side hides that latency, so eight distances cost little more than one. `candidates` and
    /// `templates` hold `count × stride` lane vectors (point-major, then feature); `rows` holds `2 × count`
    /// lane vectors of scratch. Unused lanes give meaningless values.
    @inlinable
    public static func distances(
        candidates: UnsafePointer<Lanes>,
        templates: UnsafePointer<Lanes>,
        count: Int,
        band: Int,
        rows: UnsafeMutablePointer<Lanes>
    ) -> Lanes {
        let infinity = Lanes(repeating: .infinity)
        var previous = rows
        var current = rows + count
        for j in 0..<count { previous[j] = infinity }
        for i in 0..<count {
            let low = max(0, i - band)
            let high = min(count - 1, i + band)
            let c = candidates + i * stride
            let c0 = c[0]
            let c1 = c[1]
            let c2 = c[2]
            let c3 = c[3]
            var left = infinity
            for j in low...high {
                let t = templates + j * stride
                let d0 = c0 - t[0]
                let d1 = c1 - t[1]
                let d2 = c2 - t[2]
                let d3 = c3 - t[3]
                let cost = (d0 * d0 + d1 * d1 + d2 * d2 + d3 * d3).squareRoot()
                let best: Lanes
                if i == 0 && j == 0 {
                    best = .zero
                } else {
                    let diagonal = j > 0 ? previous[j - 1] : infinity
                    best = minimum(minimum(diagonal, previous[j]), left)
                }
                left = cost + best
                current[j] = left
            }
            if high < count - 1 { current[high + 1] = infinity }
            swap(&previous, &current)
        }
        return previous[count - 1] / Float(count)
    }

    /// Lane-wise minimum that compiles to a compare and a blend.
    @inlinable @inline(__always)
    static func minimum(_ a: Lanes, _ b: Lanes) -> Lanes {
        a.replacing(with: b, where: b .< a)
    }
}
