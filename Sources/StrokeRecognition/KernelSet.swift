import RecognitionKernels
import RecognitionKernelsAVX512
import RecognitionKernelsWide

/// What each build of the recognition kernels provides. The three builds' `MatchingKernels` are different types of
/// different modules with the same static functions (the corner search included, through
/// `MatchingKernels.corner`); the one picked at start (`ElasticMatcher.KernelBuild.currentKernels`) serves every
/// call.
protocol KernelSet: SendableMetatype {
    /// Banded DTW distances of eight (candidate, template) pairs at once (`MatchingKernels.elasticDistances`).
    static func elasticDistances(
        candidates: UnsafePointer<SIMD8<Float>>, templates: UnsafePointer<SIMD8<Float>>, count: Int, band: Int,
        rows: UnsafeMutablePointer<SIMD8<Float>>
    ) -> SIMD8<Float>

    /// The same for two groups at once.
    static func elasticDistances(
        candidates: UnsafePointer<SIMD16<Float>>, templates: UnsafePointer<SIMD16<Float>>, count: Int, band: Int,
        rows: UnsafeMutablePointer<SIMD16<Float>>
    ) -> SIMD16<Float>

    /// Eight sequences into lane vectors (`MatchingKernels.gather`).
    static func gather(
        _ sources: UnsafePointer<UnsafePointer<Float>>, count: Int, into lanes: UnsafeMutablePointer<SIMD8<Float>>,
        step: Int)

    /// A stroke's feature pairs turned by each lane's angle (`MatchingKernels.rotatePairs`).
    static func rotatePairs(
        _ feature: UnsafePointer<Float>, count: Int, cosine: SIMD8<Float>, sine: SIMD8<Float>,
        into lanes: UnsafeMutablePointer<SIMD8<Float>>, step: Int)

    /// The Protractor similarities of every group of templates, one group at a time
    /// (`MatchingKernels.protractorSimilarities`).
    static func protractorSimilarities(
        templates: UnsafePointer<SIMD8<Float>>, groups: Int, stroke c: UnsafePointer<Float>, length: Int,
        cosMax: Float, sinMax: Float, dots: UnsafeMutablePointer<SIMD8<Float>>,
        similarities: UnsafeMutablePointer<SIMD8<Float>>)

    /// The same, two groups at a time.
    static func protractorSimilarityPairs(
        templates: UnsafePointer<SIMD8<Float>>, groups: Int, stroke c: UnsafePointer<Float>, length: Int,
        cosMax: Float, sinMax: Float, dots: UnsafeMutablePointer<SIMD8<Float>>,
        similarities: UnsafeMutablePointer<SIMD8<Float>>)

    /// The checkmark detector's corner search (`CornerKernel.corner`, through `MatchingKernels.corner`).
    static func corner(
        xs: UnsafePointer<Double>, ys: UnsafePointer<Double>, count n: Int, start: SIMD2<Double>,
        chord: SIMD2<Double>
    ) -> Int

    /// The ranks of a shortlist's few candidates (`ShortlistKernel.ranks`, through
    /// `MatchingKernels.shortlistRanks`).
    static func shortlistRanks(similarities: UnsafePointer<Float>, count: Int, into ranks: UnsafeMutablePointer<Int32>)
}

// MARK: - The three builds

extension RecognitionKernels.MatchingKernels: KernelSet {}
extension RecognitionKernelsWide.MatchingKernels: KernelSet {}
extension RecognitionKernelsAVX512.MatchingKernels: KernelSet {}

extension ElasticMatcher.KernelBuild {
    /// This build's kernels.
    var kernels: any KernelSet.Type {
        switch self {
        case .portable: RecognitionKernels.MatchingKernels.self
        case .wide: RecognitionKernelsWide.MatchingKernels.self
        case .avx512: RecognitionKernelsAVX512.MatchingKernels.self
        }
    }

    /// The kernels of the build this process runs (`current`).
    static let currentKernels = current.kernels
}
