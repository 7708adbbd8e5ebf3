/// The checkmark detector's corner search, the O(n) part of its full test.
///
/// Like `MatchingKernels`, this file is compiled three times: into `RecognitionKernels` for any CPU, and into
/// `RecognitionKernelsWide` and `RecognitionKernelsAVX512` (symbolic links to it) for x86-64-v3 and v4, where
/// four doubles are one AVX register instead of two SSE ones. The builds round every operation the same way and
/// return the same index. (Eight doubles at a time, with AVX-512, took 5–10% longer per point: a stroke's corner
/// search covers 38 resampled points on average, and a longer scalar tail and merge ate the gain.)
public enum CornerKernel {
    /// The corner: the point farthest from the chord, on the side a check bends to (below it, on screen), among
    /// points `1..<count-1`; -1 when none is below the chord.
    ///
    /// `xs` and `ys` hold `count` coordinates; `start` is the first point, `chord` the last point minus the
    /// first. Four points at a time; each lane keeps its first maximum and the lanes are merged by value, then
    /// index, so the result is the same as a scalar scan's (the arithmetic per point is identical).
    @inline(never)
    public static func corner(
        xs: UnsafePointer<Double>, ys: UnsafePointer<Double>, count n: Int, start: SIMD2<Double>,
        chord: SIMD2<Double>
    ) -> Int {
        typealias Vector = SIMD4<Double>
        let width = Vector.scalarCount
        let startX = Vector(repeating: start.x)
        let startY = Vector(repeating: start.y)
        let chordX = Vector(repeating: chord.x)
        let chordY = Vector(repeating: chord.y)
        var best = Vector.zero
        var bestIndex = SIMD4<Int64>(repeating: -1)
        var index = SIMD4<Int64>(1, 2, 3, 4)
        let step = SIMD4<Int64>(repeating: Int64(width))
        var i = 1
        while i + width <= n - 1 {
            let x = UnsafeRawPointer(xs + i).loadUnaligned(as: Vector.self)
            let y = UnsafeRawPointer(ys + i).loadUnaligned(as: Vector.self)
            let side = chordX * (y - startY) - chordY * (x - startX)  // > 0: below the chord
            let better = side .> best
            best.replace(with: side, where: better)
            bestIndex.replace(with: index, where: better)
            index &+= step
            i += width
        }
        var farthest = 0.0
        var corner = -1
        for lane in 0..<width where bestIndex[lane] >= 0 {
            if best[lane] > farthest || (best[lane] == farthest && corner >= 0 && Int(bestIndex[lane]) < corner) {
                farthest = best[lane]
                corner = Int(bestIndex[lane])
            }
        }
        while i < n - 1 {
            let side = chord.x * (ys[i] - start.y) - chord.y * (xs[i] - start.x)
            if side > farthest {
                farthest = side
                corner = i
            }
            i += 1
        }
        return corner
    }
}

extension MatchingKernels {
    /// `CornerKernel.corner`, here so that one type of each build holds all its kernels.
    public static func corner(
        xs: UnsafePointer<Double>, ys: UnsafePointer<Double>, count n: Int, start: SIMD2<Double>,
        chord: SIMD2<Double>
    ) -> Int {
        CornerKernel.corner(xs: xs, ys: ys, count: n, start: start, chord: chord)
    }
}
