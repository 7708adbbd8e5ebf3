import Foundation
import Testing

@testable import StrokeRecognition

/// What the detector reads from the second leg besides its length: its speed (a second leg still at speed fires at
/// `earlyFireFactor` of the fire ratio, as a check's does in the middle of its flick; one that slows down, as a v's
/// does near its end, waits for the ratio), its height (`compareHeights`) and its direction.
@Suite("Checkmark detector: the second leg's speed, height and direction")
struct CheckmarkSecondLegTests {
    /// The fraction of a movement from one point to another done at the fraction `tau` of its time, for a hand that
    /// moves smoothly (minimum jerk): slow, then fast in the middle, then slow.
    static func smooth(_ tau: Double) -> Double { tau * tau * tau * (10 - 15 * tau + 6 * tau * tau) }

    /// Two straight legs, the first `firstLength` long at 60° below the horizontal (screen y down), the second
    /// `ratio` times as long at 65° above it; each drawn in `legMilliseconds` by a sample every 8 ms, at the pace
    /// `pace` gives (time fraction → distance fraction). `timed: false` leaves every time at 0.
    static func stroke(
        ratio: Double, pace: (Double) -> Double, firstLength: Double = 100, legMilliseconds: Double = 320,
        timed: Bool = true
    ) -> [StrokePoint] {
        func direction(_ degrees: Double) -> SIMD2<Double> {
            SIMD2(cos(degrees * .pi / 180), sin(degrees * .pi / 180))
        }
        let corner = direction(60) * firstLength
        let end = corner + direction(-65) * firstLength * ratio
        let samples = Int(legMilliseconds / 8)
        var points = [StrokePoint]()
        for (from, to, leg) in [(SIMD2<Double>.zero, corner, 0), (corner, end, 1)] {
            for k in (leg == 0 ? 0 : 1)...samples {
                let tau = Double(k) / Double(samples)
                let at = from + (to - from) * (leg == 0 ? smooth(tau) : pace(tau))
                let time = timed ? (Double(leg) + tau) * legMilliseconds : 0
                points.append(StrokePoint(x: at.x, y: at.y, time: time))
            }
        }
        return points
    }

    /// Second leg ÷ first leg where the detector fired on `points`, or nil.
    static func ratioAtFire(_ points: [StrokePoint], _ configuration: CheckmarkConfiguration = .default) -> Double? {
        var detector = CheckmarkDetector(configuration: configuration)
        guard let fired = detector.add(contentsOf: points) else { return nil }
        let first = StrokeGeometry.distance(points[0].position, points[points.count / 2].position)
        let second = StrokeGeometry.distance(points[points.count / 2].position, points[fired.pointIndex].position)
        return second / first
    }

    @Test("a steep check in one smooth flick fires below the steep fire ratio; at an even pace or untimed it waits")
    func smoothFlickFiresEarly() throws {
        let c = CheckmarkConfiguration.default
        let flick = try #require(Self.ratioAtFire(Self.stroke(ratio: 2.2, pace: Self.smooth)))
        #expect(flick < c.steepFireRatio)
        #expect(flick >= c.steepFireRatio * c.earlyFireFactor - 0.05)
        let even = try #require(Self.ratioAtFire(Self.stroke(ratio: 2.2, pace: { $0 })))
        #expect(even >= c.steepFireRatio - 0.05)
        let untimed = try #require(Self.ratioAtFire(Self.stroke(ratio: 2.2, pace: Self.smooth, timed: false)))
        #expect(untimed >= c.steepFireRatio - 0.05)
        // `earlyFireFactor` 1 turns it off.
        var off = c
        off.earlyFireFactor = 1
        let lengthsOnly = try #require(Self.ratioAtFire(Self.stroke(ratio: 2.2, pace: Self.smooth), off))
        #expect(lengthsOnly >= c.steepFireRatio - 0.05)
    }

