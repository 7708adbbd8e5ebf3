import Foundation
import Testing

@testable import StrokeRecognition

/// How much each leg turns the way the corner does (`firstLegMaxTurn`, `secondLegMaxTurn`): a check turns at its
/// corner and runs straight on either side of it; a pigtail's loop curves into its bottom and on out of it, and noise
/// can make that round bottom look like a sharp corner. And how long the first leg takes
/// (`minimumFirstLegDuration`): a hook where the finger lands is drawn in a few tens of milliseconds.
@Suite("Checkmark detector: the turn within each leg, the first leg's time")
struct CheckmarkLegTests {
    /// A leg of `count` + 1 resampled points along an arc that starts in the direction `start` (degrees, screen y
    /// down) and whose direction changes by `turn` degrees in all, spread evenly; `turn` > 0 turns the direction
    /// up (counterclockwise on the screen), as a check's corner does.
    static func arc(start: Double, turn: Double, count: Int = 16) -> (xs: [Double], ys: [Double]) {
        var at = SIMD2(0.0, 0.0)
        var (xs, ys) = ([at.x], [at.y])
        for k in 0..<count {
            let degrees = start - turn * (Double(k) + 0.5) / Double(count)
            at += SIMD2(cos(degrees * .pi / 180), sin(degrees * .pi / 180))
            xs.append(at.x)
            ys.append(at.y)
        }
        return (xs, ys)
    }

    static func legTurn(_ leg: (xs: [Double], ys: [Double])) -> Double {
        leg.xs.withUnsafeBufferPointer { xs in
            leg.ys.withUnsafeBufferPointer { ys in CheckmarkDetector.legTurn(xs, ys, from: 0, to: xs.count - 1) }
        }
    }

    @Test("legTurn is the difference of the directions of the leg's two halves, signed as the corner turns")
    func legTurnOfArcs() {
        #expect(abs(Self.legTurn(Self.arc(start: -60, turn: 0))) < 1e-9)
        // Along an arc the chords of its halves differ by half of its turn.
        #expect(abs(Self.legTurn(Self.arc(start: -30, turn: 80)) - 40) < 1e-9)
        #expect(abs(Self.legTurn(Self.arc(start: 45, turn: -50)) + 25) < 1e-9)
        // Through ±180°: a leg heading left that turns up is still a positive turn.
        #expect(abs(Self.legTurn(Self.arc(start: 170, turn: -40)) + 20) < 1e-9)
        #expect(abs(Self.legTurn(Self.arc(start: -170, turn: 40)) - 20) < 1e-9)
        // A leg of two points has no middle point: no turn.
        #expect(Self.legTurn(([0, 1], [0, 1])) == 0)
    }

    @Test("a check whose second leg goes on turning past its corner, as a loop does, fires only without the limit")
    func curvingSecondLeg() {
        var off = CheckmarkConfiguration.default
        off.secondLegMaxTurn = 1000
        // Down 45° for 100, then an arc of radius 120 that leaves the corner 10° above the horizontal and turns up
        // by 100°. Its chord passes the fire ratio (and the heights theirs) about 63° into the arc, heading 41° up:
        // the leg then turns by 31° of the legs' 86° (0.36; the default limit is 0.3), and by more as it goes on.
        let first = SIMD2(100 / 2.squareRoot(), 100 / 2.squareRoot())
        var points = (0...40).map { k in
            StrokePoint(x: first.x * Double(k) / 40, y: first.y * Double(k) / 40, time: Double(k) * 8)
        }
        var at = first
        let step: Double = 120 * (100 * .pi / 180) / 60
        for k in 1...60 {
            let radians: Double = (-10 - 100 * (Double(k) - 0.5) / 60) * .pi / 180
            at += SIMD2(cos(radians), sin(radians)) * step
            points.append(StrokePoint(x: at.x, y: at.y, time: Double(40 + k) * 8))
        }
        var without = CheckmarkDetector(configuration: off)
        #expect(without.add(contentsOf: points) != nil)
        var with = CheckmarkDetector()
        #expect(with.add(contentsOf: points) == nil)
        // The same first leg followed by a straight second leg to the arc's end fires either way.
        let end = at
        let straight =
            (0...40).map { k in points[k] }
            + (1...60).map { k in
                let at = first + (end - first) * Double(k) / 60
                return StrokePoint(x: at.x, y: at.y, time: Double(40 + k) * 8)
            }
        var check = CheckmarkDetector()
        #expect(check.add(contentsOf: straight) != nil)
    }

