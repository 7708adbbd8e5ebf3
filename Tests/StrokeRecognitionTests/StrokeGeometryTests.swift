import Foundation
import Testing

@testable import StrokeRecognition

@Suite("Geometry steps")
struct StrokeGeometryTests {
    @Test("resampling a straight line gives evenly spaced points, first and last kept")
    func resampleLine() {
        let line: [SIMD2<Double>] = [SIMD2(0, 0), SIMD2(3, 0), SIMD2(9, 0)]
        let points = StrokeGeometry.resample(line, count: 4)
        #expect(points == [SIMD2(0, 0), SIMD2(3, 0), SIMD2(6, 0), SIMD2(9, 0)])
    }

    @Test("resampling an L turns the corner at the right distance")
    func resampleCorner() {
        let l: [SIMD2<Double>] = [SIMD2(0, 0), SIMD2(2, 0), SIMD2(2, 2)]
        let points = StrokeGeometry.resample(l, count: 5)
        let expected: [SIMD2<Double>] = [SIMD2(0, 0), SIMD2(1, 0), SIMD2(2, 0), SIMD2(2, 1), SIMD2(2, 2)]
        for (p, e) in zip(points, expected) { #expect(StrokeGeometry.distance(p, e) < 1e-12) }
    }

    @Test(
        "resampling a polyline whose segments' squares overflow or vanish gives its points at its own scale",
        arguments: [600, -600, -1000])
    func resampleExtremeScale(exponent: Int) {
        // Before session 82 a polyline 1e-300 long came out as N copies of its first point (its length was 0).
        let corner: [SIMD2<Double>] = [SIMD2(0, 0), SIMD2(3, 0), SIMD2(3, 5), SIMD2(-2, 7)]
        let scaled = corner.map { StrokeGeometry.scaled($0, by: exponent) }
        #expect(
            StrokeGeometry.resample(scaled, count: 9)
                == StrokeGeometry.resample(corner, count: 9).map { StrokeGeometry.scaled($0, by: exponent) })
    }

    @Test("resampling always yields exactly N points", arguments: [2, 3, 16, 32, 64, 97, 256])
    func resampleCount(count: Int) {
        let spiral: [SIMD2<Double>] = (0..<137).map { k in
            let t = Double(k)
            let angle = t * 0.37
            return SIMD2(cos(angle) * t, sin(angle) * 0.3)
        }
        #expect(StrokeGeometry.resample(spiral, count: count).count == count)
        #expect(StrokeGeometry.resample([SIMD2(1, 1), SIMD2(1, 1)], count: count).count == count)
    }

    /// Resampling as a walk that passes one input point at a time: what `resample` did before its search by
    /// counting (session 76), and must match bit for bit.
    static func walked(_ input: [SIMD2<Double>], count: Int) -> [SIMD2<Double>] {
        let segments = input.count - 1
        let lengths = (0..<max(segments, 0)).map { StrokeGeometry.distance(input[$0], input[$0 + 1]) }
        let total = lengths.reduce(0, +)
        guard total > 0 else { return Array(repeating: input[0], count: count) }
        var output = [input[0]]
        let interval = total / Double(count - 1)
        var (segment, travelled) = (0, 0.0)
        for k in 1..<(count - 1) {
            let target = Double(k) * interval
            while segment < segments - 1 && travelled + lengths[segment] < target {
                travelled += lengths[segment]
                segment += 1
            }
            let length = lengths[segment]
            let t = length > 0 ? min(1, max(0, (target - travelled) / length)) : 0
            output.append(input[segment] + (input[min(segment + 1, segments)] - input[segment]) * t)
        }
        return output + [input[segments]]
    }

    @Test("resampling finds each output point's segment as a walk one point at a time does, bit for bit")
    func resampleMatchesTheWalk() {
        var generator = SeededGenerator(seed: 76)
        for trial in 0..<2_000 {
            // Sparse and dense strokes, repeated points (segments of length 0) and jumps.
            let points = Int.random(in: 2...300, using: &generator)
            var point = SIMD2<Double>.zero
            let stroke = (0..<points).map { _ -> SIMD2<Double> in
                switch Int.random(in: 0..<10, using: &generator) {
                case 0: break
                case 1: point += SIMD2(Double.random(in: -500...500, using: &generator), 0)
                default:
                    point += SIMD2(
                        Double.random(in: -3...3, using: &generator), Double.random(in: -3...3, using: &generator))
                }
                return point
            }
            for count in [2, 3, 32, 64, 97] {
                let resampled = StrokeGeometry.resample(stroke, count: count)
                let expected = Self.walked(stroke, count: count)
                #expect(
                    resampled.map(\.x.bitPattern) == expected.map(\.x.bitPattern)
                        && resampled.map(\.y.bitPattern) == expected.map(\.y.bitPattern),
                    "trial \(trial), \(points) points to \(count)")
            }
        }
    }

    @Test("centroid, translation and uniform scaling")
    func centroidAndScale() {
        let square: [SIMD2<Double>] = [SIMD2(1, 1), SIMD2(3, 1), SIMD2(3, 3), SIMD2(1, 3)]
        #expect(StrokeGeometry.centroid(square) == SIMD2(2, 2))
        let centered = StrokeGeometry.translatedToOrigin(square)
        #expect(centered == [SIMD2(-1, -1), SIMD2(1, -1), SIMD2(1, 1), SIMD2(-1, 1)])
        #expect(abs(StrokeGeometry.rmsRadius(centered) - 2.0.squareRoot()) < 1e-12)
        let scaled = StrokeGeometry.scaledToUnitRadius(centered)
        #expect(abs(StrokeGeometry.rmsRadius(scaled) - 1) < 1e-12)
    }

    @Test("a straight line keeps its aspect ratio when scaled")
    func lineDoesNotBlowUp() {
        let line = StrokeGeometry.translatedToOrigin([SIMD2(0, 0), SIMD2(10, 0)])
        let scaled = StrokeGeometry.scaledToUnitRadius(line)
        #expect(scaled.allSatisfy { $0.y == 0 && $0.x.isFinite })
    }

    @Test("rotation uses the original x when computing y")
    func rotation() {
        let rotated = StrokeGeometry.rotated([SIMD2(1, 0), SIMD2(0, 2)], by: .pi / 2)
        #expect(StrokeGeometry.distance(rotated[0], SIMD2(0, 1)) < 1e-12)
        #expect(StrokeGeometry.distance(rotated[1], SIMD2(-2, 0)) < 1e-12)
    }

    @Test("the flattened vector has unit norm and the indicative angle points at the first point")
    func vectorAndAngle() {
        let points: [SIMD2<Double>] = [SIMD2(3, 0), SIMD2(-1, 0), SIMD2(-1, 1), SIMD2(-1, -1)]
        let vector = StrokeGeometry.unitVector(points)
        #expect(vector.count == 8)
        #expect(abs(vector.reduce(0) { $0 + $1 * $1 } - 1) < 1e-6)
        #expect(abs(StrokeGeometry.indicativeAngle(points)) < 1e-12)
    }
}
