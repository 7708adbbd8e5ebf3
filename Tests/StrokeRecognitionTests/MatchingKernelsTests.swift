import Foundation
import RecognitionKernels
import Testing

@testable import StrokeRecognition

/// The matcher's kernels are compiled three times (portable, x86-64-v3 and x86-64-v4); a recognition must not depend
/// on which one the CPU runs.
@Suite("Matching kernels")
struct MatchingKernelsTests {
    typealias Portable = RecognitionKernels.MatchingKernels
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

    typealias LanePair = SIMD16<Float>

    /// The kernels of every build this CPU runs.
    static var builds: [(ElasticMatcher.KernelBuild, any KernelSet.Type)] {
        ElasticMatcher.KernelBuild.supportedByThisCPU.map { ($0, $0.kernels) }
    }

    @Test("every build, one group or two at a time, gives the portable build's bits", arguments: [4, 17, 32, 64])
    func buildsAgree(pointCount: Int) {
        let builds = Self.builds
        for seed in UInt64(1)...20 {
            let length = pointCount * Portable.stride
            let candidates = Self.lanes(length, seed: seed)
            let templates = Self.lanes(length, seed: seed + 100, scale: 3)
            let otherCandidates = Self.lanes(length, seed: seed + 1000)
            let otherTemplates = Self.lanes(length, seed: seed + 1100, scale: 3)
            let pairedCandidates = zip(candidates, otherCandidates).map { LanePair(lowHalf: $0, highHalf: $1) }
            let pairedTemplates = zip(templates, otherTemplates).map { LanePair(lowHalf: $0, highHalf: $1) }
            var rows = [Lanes](repeating: .zero, count: 2 * pointCount)
            var pairRows = [LanePair](repeating: .zero, count: 2 * pointCount)
            for band in [0, 1, 4, pointCount] {
                let expected = Portable.elasticDistances(
                    candidates: candidates, templates: templates, count: pointCount, band: band, rows: &rows)
                let expectedOther = Portable.elasticDistances(
                    candidates: otherCandidates, templates: otherTemplates, count: pointCount, band: band, rows: &rows)
                for (build, kernels) in builds {
                    let single = kernels.elasticDistances(
                        candidates: candidates, templates: templates, count: pointCount, band: band, rows: &rows)
                    #expect(single.bitPattern == expected.bitPattern, "\(build), band \(band)")
                    let pair = kernels.elasticDistances(
                        candidates: pairedCandidates, templates: pairedTemplates, count: pointCount, band: band,
                        rows: &pairRows)
                    #expect(pair.lowHalf.bitPattern == expected.bitPattern, "\(build) pair, band \(band)")
                    #expect(pair.highHalf.bitPattern == expectedOther.bitPattern, "\(build) pair, band \(band)")
                }
            }
            for groups in 1...5 {
                let protractor = Self.lanes(
                    Portable.pairLayoutCount(groups: groups, length: 2 * pointCount), seed: seed + 200)
                let stroke = Self.lanes(2 * pointCount, seed: seed + 300).map { $0[0] }
                for (cosMax, sinMax) in [(Float(-1), Float(0)), (cos(Float(0.5)), sin(Float(0.5)))] {
                    var expectedDots = [Lanes](repeating: .zero, count: 2 * groups)
                    var expectedSimilarities = [Lanes](repeating: .zero, count: groups)
                    Portable.protractorSimilarities(
                        templates: protractor, groups: groups, stroke: stroke, length: 2 * pointCount, cosMax: cosMax,
                        sinMax: sinMax, dots: &expectedDots, similarities: &expectedSimilarities)
                    for (build, kernels) in builds {
                        for pairs in [false, true] {
                            var dots = [Lanes](repeating: .zero, count: 2 * groups)
                            var similarities = [Lanes](repeating: .zero, count: groups)
                            let compute =
                                pairs ? kernels.protractorSimilarityPairs : kernels.protractorSimilarities
                            compute(protractor, groups, stroke, 2 * pointCount, cosMax, sinMax, &dots, &similarities)
                            #expect(dots.map(\.bitPattern) == expectedDots.map(\.bitPattern), "\(build), \(groups)")
                            #expect(
                                similarities.map(\.bitPattern) == expectedSimilarities.map(\.bitPattern),
                                "\(build), pairs \(pairs), \(groups) groups")
                        }
                    }
                }
            }
        }
    }

    @Test("the Protractor kernel reads the pair layout: group g's component k at (g / 2) · 2L + 2k + g % 2")
    func protractorPairLayout() {
        // One template per group, all others zero: its dot product with a stroke of ones is the sum of its
        // components, which puts each group's components where the layout says.
        let length = 6
        let groups = 3
        var templates = [Lanes](repeating: .zero, count: Portable.pairLayoutCount(groups: groups, length: length))
        #expect(templates.count == 4 * length)
        for group in 0..<groups {
            for k in stride(from: 0, to: length, by: 2) {
                templates[(group / 2) * 2 * length + 2 * k + group % 2][0] = Float(group + 1)
            }
        }
        let stroke = [Float](repeating: 1, count: length)
        var dots = [Lanes](repeating: .zero, count: 2 * groups)
        var similarities = [Lanes](repeating: .zero, count: groups)
        ElasticMatcher.protractorSimilarities(
            templates: templates, groups: groups, stroke: stroke, length: length, cosMax: -1, sinMax: 0, dots: &dots,
            similarities: &similarities)
        for group in 0..<groups {
            #expect(dots[2 * group][0] == Float(3 * (group + 1)), "a of group \(group)")
            #expect(dots[2 * group + 1][0] == -Float(3 * (group + 1)), "b of group \(group)")
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

    @Test("every build turns a stroke's feature pairs by each lane's angle, alone or into half of each pair")
    func rotatePairs() {
        let count = 128
        let feature = Self.lanes(count / 8, seed: 7, scale: 2).flatMap { lanes in (0..<8).map { lanes[$0] } }
        let angles = (0..<8).map { Float($0) * 0.4 - 1.5 }
        let cosine = Lanes(angles.map { cos($0) })
        let sine = Lanes(angles.map { sin($0) })
        var results = [[Lanes]]()
        for (_, kernels) in Self.builds {
            for step in [1, 2] {
                var lanes = [Lanes](repeating: Lanes(repeating: 9), count: count * step)
                kernels.rotatePairs(feature, count: count, cosine: cosine, sine: sine, into: &lanes, step: step)
                for k in stride(from: 0, to: count, by: 2) {
                    for lane in 0..<8 {
                        let (x, y) = (Double(feature[k]), Double(feature[k + 1]))
                        let angle = Double(angles[lane])
                        #expect(abs(Double(lanes[k * step][lane]) - (x * cos(angle) - y * sin(angle))) < 1e-5)
                        #expect(abs(Double(lanes[(k + 1) * step][lane]) - (x * sin(angle) + y * cos(angle))) < 1e-5)
                    }
                }
                if step == 2 {
                    #expect(stride(from: 1, to: 2 * count, by: 2).allSatisfy { lanes[$0] == Lanes(repeating: 9) })
                    lanes = stride(from: 0, to: 2 * count, by: 2).map { lanes[$0] }
                }
                results.append(lanes)
            }
        }
        #expect(results.allSatisfy { $0 == results[0] }, "every build and step gives the same bits")
    }

    @Test("every build finds the same checkmark corner", arguments: [2, 3, 5, 8, 33, 65])
    func cornerBuildsAgree(count: Int) {
        let builds = ElasticMatcher.KernelBuild.supportedByThisCPU
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
            for build in builds {
                #expect(build.kernels.corner(xs: xs, ys: ys, count: count, start: start, chord: chord) == portable)
            }
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

    @Test("the widest build the kernel reports the CPU flags for is chosen, unless STROKE_KERNELS picks another")
    func choice() throws {
        #if arch(x86_64) && os(Linux)
            let cpuinfo = try String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)
            let line = try #require(cpuinfo.split(separator: "\n").first { $0.hasPrefix("flags") })
            let flags = Set(line.split(separator: " ").map(String.init))
            let v3 = ["avx2", "fma", "bmi1", "bmi2", "f16c", "abm", "movbe"].allSatisfy(flags.contains)
            let v4 =
                v3
                && ["avx512f", "avx512cd", "avx512bw", "avx512dq", "avx512vl", "avx512_vbmi2"].allSatisfy(
                    flags.contains)
            let supported: [ElasticMatcher.KernelBuild] =
                v4 ? [.portable, .wide, .avx512] : v3 ? [.portable, .wide] : [.portable]
            #expect(ElasticMatcher.KernelBuild.supportedByThisCPU == supported)
            let asked = ProcessInfo.processInfo.environment["STROKE_KERNELS"].flatMap(ElasticMatcher.KernelBuild.init)
            let expected = asked.flatMap { supported.contains($0) ? $0 : nil } ?? supported.last!
            #expect(ElasticMatcher.KernelBuild.current == expected)
            let set = ProcessInfo.processInfo.environment["STROKE_KERNELS"] != nil
            #expect((ElasticMatcher.KernelBuild.requestIgnored != nil) == (set && asked != expected))
        #elseif !arch(x86_64)
            #expect(ElasticMatcher.KernelBuild.current == .portable)
        #endif
    }
}

extension SIMD8<Float> {
    /// The lanes' bit patterns, to compare results bit for bit (NaNs included).
    fileprivate var bitPattern: SIMD8<UInt32> { SIMD8<UInt32>((0..<8).map { self[$0].bitPattern }) }
}
