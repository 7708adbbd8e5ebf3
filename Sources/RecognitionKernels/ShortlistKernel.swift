/// The Protractor shortlist's ranking, for the few templates that reach its floor.
///
/// Like `MatchingKernels`, this file is compiled three times (symbolic links in `RecognitionKernelsWide` and
/// `RecognitionKernelsAVX512`); sixteen candidates are one AVX-512 register. Only comparisons are made, so every
/// build gives the same ranks.
public enum ShortlistKernel {
    /// Candidates ranked at once, one per lane.
    public typealias Similarities = SIMD16<Float>

    /// The rank of each of `count` candidates: how many of the others come before it, being more similar, or as
    /// similar and earlier in the list.
    ///
    /// `similarities` holds the candidates in list order (template order), none NaN, then readable padding up to
    /// a multiple of 16 whose own ranks are garbage; `ranks` has room for as many. Ranks are distinct and run
    /// `0..<count`, so they are the places of a stable sort by similarity, highest first. It takes `count²/16`
    /// vector steps and no branch that depends on the data, where a heap mispredicts about every other
    /// comparison: for the few dozen candidates of a shortlist of 16, it is the cheaper of the two.
    @inline(never)
    public static func ranks(similarities: UnsafePointer<Float>, count: Int, into ranks: UnsafeMutablePointer<Int32>) {
        let width = Similarities.scalarCount
        var first = 0
        while first < count {
            let own = UnsafeRawPointer(similarities + first).loadUnaligned(as: Similarities.self)
            var position = SIMD16<Int32>(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15)
            position &+= SIMD16(repeating: Int32(first))
            var rank = SIMD16<Int32>.zero
            let one = SIMD16<Int32>(repeating: 1)
            for other in 0..<count {
                let similarity = Similarities(repeating: similarities[other])
                let earlier = SIMD16<Int32>(repeating: Int32(other)) .< position
                let before = (similarity .> own) .| ((similarity .== own) .& earlier)
                rank &+= one.replacing(with: 0, where: .!before)
            }
            UnsafeMutableRawPointer(ranks + first).storeBytes(of: rank, as: SIMD16<Int32>.self)
            first += width
        }
    }
}

extension MatchingKernels {
    /// `ShortlistKernel.ranks`, here so that one type of each build holds all its kernels.
    public static func shortlistRanks(
        similarities: UnsafePointer<Float>, count: Int, into ranks: UnsafeMutablePointer<Int32>
    ) {
        ShortlistKernel.ranks(similarities: similarities, count: count, into: ranks)
    }
}