    @Test("recorded pigtails shaken by noise of 1% of their size fire only without the limits on the legs' turn")
    func shakenPigtails() {
        var off = CheckmarkConfiguration.default
        off.firstLegMaxTurn = 1000
        off.secondLegMaxTurn = 1000
        var firstOnly = off
        firstOnly.firstLegMaxTurn = CheckmarkConfiguration.default.firstLegMaxTurn
        var secondOnly = off
        secondOnly.secondLegMaxTurn = CheckmarkConfiguration.default.secondLegMaxTurn
        var perturbation = StrokePerturbation()
        perturbation.jitter = 0.01
        func fires(seed: UInt64, _ configuration: CheckmarkConfiguration) -> Bool {
            var generator = SeededGenerator(seed: seed)
            let points = perturbation.apply(to: Fixtures.log("pigtail", index: 1).points, using: &generator)
            var detector = CheckmarkDetector(configuration: configuration)
            return detector.add(contentsOf: points) != nil
        }
        // With this noise (seed 4) the loop's rise turns on past the corner the noise made; with seed 17 the tail
        // curves into it.
        #expect(fires(seed: 4, off))
        #expect(fires(seed: 4, firstOnly))
        #expect(!fires(seed: 4, secondOnly))
        #expect(fires(seed: 17, off))
        #expect(!fires(seed: 17, firstOnly))
        #expect(fires(seed: 17, secondOnly))
        #expect(!fires(seed: 4, .default) && !fires(seed: 17, .default))
        // The recorded checks fire through the same noise.
        for index in 0..<3 {
            for seed: UInt64 in [4, 17] {
                var generator = SeededGenerator(seed: seed)
                let points = perturbation.apply(to: Fixtures.log("check", index: index).points, using: &generator)
                var detector = CheckmarkDetector()
                #expect(detector.add(contentsOf: points) != nil, "check \(index), seed \(seed)")
            }
        }
    }

    /// A hook where the finger lands, 4 units down and right in `hookMilliseconds`, then a straight shaft 300 units
    /// up and to the right, as an arrow's starts; sampled at 240 Hz.
    static func landing(hookMilliseconds: Double) -> [StrokePoint] {
        let interval = 1000.0 / 240
        let hookSamples = max(2, Int((hookMilliseconds / interval).rounded()))
        var points = (0...hookSamples).map { k in
            let along = 4 * Double(k) / Double(hookSamples) / 2.squareRoot()
            return StrokePoint(x: along, y: along, time: Double(k) * interval)
        }
        let corner = points[hookSamples]
        for k in 1...150 {
            let along = 2 * Double(k) / 2.squareRoot()
            points.append(
                StrokePoint(x: corner.x + along, y: corner.y - along, time: corner.time + Double(k) * interval))
        }
        return points
    }

    @Test("a hook where the finger lands, then a long stroke, fires only where the hook took minimumFirstLegDuration")
    func landingHook() throws {
        var off = CheckmarkConfiguration.default
        off.minimumFirstLegDuration = 0
        let quick = Self.landing(hookMilliseconds: 20)
        // Without the limit the hook's shape fires as soon as `minimumDuration` lets it.
        var without = CheckmarkDetector(configuration: off)
        let detection = without.add(contentsOf: quick)
        let fired = try #require(detection)
        #expect(fired.time - quick[0].time < 105)
        var with = CheckmarkDetector()
        #expect(with.add(contentsOf: quick) == nil)
        // The same shape with a first leg drawn in 80 ms is a small check, and fires.
        var slow = CheckmarkDetector()
        #expect(slow.add(contentsOf: Self.landing(hookMilliseconds: 80)) != nil)
        // Times that do not advance are not held to it.
        var untimed = CheckmarkDetector()
        #expect(untimed.add(contentsOf: quick.map { StrokePoint(x: $0.x, y: $0.y, time: 0) }) != nil)
    }

    /// Two straight legs at `first` and `second` degrees (screen y down), of `firstLength` and 1.6 times that, a
    /// point every 2 units and 8 ms.
    static func corner(first: Double, second: Double, firstLength: Double = 60) -> [StrokePoint] {
        var points = [StrokePoint]()
        var at = SIMD2(100.0, 100.0)
        for (degrees, length) in [(first, firstLength), (second, firstLength * 1.6)] {
            let step = SIMD2(cos(degrees * .pi / 180), sin(degrees * .pi / 180)) * 2
            for _ in 0..<Int(length / 2) {
                points.append(StrokePoint(x: at.x, y: at.y, time: Double(points.count) * 8))
                at += step
            }
        }
        points.append(StrokePoint(x: at.x, y: at.y, time: Double(points.count) * 8))
        return points
    }

    @Test(
        "the corner of an L, rightward then up (a right bracket drawn backward), fires only without squareCornerTolerance"
    )
    func squareCorner() {
        var off = CheckmarkConfiguration.default
        off.squareCornerTolerance = 0
        for (first, second) in [(0.0, -90.0), (6, -84), (-4, -95)] where second >= -92 || first < 0 {
            let l = Self.corner(first: first, second: second)
            var without = CheckmarkDetector(configuration: off)
            var with = CheckmarkDetector()
            // `firstLegDirection` (0…120) and `secondLegDirection` (−92…−30) would refuse the others anyway.
            if (0...120).contains(first) && (-92 ... -30).contains(second) {
                #expect(without.add(contentsOf: l) != nil, "\(first), \(second)")
            }
            #expect(with.add(contentsOf: l) == nil, "\(first), \(second)")
        }
        // A check whose first leg is shallow but whose second leg leans right, or whose first leg falls more, fires.
        for (first, second) in [(5.0, -70.0), (14, -85), (40, -60)] {
            var detector = CheckmarkDetector()
            #expect(detector.add(contentsOf: Self.corner(first: first, second: second)) != nil, "\(first), \(second)")
        }
    }
}
