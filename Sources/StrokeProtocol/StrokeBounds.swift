/// Where a stroke (or a gesture of several) lies, in the producer's coordinates: its bounding box, which its `match`
/// or `nomatch` event carries as `"bounds": [minX, minY, maxX, maxY]` (Protocol/README.md, section 6), for a game
/// that acts where the gesture was drawn (a spell cast on what a circle surrounds).
public struct StrokeBounds: Sendable, Hashable {
    /// The least and the greatest x and y of the points.
    public var minX, minY, maxX, maxY: Double

    /// Creates a bounding box.
    public init(minX: Double, minY: Double, maxX: Double, maxY: Double) {
        (self.minX, self.minY, self.maxX, self.maxY) = (minX, minY, maxX, maxY)
    }

    /// The bounding box of `points`; nil for no points. Two points at a time (one vector of four doubles), for
    /// it runs on every stroke a worker recognizes.
    public init?(of points: UnsafeBufferPointer<SIMD2<Double>>) {
        guard let base = points.baseAddress, !points.isEmpty else { return nil }
        let pair = SIMD4(lowHalf: base[0], highHalf: base[0])
        var (low, high) = (pair, pair)
        let raw = UnsafeRawPointer(base)
        var index = 1
        while index + 2 <= points.count {
            let next = raw.loadUnaligned(
                fromByteOffset: index * MemoryLayout<SIMD2<Double>>.stride, as: SIMD4<Double>.self)
            // Comparisons and blends: `pointwiseMin` takes IEEE minimums one lane at a time.
            low.replace(with: next, where: next .< low)
            high.replace(with: next, where: next .> high)
            index += 2
        }
        var least = low.lowHalf
        least.replace(with: low.highHalf, where: low.highHalf .< least)
        var most = high.lowHalf
        most.replace(with: high.highHalf, where: high.highHalf .> most)
        if index < points.count {
            least.replace(with: base[index], where: base[index] .< least)
            most.replace(with: base[index], where: base[index] .> most)
        }
        self.init(minX: least.x, minY: least.y, maxX: most.x, maxY: most.y)
    }

    /// Widens the box to take in `point`. A non-finite coordinate leaves it as `init(of:)` would (it compares
    /// false).
    public mutating func include(_ point: SIMD2<Double>) {
        if point.x < minX { minX = point.x }
        if point.x > maxX { maxX = point.x }
        if point.y < minY { minY = point.y }
        if point.y > maxY { maxY = point.y }
    }

    /// The first index at or after `start` at which the box of `points[...index]` is no longer smaller than
    /// `minimum` (`isSmaller(than:)`), if one is: where a stroke drawn point by point reaches a session's minimum
    /// size. A box of non-finite points is no smaller, as in `isSmaller(than:)`.
    public static func firstIndex(
        reaching minimum: Double, in points: UnsafeBufferPointer<SIMD2<Double>>, from start: Int
    ) -> Int? {
        guard start >= 0, start < points.count,
            var bounds = StrokeBounds(of: UnsafeBufferPointer(rebasing: points[...start]))
        else { return nil }
        var index = start
        while bounds.isSmaller(than: minimum) {
            index += 1
            guard index < points.count else { return nil }
            bounds.include(points[index])
        }
        return index
    }

    /// The middle of the box.
    public var center: SIMD2<Double> { SIMD2((minX + maxX) / 2, (minY + maxY) / 2) }
    /// The box's width and height.
    public var size: SIMD2<Double> { SIMD2(maxX - minX, maxY - minY) }

    /// Whether the box is smaller than `minimum` on both sides: a stroke too small to match, for a session whose
    /// minimum size it is (`SessionOptions.minimumSize`). A box of non-finite points is not.
    public func isSmaller(than minimum: Double) -> Bool {
        let size = self.size
        return size.x < minimum && size.y < minimum
    }
}
