import CCPUFeatures
import RecognitionKernels

#if canImport(Glibc)
    import Glibc
#endif

extension ElasticMatcher {
    /// Lanes computed at once by `distances(candidates:templates:count:band:rows:)`.
    public typealias Lanes = SIMD8<Float>
    /// Two groups of lanes side by side (the first in lanes 0–7), for the builds that compute them at once.
    public typealias LanePair = SIMD16<Float>

    /// Which build of the recognition kernels (the matcher's and the checkmark detector's corner search) this
    /// process runs.
    public enum KernelBuild: String, Sendable, CaseIterable {
        /// Built for any CPU of the architecture (SSE2 on x86-64).
        case portable
        /// Built for x86-64-v3 (AVX2): a vector of eight floats is one register.
        case wide
        /// Built for x86-64-v4 (AVX-512): a vector of sixteen floats, or eight doubles, is one register.
        case avx512

        /// The widest build the CPU runs; all give the same bits. The environment variable `STROKE_KERNELS`
        /// (`portable`, `wide` or `avx512`) picks a narrower one, to compare them; an unknown name, or a build the
        /// CPU cannot run, is ignored and explained by `requestIgnored`.
        public static var current: KernelBuild { choice.build }

        /// Why `STROKE_KERNELS` was ignored, if it was set and ignored; nil otherwise.
        public static var requestIgnored: String? { choice.ignored }

        private static let choice: (build: KernelBuild, ignored: String?) = {
            let supported = supportedByThisCPU
            guard let value = getenv("STROKE_KERNELS").map({ String(cString: $0) }) else {
                return (supported.last!, nil)
            }
            let names = allCases.map(\.rawValue).joined(separator: ", ")
            guard let asked = KernelBuild(rawValue: value) else {
                return (supported.last!, "STROKE_KERNELS=\(value) is not a kernel build (\(names)); ignored")
            }
            guard supported.contains(asked) else {
                return (supported.last!, "STROKE_KERNELS=\(value): this CPU cannot run that build; ignored")
            }
            return (asked, nil)
        }()

        /// The builds this CPU runs, narrowest first.
        public static var supportedByThisCPU: [KernelBuild] {
            if stroke_cpu_runs_x86_64_v4() != 0 { return [.portable, .wide, .avx512] }
            if stroke_cpu_runs_x86_64_v3() != 0 { return [.portable, .wide] }
            return [.portable]
        }

        /// Whether the Protractor stage computes two groups of templates at once (`LanePair`): in the wide
        /// builds. In the portable one that took as long as one group at a time (the elastic stage takes two at
        /// once in every build: with SSE, 19% less time per group).
        var pairsProtractorGroups: Bool { self != .portable }
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
        KernelBuild.currentKernels.elasticDistances(
            candidates: candidates, templates: templates, count: count, band: band, rows: rows)
    }

    /// The same for sixteen pairs at once: two groups, each point's features as pairs of lane vectors. Runs
    /// `KernelBuild.current`.
    public static func distances(
        candidates: UnsafePointer<LanePair>,
        templates: UnsafePointer<LanePair>,
        count: Int,
        band: Int,
        rows: UnsafeMutablePointer<LanePair>
    ) -> LanePair {
        KernelBuild.currentKernels.elasticDistances(
            candidates: candidates, templates: templates, count: count, band: band, rows: rows)
    }

    /// Gathers eight sequences into lane vectors: `lanes[k × step][lane] = sources[lane][k]` for `k < count`.
    ///
    /// `sources` holds eight pointers (point an unused lane at zeros); a `step` of 2 fills one half of each
    /// `LanePair`. Runs `KernelBuild.current`.
    public static func gather(
        _ sources: UnsafePointer<UnsafePointer<Float>>, count: Int, into lanes: UnsafeMutablePointer<Lanes>,
        step: Int = 1
    ) {
        KernelBuild.currentKernels.gather(sources, count: count, into: lanes, step: step)
    }

    /// Turns a stroke's feature pairs `(feature[k], feature[k + 1])`, `k` even, by each lane's angle (its cosine
    /// and sine) into every `step`-th lane vector. Runs `KernelBuild.current`.
    static func rotatePairs(
        _ feature: UnsafePointer<Float>, count: Int, cosine: Lanes, sine: Lanes,
        into lanes: UnsafeMutablePointer<Lanes>,
        step: Int
    ) {
        KernelBuild.currentKernels.rotatePairs(
            feature, count: count, cosine: cosine, sine: sine, into: lanes, step: step)
    }

    /// Lane vectors that `groups` groups of `length` Protractor components take, in pairs of groups.
    static func protractorLayoutCount(groups: Int, length: Int) -> Int {
        RecognitionKernels.MatchingKernels.pairLayoutCount(groups: groups, length: length)
    }

    /// The Protractor dot products `a = t·c` and `b = t·c⊥` of every group of eight templates with a stroke,
    /// into `dots[2g]` and `dots[2g + 1]`, and the similarities at the best rotation within the bound given by
    /// `cosMax` and `sinMax`, into `similarities[g]`. Runs `KernelBuild.current`, two groups at a time where it
    /// `pairsProtractorGroups`.
    static func protractorSimilarities(
        templates: UnsafePointer<Lanes>, groups: Int, stroke: UnsafePointer<Float>, length: Int,
        cosMax: Float, sinMax: Float, dots: UnsafeMutablePointer<Lanes>, similarities: UnsafeMutablePointer<Lanes>
    ) {
        if KernelBuild.current.pairsProtractorGroups {
            KernelBuild.currentKernels.protractorSimilarityPairs(
                templates: templates, groups: groups, stroke: stroke, length: length, cosMax: cosMax,
                sinMax: sinMax, dots: dots, similarities: similarities)
        } else {
            KernelBuild.currentKernels.protractorSimilarities(
                templates: templates, groups: groups, stroke: stroke, length: length, cosMax: cosMax,
                sinMax: sinMax, dots: dots, similarities: similarities)
        }
    }
}
