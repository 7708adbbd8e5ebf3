import Foundation
import Testing

@testable import StrokeRecognition

@Suite("Protractor closed form")
struct ProtractorTests {
    private func features(_ points: [SIMD2<Double>]) throws -> [Float] {
        try ShapeFeatures(points: points, pointCount: 32, tangentWeight: 1).vector
    }

    private func align(_ template: [Float], _ candidate: [Float], max: Float = .infinity) -> Protractor.Alignment {
        template.withUnsafeBufferPointer { t in
            candidate.withUnsafeBufferPointer { c in Protractor.align(template: t, candidate: c, maxRotation: max) }
        }
    }

    static let shape: [SIMD2<Double>] = [SIMD2(0, 0), SIMD2(4, 1), SIMD2(5, 4), SIMD2(2, 6)]

    @Test("identical vectors give distance exactly 0, not NaN")
    func identical() throws {
        let v = try features(Self.shape)
        let alignment = align(v, v)
        #expect(alignment.distance == 0)
        #expect(!alignment.distance.isNaN)
    }

    @Test("the optimal angle is found with atan2, also beyond ±90°", arguments: [-150.0, -60.0, 20.0, 150.0])
    func recoversRotation(degrees: Double) throws {
        let template = try features(Self.shape)
        let candidate = try features(StrokeGeometry.rotated(Self.shape, by: -degrees * .pi / 180))
        let alignment = align(template, candidate)
        #expect(abs(Double(alignment.angle) * 180 / .pi - degrees) < 0.5)
        #expect(alignment.distance < 0.01)
    }

    @Test("a bounded rotation stops at the bound and is no better than the unbounded optimum")
    func bounded() throws {
        let template = try features(Self.shape)
        let candidate = try features(StrokeGeometry.rotated(Self.shape, by: -.pi / 2))
        let free = align(template, candidate)
        let limit = Float(30 * Double.pi / 180)
        let bounded = align(template, candidate, max: limit)
        #expect(abs(bounded.angle - limit) < 1e-6)
        #expect(bounded.similarity < free.similarity)
        let a: Float = 0.3
        let b: Float = 0.8
        let fast = Protractor.similarity(a: a, b: b, cosMax: cos(limit), sinMax: sin(limit))
        #expect(abs(fast - Protractor.alignment(a: a, b: b, maxRotation: limit).similarity) < 1e-6)
    }
}
