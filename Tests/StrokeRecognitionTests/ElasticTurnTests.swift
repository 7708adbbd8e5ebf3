import Foundation
import Testing

@testable import StrokeRecognition

/// `ElasticTurn.lanes`, which works its lanes out side by side, against the same formulas one lane at a time.
@Suite("Recognition: the elastic stage's turn toward each template")
struct ElasticTurnTests {
    /// The turn toward one template, one lane at a time: cosine and sine, or nil within the dead zone.
    static func reference(_ turn: ElasticTurn, a: Float, b: Float) -> (Float, Float)? {
        let r = (a * a + b * b).squareRoot()
        let (c, s) = (a / r, b / r)
        guard c < turn.deadCosine else { return nil }
        let sign: Float = s < 0 ? -1 : 1
        if c < turn.boundCosine { return (turn.clampedCosine, sign * turn.clampedSine) }
        return (c * turn.deadCosine + abs(s) * turn.deadSine, sign * (abs(s) * turn.deadCosine - c * turn.deadSine))
    }

    /// Libraries of each kind the recognizer turns strokes for.
    static let libraries = [
        TemplateLibrary(name: "sensitive", elasticDeadZoneDegrees: 10),
        TemplateLibrary(name: "wide bound", maxRotationDegrees: 60, elasticDeadZoneDegrees: 5),
        TemplateLibrary(name: "square", maxRotationDegrees: 120, elasticDeadZoneDegrees: 90),
        TemplateLibrary(name: "invariant", orientation: .invariant, maxRotationDegrees: 180),
    ]

    @Test("every lane has the bits of the lane-at-a-time formulas, in groups of 1 to 8 with templates drawn as is")
    func sameBits() throws {
        var random = SeededGenerator(seed: 66)
        // Angles all round, the axes and both zeros among them, and a few pairs with no angle at all.
        let special: [Float] = [0, -0, 1, -1, .leastNonzeroMagnitude, 1e-30, 3]
        for library in Self.libraries {
            let maxRotation = Float(library.maxRotationDegrees * .pi / 180)
            let turn = ElasticTurn(library: library, maxRotation: maxRotation)
            #expect(turn.rotates)
            var groupsTurned = 0
            for round in 0..<400 {
                let count = 1 + round % 8
                var entries: [Recognizer.Shortlisted] = []
                for lane in 0..<count {
                    let a: Float =
                        round % 5 == 0 ? special.randomElement(using: &random)! : .random(in: -2...2, using: &random)
                    let b: Float =
                        round % 7 == 0 ? special.randomElement(using: &random)! : .random(in: -2...2, using: &random)
                    entries.append((index: lane + round % 3, a: a, b: b))
                }
                let asDrawn = round % 4 == 0 ? (0..<12).map { _ in Bool.random(using: &random) } : []
                let lanes = entries.withUnsafeBufferPointer { turn.lanes(of: $0[...], except: asDrawn) }
                var anyTurned = false
                for lane in 0..<ElasticMatcher.Lanes.scalarCount {
                    var expected: (Float, Float) = (1, 0)
                    if lane < count, asDrawn.isEmpty || !asDrawn[entries[lane].index],
                        let turned = Self.reference(turn, a: entries[lane].a, b: entries[lane].b)
                    {
                        expected = turned
                        anyTurned = true
                    }
                    let got = try #require(lanes.map { ($0.cosine[lane], $0.sine[lane]) } ?? (anyTurned ? nil : (1, 0)))
                    #expect(
                        got.0.bitPattern == expected.0.bitPattern && got.1.bitPattern == expected.1.bitPattern,
                        "\(library.name), round \(round), lane \(lane): \(got) against \(expected)")
                }
                #expect((lanes != nil) == anyTurned, "\(library.name), round \(round)")
                if anyTurned { groupsTurned += 1 }
            }
            // Both outcomes were exercised.
            #expect(groupsTurned > 0 && groupsTurned < 400, "\(library.name): \(groupsTurned) of 400 groups turned")
        }
    }
}