    @Test("a v whose second leg passes the early ratio while slowing to a stop does not fire")
    func slowingVDoesNotFire() {
        let c = CheckmarkConfiguration.default
        let ratio = 0.5 * (c.steepFireRatio * c.earlyFireFactor + c.steepFireRatio)
        #expect(Self.ratioAtFire(Self.stroke(ratio: ratio, pace: Self.smooth)) == nil)
        // The same legs with a second leg that speeds up to its end are not slowing down: they fire.
        #expect(Self.ratioAtFire(Self.stroke(ratio: ratio, pace: { $0 * $0 })) != nil)
    }

    @Test("a v whose second leg is longer but no higher, as a slant makes it, fires only without compareHeights")
    func slantedVNeedsHeights() {
        // Down at 75° below the horizontal, then up to the same height 1.6 times as far: at 37° above it, not steep,
        // so that `fireRatio` (1.15) applies to the lengths; the heights' ratio is 1. Drawn at an even pace.
        let drop = 100.0
        let first = SIMD2(drop / tan(75 * Double.pi / 180), drop)
        let secondLength = 1.6 * (first * first).sum().squareRoot()
        let second = SIMD2((secondLength * secondLength - drop * drop).squareRoot(), -drop)
        var points = [StrokePoint]()
        for k in 0...80 {
            let along = Double(k) / 40
            let at = k <= 40 ? first * along : first + second * (along - 1)
            points.append(StrokePoint(x: at.x, y: at.y, time: Double(k) * 8))
        }
        var lengthsOnly = CheckmarkConfiguration.default
        lengthsOnly.compareHeights = false
        #expect(Self.ratioAtFire(points, lengthsOnly) != nil)
        #expect(Self.ratioAtFire(points) == nil)
        // A check of the same legs whose second leg rises 1.6 times as high fires either way.
        let checkSecond = second * 1.6
        let check = points.enumerated().map { k, point in
            k <= 40
                ? point
                : StrokePoint(
                    x: first.x + checkSecond.x * (Double(k) / 40 - 1),
                    y: first.y + checkSecond.y * (Double(k) / 40 - 1), time: point.time)
        }
        #expect(Self.ratioAtFire(check) != nil)
    }

    @Test("a check whose second leg goes up a little past vertical, as a hand slanting left draws it, fires")
    func secondLegPastVertical() {
        // Down at 45° below the horizontal for 60, then up at 91° above it (a degree to the left) for 150.
        func direction(_ degrees: Double) -> SIMD2<Double> {
            SIMD2(cos(degrees * .pi / 180), sin(degrees * .pi / 180))
        }
        let first = direction(45) * 60
        let second = direction(-91) * 150
        let points = (0...80).map { k -> StrokePoint in
            let along = Double(k) / 40
            let at = k <= 40 ? first * along : first + second * (along - 1)
            return StrokePoint(x: at.x, y: at.y, time: Double(k) * 8)
        }
        #expect(Self.ratioAtFire(points) != nil)
        var upToVertical = CheckmarkConfiguration.default
        upToVertical.secondLegDirection = -88 ... -30
        #expect(Self.ratioAtFire(points, upToVertical) == nil)
    }

    @Test("stillAtSpeed compares the last fifth of the leg with its mean, and needs times that advance")
    func stillAtSpeed() {
        // Resampled points 0...10 with the corner at 0: evenly spaced, so speeds are points over time.
        func atSpeed(_ times: [Double], threshold: Double = 1.2) -> Bool {
            CheckmarkDetector.stillAtSpeed(times, corner: 0, count: times.count, threshold: threshold)
        }
        let even = (0...10).map { Double($0) * 10 }
        #expect(!atSpeed(even))
        #expect(atSpeed(even, threshold: 1))
        // Distance growing as the square of the time (speeding up), and as 1 − (1 − t)² (slowing to a stop).
        let speedingUp = (0...10).map { 100 * (Double($0) / 10).squareRoot() }
        #expect(atSpeed(speedingUp))
        let slowingDown = (0...10).map { 100 * (1 - (1 - Double($0) / 10).squareRoot()) }
        #expect(!atSpeed(slowingDown))
        #expect(!atSpeed(slowingDown, threshold: 1))
        #expect(!atSpeed([Double](repeating: 5, count: 11)))
        #expect(!atSpeed([Double](repeating: 0, count: 3)))
    }
}
