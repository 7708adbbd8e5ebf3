import Foundation
import RecognitionKernels
import RecognitionKernelsWide
import Testing

@testable import StrokeRecognition

/// The matcher's kernels are compiled twice (portable, and x86-64-v3); a recognition must not depend on which
/// one the CPU runs.
@Suite("Matching kernels")
struct MatchingKernelsTests {
    typealias Portable = RecognitionKernels.MatchingKernels
    typealias Wide = RecognitionKernelsWide.MatchingKernels
    typealias Lanes = SIMD8<Float>

    /// Random lane vectors, the same for a seed.
    static func lanes(_ count: Int, seed: UInt64, scale: Float = 1) -> [Lanes] {
        var state = seed
        func next() -> Float {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return (Float(state >> 40) / Float(1 << 24) * 2 - 1) * scale
        }
        return (0..<count).map { _ in Lanes((0..<8).map { _ in next() }) }
    }

    @Test("the portable and the wide build give the same bits", arguments: [4, 17, 32, 64])
    func buildsAgree(pointCount: Int) {
        guard ElasticMatcher.KernelBuild.current == .wide else { return }  // the wide build cannot run here
        for seed in UInt64(1)...20 {
            let length = pointCount * Portable.stride
            let candidates = Self.lanes(length, seed: seed)
            let templates = Self.lanes(length, seed: seed + 100, scale: 3)
            var rows = [Lanes](repeating: .zero, count: 2 * pointCount)
            for band in [0, 1, 4, pointCount] {
                let portable = Portable.elasticDistances(
                    candidates: candidates, templates: templates, count: pointCount, band: band, rows: &rows)
                let wide = Wide.elasticDistances(
                    candidates: candidates, templates: templates, count: pointCount, band: band, rows: &rows)
                #expect(portable.bitPattern == wide.bitPattern)
            }
            let groups = 3
            let protractor = Self.lanes(groups * 2 * pointCount, seed: seed + 200)
            let stroke = Self.lanes(2 * pointCount, seed: seed + 300).map { $0[0] }
            var portableDots = [Lanes](repeating: .zero, count: 2 * groups)
            var wideDots = portableDots
            var portableSimilarities = [Lanes](repeating: .zero, count: groups)
            var wideSimilarities = portableSimilarities
            for (cosMax, sinMax) in [(Float(-1), Float(0)), (cos(Float(0.5)), sin(Float(0.5)))] {
                Portable.protractorSimilarities(
                    templates: protractor, groups: groups, stroke: stroke, length: 2 * pointCount, cosMax: cosMax,
                    sinMax: sinMax, dots: &portableDots, similarities: &portableSimilarities)
                Wide.protractorSimilarities(
                    templates: protractor, groups: groups, stroke: stroke, length: 2 * pointCount, cosMax: cosMax,
                    sinMax: sinMax, dots: &wideDots, similarities: &wideSimilarities)
                #expect(portableSimilarities.map(\.bitPattern) == wideSimilarities.map(\.bitPattern))
            }
            #expect(portableDots.map(\.bitPattern) == wideDots.map(\.bitPattern))
        }
    }

    @Test("each lane of the elastic kernel has the scalar matcher's bits", arguments: [1, 4, 13, 32])
    func lanesMatchScalarBits(pointCount: Int) {
        let stride = ElasticMatcher.stride
        for seed in UInt64(1)...10 {
            let length = pointCount * stride
            let candidates = Self.lanes(length, seed: seed)
            let templates = Self.lanes(length, seed: seed + 100, scale: 3)
            var rows = [Lanes](repeating: .zero, count: 2 * pointCount)
            var scratch = [Float](repeating: 0, count: 2 * pointCount)
            for band in [0, 1, 4, pointCount] {
                let distances = ElasticMatcher.distances(
                    candidates: candidates, templates: templates, count: pointCount, band: band, rows: &rows)
                for lane in 0..<8 {
                    let lhs = candidates.map { $0[lane] }
                    let rhs = templates.map { $0[lane] }
                    let scalar = ElasticMatcher.distance(
                        lhs, rhs, count: pointCount, band: band, abandonAbove: .infinity, scratch: &scratch)
                    #expect(distances[lane].bitPattern == scalar.bitPattern, "band \(band), lane \(lane)")
                }
            }
        }
    }

    @Test("both builds find the same checkmark corner", arguments: [2, 3, 5, 8, 33, 65])
    func cornerBuildsAgree(count: Int) {
        guard ElasticMatcher.KernelBuild.current == .wide else { return }  // the wide build cannot run here
        for seed in UInt64(1)...50 {
            // Coarse values, so that ties between points happen.
            let values = Self.lanes(2 * count, seed: seed).flatMap { lanes in
                (0..<8).map { Double(lanes[$0] * 4).rounded() }
            }
            let xs = Array(values[0..<count])
            let ys = Array(values[count..<(2 * count)])
            let start = SIMD2(xs[0], ys[0])
            let chord = SIMD2(xs[count - 1], ys[count - 1]) - start
            let portable = RecognitionKernels.CornerKernel.corner(
                xs: xs, ys: ys, count: count, start: start, chord: chord)
            let wide = RecognitionKernelsWide.CornerKernel.corner(
                xs: xs, ys: ys, count: count, start: start, chord: chord)
            #expect(portable == wide)
            // The first point farthest below the chord, by a plain scan.
            var expected = -1
            var farthest = 0.0
            for i in 1..<max(1, count - 1) {
                let side = chord.x * (ys[i] - start.y) - chord.y * (xs[i] - start.x)
                if side > farthest { (expected, farthest) = (i, side) }
            }
            #expect(portable == expected)
        }
    }

    @Test("the wide build is chosen exactly where the kernel reports the CPU flags of x86-64-v3")
    func choice() throws {
        #if arch(x86_64) && os(Linux)
            let cpuinfo = try String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)
            let line = try #require(cpuinfo.split(separator: "\n").first { $0.hasPrefix("flags") })
            let flags = Set(line.split(separator: " ").map(String.init))
            let v3 = ["avx2", "fma", "bmi1", "bmi2", "f16c", "abm", "movbe"].allSatisfy(flags.contains)
            #expect(ElasticMatcher.KernelBuild.current == (v3 ? .wide : .portable))
        #elseif !arch(x86_64)
            #expect(ElasticMatcher.KernelBuild.current == .portable)
        #endif
    }
}

extension SIMD8<Float> {
    /// The lanes' bit patterns, to compare results bit for bit (NaNs included).
    fileprivate var bitPattern: SIMD8<UInt32> { SIMD8<UInt32>((0..<8).map { self[$0].bitPattern }) }
}
