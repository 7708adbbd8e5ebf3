import Foundation
import Testing

@testable import StrokeRecognition

@Suite("Stroke perturbations (stroke-tool eval --perturb, robustness)")
struct StrokePerturbationTests {
    /// A square's corners around (10, 20), a point every 10 ms.
    static let square = [(9.0, 19.0), (11.0, 19.0), (11.0, 21.0), (9.0, 21.0)].enumerated().map {
        StrokePoint(x: $1.0, y: $1.1, time: Double($0) * 10)
    }

    static func apply(_ text: String, to points: [StrokePoint] = square, seed: UInt64 = 1) throws -> [StrokePoint] {
        var generator = SeededGenerator(seed: seed)
        return try StrokePerturbation(parsing: text).apply(to: points, using: &generator)
    }

    static func close(_ a: [StrokePoint], _ b: [(Double, Double)]) -> Bool {
        a.count == b.count && zip(a, b).allSatisfy { abs($0.x - $1.0) < 1e-9 && abs($0.y - $1.1) < 1e-9 }
    }

    @Test("the geometric changes act around the centroid: rotation clockwise on screen, slant, aspect, rounding")
    func geometry() throws {
        // (11, 19) is right of and above the centre (10, 20); 90° clockwise on screen takes it right and below.
        #expect(Self.close(try Self.apply("rotate=90"), [(11, 19), (11, 21), (9, 21), (9, 19)]))
        #expect(Self.close(try Self.apply("shear=0.5"), [(8.5, 19), (10.5, 19), (11.5, 21), (9.5, 21)]))
        #expect(Self.close(try Self.apply("aspect=4"), [(8, 19.5), (12, 19.5), (12, 20.5), (8, 20.5)]))
        let rounded = try Self.apply("quantize=2", to: [StrokePoint(x: 2.9, y: -3.1), StrokePoint(x: 5.2, y: 0.4)])
        #expect(Self.close(rounded, [(2, -4), (6, 0)]))
        #expect(try Self.apply("").map(\.time) == Self.square.map(\.time))
    }

    @Test("reversed: the last point first, each segment taking as long as it did; before the other changes")
    func reversed() throws {
        let uneven = [(0.0, 0.0, 100.0), (4.0, 0.0, 110.0), (4.0, 3.0, 140.0), (0.0, 3.0, 145.0)].map {
            StrokePoint(x: $0.0, y: $0.1, time: $0.2)
        }
        let back = try Self.apply("reverse=1", to: uneven)
        #expect(Self.close(back, [(0, 3), (4, 3), (4, 0), (0, 0)]))
        #expect(back.map(\.time) == [100, 105, 135, 145])
        #expect(try Self.apply("reverse=1", to: back) == uneven)
        // Then resampled in time as any stroke: the first 5 ms are the last segment drawn backward.
        #expect(Self.close(Array(try Self.apply("reverse=1,rate=1000", to: uneven).prefix(2)), [(0, 3), (0.8, 3)]))
        #expect(try Self.apply("reverse=0", to: uneven) == uneven)
    }

    @Test("jitter: drawn from the generator, repeatable, scaled by the stroke's diagonal")
    func jitter() throws {
        let once = try Self.apply("jitter=0.1", seed: 5)
        #expect(try Self.apply("jitter=0.1", seed: 5) == once)
        #expect(try Self.apply("jitter=0.1", seed: 6) != once)
        let big = Self.square.map { StrokePoint(x: $0.x * 1000, y: $0.y * 1000, time: $0.time) }
        let scaled = try Self.apply("jitter=0.1", to: big, seed: 5)
        for (small, large) in zip(once, scaled) {
            #expect(abs(large.x - small.x * 1000) < 1e-6)
        }
        var generator = SeededGenerator(seed: 9)
        let draws = (0..<20_000).map { _ in StrokePerturbation.gaussian(using: &generator) }
        let mean = draws.reduce(0, +) / Double(draws.count)
        let variance = draws.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(draws.count)
        #expect(abs(mean) < 0.03)
        #expect(abs(variance - 1) < 0.05)
    }

