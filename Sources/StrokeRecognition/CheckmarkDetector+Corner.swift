extension CheckmarkDetector {
    // MARK: - The corner search

    /// The corner: the point farthest from the chord, on the side a check bends to (below it, on screen), among
    /// points `1..<count-1`; -1 when none is below the chord. Runs `ElasticMatcher.KernelBuild.current`.
    static func corner(
        _ xs: UnsafeBufferPointer<Double>, _ ys: UnsafeBufferPointer<Double>, count n: Int, start: SIMD2<Double>,
        chord: SIMD2<Double>
    ) -> Int {
        ElasticMatcher.KernelBuild.currentKernels.corner(
            xs: xs.baseAddress!, ys: ys.baseAddress!, count: n, start: start, chord: chord)
    }
}
