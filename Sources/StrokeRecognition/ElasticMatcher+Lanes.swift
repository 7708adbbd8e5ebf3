import CCPUFeatures
import RecognitionKernels
import RecognitionKernelsWide

extension ElasticMatcher {
    /// Lanes computed at once by `distances(candidates:templates:count:band:rows:)`.
    public typealias Lanes = SIMD8<Float>

    /// Which build of the recognition kernels (the matcher's and the checkmark detector's corner search) this
    /// process runs.
    public enum KernelBuild: String, Sendable {
        /// Built for any CPU of the architecture (SSE2 on x86-64).
        case portable
        /// Built for x86-64-v3 (AVX2): a vector of eight floats is one register.
        case wide

        /// The wide build where the CPU runs it, else the portable one; both give the same bits.
        public static let current: KernelBuild = stroke_cpu_runs_x86_64_v3() != 0 ? .wide : .portable
    }

    /// Banded DTW distances of up to eight (candidate, template) pairs at once, one pair per SIMD lane.
    ///
    /// `candidates` and `templates` hold `count × stride` lane vectors (point-major, then feature); `rows` holds
    /// `2 × count` lane vectors of scratch. Unused lanes give meaningless values. Runs `KernelBuild.current`.
    public static func distances(
        candidates: UnsafePointer<Lanes>,
        templates: UnsafePointer<Lanes>,
        count: Int,
        band: Int,
        rows: UnsafeMutablePointer<Lanes>
    ) -> Lanes {
        switch KernelBuild.current {
        case .wide:
            RecognitionKernelsWide.MatchingKernels.elasticDistances(
                candidates: candidates, templates: templates, count: count, band: band, rows: rows)
        case .portable:
            RecognitionKernels.MatchingKernels.elasticDistances(
                candidates: candidates, templates: templates, count: count, band: band, rows: rows)
        }
    }

    /// Gathers eight sequences into lane vectors: `lanes[k][lane] = sources[lane][k]` for `k < count`.
    ///
    /// `sources` holds eight pointers (point an unused lane at zeros). Runs `KernelBuild.current`.
    public static func gather(
        _ sources: UnsafePointer<UnsafePointer<Float>>, count: Int, into lanes: UnsafeMutablePointer<Lanes>
    ) {
        switch KernelBuild.current {
        case .wide: RecognitionKernelsWide.MatchingKernels.gather(sources, count: count, into: lanes)
        case .portable: RecognitionKernels.MatchingKernels.gather(sources, count: count, into: lanes)
        }
    }

    /// The Protractor dot products `a = t·c` and `b = t·c⊥` of every group of eight templates with a stroke,
    /// into `dots[2g]` and `dots[2g + 1]`, and the similarities at the best rotation within the bound given by
    /// `cosMax` and `sinMax`, into `similarities[g]`. Runs `KernelBuild.current`.
    static func protractorSimilarities(
        templates: UnsafePointer<Lanes>, groups: Int, stroke: UnsafePointer<Float>, length: Int,
        cosMax: Float, sinMax: Float, dots: UnsafeMutablePointer<Lanes>, similarities: UnsafeMutablePointer<Lanes>
    ) {
        switch KernelBuild.current {
        case .wide:
            RecognitionKernelsWide.MatchingKernels.protractorSimilarities(
                templates: templates, groups: groups, stroke: stroke, length: length, cosMax: cosMax,
                sinMax: sinMax, dots: dots, similarities: similarities)
        case .portable:
            RecognitionKernels.MatchingKernels.protractorSimilarities(
                templates: templates, groups: groups, stroke: stroke, length: length, cosMax: cosMax,
                sinMax: sinMax, dots: dots, similarities: similarities)
        }
    }
}