    @Test("timing: resampled at a rate keeps the path's ends; ease keeps the first and last times")
    func timing() throws {
        let resampled = try Self.apply("rate=200")  // every 5 ms over 30 ms: 7 points
        #expect(resampled.map(\.time) == [0, 5, 10, 15, 20, 25, 30])
        #expect(Self.close(resampled, [(9, 19), (10, 19), (11, 19), (11, 20), (11, 21), (10, 21), (9, 21)]))
        let eased = try Self.apply("ease=2")
        let expected: [Double] = [0, 30.0 / 9, 120.0 / 9, 30]
        #expect(zip(eased.map(\.time), expected).allSatisfy { abs($0 - $1) < 1e-9 })
        let still = [StrokePoint(x: 0, y: 0, time: 5), StrokePoint(x: 1, y: 1, time: 5)]
        #expect(try Self.apply("rate=100,ease=3", to: still) == still)
        let endless = [StrokePoint(x: 0, y: 0, time: 0), StrokePoint(x: 1, y: 1, time: 1e12)]
        #expect(try Self.apply("rate=1000", to: endless) == endless)
        // Runs of 3 samples take their last one's time; the positions stay.
        let stamped = try Self.apply("rate=200,stamp=3")
        #expect(stamped.map(\.time) == [10, 10, 10, 25, 25, 25, 30])
        #expect(Self.close(stamped, [(9, 19), (10, 19), (11, 19), (11, 20), (11, 21), (10, 21), (9, 21)]))
    }

    @Test("parsing: names and ranges, errors that name the pair, and a description that parses back")
    func parsing() throws {
        let text = "reverse=1,ease=0.7,rate=240,rotate=-12.5,shear=0.2,aspect=1.25,jitter=0.01,quantize=1,stamp=4"
        let perturbation = try StrokePerturbation(parsing: text)
        #expect(perturbation.description == text)
        #expect(try StrokePerturbation(parsing: perturbation.description) == perturbation)
        #expect(StrokePerturbation().description == "none")
        for (bad, message) in [
            ("spin=3", "unknown"), ("rotate", "expected NAME=NUMBER"), ("rate=0", "out of range"),
            ("rate=1e9", "out of range"),
            ("aspect=-1", "out of range"), ("jitter=nan", "expected NAME=NUMBER"), ("ease=abc", "expected"),
            ("stamp=0", "out of range"), ("stamp=2.5", "out of range"), ("reverse=2", "out of range"),
        ] {
            #expect(throws: RecognitionError.self, "\(bad)") { try StrokePerturbation(parsing: bad) }
            do {
                _ = try StrokePerturbation(parsing: bad)
            } catch {
                #expect(error.message.contains(bad) && error.message.contains(message), "\(error.message)")
            }
        }
    }

    @Test("the evaluator perturbs the tested strokes only, the same way whatever their order")
    func evaluator() throws {
        let logs = Fixtures.logs
        var evaluator = Evaluator(samples: logs)
        evaluator.perturbation = try StrokePerturbation(parsing: "rotate=90")
        let library = try TemplateLibrary.builtIn()
        let turned = try evaluator.userIndependent(library: library)
        #expect(turned.accuracy < 0.5)  // an orientation-sensitive library does not take a quarter turn
        evaluator.perturbation = try StrokePerturbation(parsing: "jitter=0.01")
        let first = evaluator.checkmarkFigures()
        evaluator.samples.reverse()
        let again = evaluator.checkmarkFigures()
        #expect(again.truePositiveRate == first.truePositiveRate)
        #expect(again.falsePositivesByGesture == first.falsePositivesByGesture)
        #expect(again.medianLeadFraction == first.medianLeadFraction)
        #expect(Evaluator(samples: logs).tested(logs[0]) == logs[0].points)
    }
}
