import Foundation
import Testing

@testable import StrokeRecognition

@Suite("Streaming checkmark detector")
struct CheckmarkDetectorTests {
    @Test(
        "synthetic checks fire before their end at every rate and size",
        arguments: [60.0, 120.0, 240.0], [0.5, 20.0, 300.0, 5000.0])
    func checksFire(hertz: Double, size: Double) {
        let points = Fixtures.check(size: size, step: size / 60 * 120 / hertz, hertz: hertz)
        var detector = CheckmarkDetector()
        let fired = detector.add(contentsOf: points)
        #expect(fired != nil)
        if let fired {
            #expect(fired.pointIndex < points.count - 1)
            #expect(fired.time == points[fired.pointIndex].time)
        }
    }

    @Test("v's, carets and zig-zags do not fire", arguments: [0.5, 100.0, 3000.0])
    func othersDoNotFire(size: Double) {
        for points in [
            Fixtures.v(size: size, step: size / 50), Fixtures.caret(size: size, step: size / 50),
            Fixtures.zigzag(size: size, step: size / 50),
        ] {
            var detector = CheckmarkDetector()
            #expect(detector.add(contentsOf: points) == nil)
        }
    }

    @Test(
        "point by point and in batches of any size give the same detection, and every point is counted",
        arguments: [false, true])
    func batching(withNonFinitePoints: Bool) {
        for log in Fixtures.logs {
            var points = log.points
            if withNonFinitePoints {
                // Points the detector skips, among the others: batches then fall back to one length at a time.
                for (k, bad) in [StrokePoint(x: .nan, y: 1), StrokePoint(x: 2, y: .infinity)].enumerated()
                where points.count > 10 {
                    points.insert(bad, at: points.count * (k + 1) / 3)
                }
            }
            var single = CheckmarkDetector()
            var one: CheckmarkDetector.Detection?
            for point in points {
                if let fired = single.add(point) { one = fired }
            }
            #expect(single.pointCount == points.count)
            for batch in [2, 3, 4, 7, 32, 100] {  // below 4, no lengths are computed ahead
                var batched = CheckmarkDetector()
                var fired: CheckmarkDetector.Detection?
                var index = 0
                while index < points.count {
                    let detection = batched.add(contentsOf: points[index..<min(index + batch, points.count)])
                    #expect(detection == nil || fired == nil, "fires once")
                    fired = fired ?? detection
                    index += batch
                }
                #expect(fired == one, "\(log.gesture) in batches of \(batch)")
                #expect(batched.pointCount == points.count)
            }
        }
    }

    @Test(
        "a point so far from the last that their distance overflows is skipped, as a non-finite one is",
        arguments: [1, 3, 4, 32])
    func overflowingDistance(batch: Int) {
        let clean = Fixtures.check()
        var expected = CheckmarkDetector()
        let detection = expected.add(contentsOf: clean)
        #expect(detection != nil)
        // Finite, but 1e200 squared is not: the walk would interpolate NaN points along an infinite segment.
        var points = clean
        let middle = clean.count / 3
        points.insert(StrokePoint(x: 1e200, y: clean[middle].y, time: clean[middle].time), at: middle)
        points.insert(StrokePoint(x: clean[middle].x, y: -1e200, time: clean[middle].time), at: middle + 1)
        var detector = CheckmarkDetector()
        var fired: CheckmarkDetector.Detection?
        var index = 0
        while index < points.count {
            let detection = detector.add(contentsOf: points[index..<min(index + batch, points.count)])
            fired = fired ?? detection
            index += batch
        }
        #expect(detector.pointCount == points.count)
        // The same resampled points as without them: it fires where the clean stroke does, two points later.
        #expect(fired?.pointIndex == detection.map { $0.pointIndex + 2 })
        #expect(fired?.time == detection?.time)
    }

    @Test("fires at most once per stroke, and again after reset")
    func once() {
        var detector = CheckmarkDetector()
        let points = Fixtures.check()
        #expect(detector.add(contentsOf: points) != nil)
        #expect(detector.add(contentsOf: points) == nil)
        #expect(detector.detection != nil)
        detector.reset()
        #expect(detector.add(contentsOf: points) != nil)
    }

    @Test("robust to integer pixels and jitter")
    func jitter() {
        var generator = SeededGenerator(seed: 3)
        let points = Fixtures.check(size: 150, step: 3).map { p in
            StrokePoint(
                x: (p.x + Double.random(in: -0.7...0.7, using: &generator)).rounded(),
                y: (p.y + Double.random(in: -0.7...0.7, using: &generator)).rounded(), time: p.time)
        }
        var detector = CheckmarkDetector()
        #expect(detector.add(contentsOf: points) != nil)
    }

    @Test("recorded checks fire through jitter of 1.5% of their size, which lengthens their path")
    func recordedChecksThroughJitter() {
        var perturbation = StrokePerturbation()
        // Measured through nine points of each leg, not along the walk: with the walk's own length a third of
        // these fired.
        perturbation.jitter = 0.015
        let checks = Fixtures.logs.filter { $0.gesture == "check" }
        #expect(checks.count == 5)
        func pathLength(_ points: [StrokePoint]) -> Double { StrokeGeometry.pathLength(points.map(\.position)) }
        for (index, log) in checks.enumerated() {
            for seed in 0..<10 {
                var generator = SeededGenerator(seed: UInt64(10 * index + seed))
                let points = perturbation.apply(to: log.points, using: &generator)
                #expect(pathLength(points) > 1.05 * pathLength(log.points))
                var detector = CheckmarkDetector()
                #expect(detector.add(contentsOf: points) != nil, "\(log.subject) \(log.speed) check, seed \(seed)")
            }
        }
    }

    @Test("a check drawn within minimumDuration does not fire; slower, without times, or with 0 it does")
    func minimumDuration() {
        // 78 points in 77 ms: a hook where a finger lands is this quick.
        let quick = Fixtures.check(size: 100, step: 2, hertz: 1000)
        #expect(quick.last!.time < CheckmarkConfiguration.default.minimumDuration)
        var detector = CheckmarkDetector()
        #expect(detector.add(contentsOf: quick) == nil)
        // The same path at 120 Hz (640 ms) fires, after the first 100 ms.
        detector = CheckmarkDetector()
        let fired = detector.add(contentsOf: Fixtures.check(size: 100, step: 2, hertz: 120))
        #expect((fired?.time ?? 0) >= 100)
        // Times that never advance hold nothing back.
        detector = CheckmarkDetector()
        #expect(detector.add(contentsOf: quick.map { StrokePoint(x: $0.x, y: $0.y, time: 7) }) != nil)
        // Its first leg takes 21 ms: `minimumFirstLegDuration` goes too.
        var configuration = CheckmarkConfiguration.default
        configuration.minimumDuration = 0
        configuration.minimumFirstLegDuration = 0
        detector = CheckmarkDetector(configuration: configuration)
        #expect(detector.add(contentsOf: quick) != nil)
        // Point by point, the same.
        detector = CheckmarkDetector()
        #expect(quick.allSatisfy { detector.add($0) == nil })
    }

    @Test("a check whose times advance like seconds is held back, and says so; one in milliseconds does not")
    func timesInSeconds() {
        let milliseconds = Fixtures.check(size: 100, step: 2, hertz: 120)
        let seconds = milliseconds.map { StrokePoint(x: $0.x, y: $0.y, time: $0.time / 1000) }
        var state = CheckmarkDetector.State()
        var buffer = [Double](repeating: 0, count: state.bufferCount)
        func feed(_ points: [StrokePoint]) -> CheckmarkDetector.Detection? {
            state.reset()
            return points.withUnsafeBufferPointer { points in
                buffer.withUnsafeMutableBufferPointer { state.add(contentsOf: points, buffer: $0.baseAddress!) }
            }
        }
        #expect(feed(seconds) == nil)
        #expect(state.timesLookLikeSeconds)
        #expect(feed(milliseconds) != nil)
        #expect(!state.timesLookLikeSeconds)
        // A quick hook in milliseconds is held back too, but not for its units.
        #expect(feed(Fixtures.check(size: 100, step: 2, hertz: 1000)) == nil)
        #expect(!state.timesLookLikeSeconds)
    }

    @Test("held back by minimumDuration, a check fires at its first point after it, whatever the batches")
    func heldThenFired() {
        // A check drawn in 118 ms (4 kHz): its shape passes every test before 100 ms, and keeps passing after. A
        // little noise makes every segment's length differ, so that a restart reading the wrong one would show.
        var generator = SeededGenerator(seed: 4)
        var noise = StrokePerturbation()
        noise.jitter = 0.001
        let points = noise.apply(to: Fixtures.check(size: 300, step: 1, hertz: 4000), using: &generator)
        // Its first leg takes 32 ms: `minimumFirstLegDuration` is off here, so that the shape passes.
        var held = CheckmarkConfiguration.default
        held.minimumFirstLegDuration = 0
        var unheld = held
        unheld.minimumDuration = 0
        var early = CheckmarkDetector(configuration: unheld)
        let first = early.add(contentsOf: points)
        #expect((first?.time ?? 1000) < 100)
        var single = CheckmarkDetector(configuration: held)
        var one: CheckmarkDetector.Detection?
        for point in points where one == nil { one = single.add(point) }
        #expect(one.map { $0.time >= 100 && $0.time < 105 } == true, "\(String(describing: one))")
        for batch in [2, 5, 32, 64, 100, points.count] {
            var batched = CheckmarkDetector(configuration: held)
            var fired: CheckmarkDetector.Detection?
            var index = 0
            while index < points.count, fired == nil {
                fired = batched.add(contentsOf: points[index..<min(index + batch, points.count)])
                index += batch
            }
            #expect(fired == one, "batches of \(batch)")
        }
    }

    @Test("recorded checks fire and recorded v's and pigtails do not")
    func recorded() {
        for log in Fixtures.logs where ["check", "v", "pigtail", "caret"].contains(log.gesture) {
            var detector = CheckmarkDetector()
            let fired = detector.add(contentsOf: log.points) != nil
            #expect(fired == (log.gesture == "check"), "\(log.gesture) \(log.subject)")
        }
    }

    @Test("the state fed with a buffer of the caller's detects what the detector does, on the same point")
    func stateWithBuffer() {
        for log in Fixtures.logs {
            var detector = CheckmarkDetector()
            let expected = detector.add(contentsOf: log.points)
            var state = CheckmarkDetector.State()
            let buffer = UnsafeMutablePointer<Double>.allocate(capacity: state.bufferCount)
            defer { buffer.deallocate() }
            var fired: CheckmarkDetector.Detection?
            log.points.withUnsafeBufferPointer { points in
                var index = 0
                while index < points.count {
                    let batch = UnsafeBufferPointer(rebasing: points[index..<min(index + 5, points.count)])
                    let detection = state.add(contentsOf: batch, buffer: buffer)
                    fired = fired ?? detection
                    index += 5
                }
            }
            #expect(fired == expected, "\(log.gesture) \(log.subject)")
            #expect(state.detection == expected)
            #expect(state.pointCount == log.points.count)
        }
    }

    @Test(
        "odd and even capacities (decimation that drops or keeps the newest point): the same detections one point at a time and in batches, where they were",
        arguments: [7, 9, 16, 33, 64])
    func capacities(capacity: Int) {
        // On the legs' lengths alone (no early firing), as when the points below were recorded; and by default.
        let lengthsOnly = CheckmarkConfiguration(capacity: capacity, compareHeights: false, earlyFireFactor: 1)
        for configuration in [lengthsOnly, CheckmarkConfiguration(capacity: capacity)] {
            Self.sameInBatches(configuration)
        }
        // The recorded checks, in a fixed order, and the points that fired them with this build's predecessor
        // (c1f3af0), which read the early out's newest point back from the buffer.
        let checks = Fixtures.logs.filter { $0.gesture == "check" }.sorted {
            ($0.subject, $0.speed, $0.points.count) < ($1.subject, $1.speed, $1.points.count)
        }
        let recorded: [Int: [Int]] = [16: [28, 34, 34, 29, 32], 33: [28, 33, 34, 29, 32], 64: [28, 33, 33, 29, 31]]
        let firedAt = checks.map { log in
            var detector = CheckmarkDetector(configuration: lengthsOnly)
            return detector.add(contentsOf: log.points)?.pointIndex
        }
        if let expected = recorded[capacity] {
            #expect(firedAt == expected)
        }
    }

    /// Every recorded stroke gives the same detection point by point and in batches of 32.
    static func sameInBatches(_ configuration: CheckmarkConfiguration) {
        let capacity = configuration.capacity
        for log in Fixtures.logs {
            // In debug builds the walk also asserts that the early out's point is the buffer's last one.
            var single = CheckmarkDetector(configuration: configuration)
            var one: CheckmarkDetector.Detection?
            for point in log.points {
                if let fired = single.add(point) { one = fired }
            }
            var batched = CheckmarkDetector(configuration: configuration)
            var fired: CheckmarkDetector.Detection?
            var index = 0
            while index < log.points.count {
                fired = fired ?? batched.add(contentsOf: log.points[index..<min(index + 32, log.points.count)])
                index += 32
            }
            #expect(fired == one, "\(log.gesture) \(log.subject), capacity \(capacity)")
        }
    }

    @Test("non-finite points are ignored")
    func nonFinite() {
        var detector = CheckmarkDetector()
        #expect(detector.add(StrokePoint(x: .nan, y: 0)) == nil)
        #expect(detector.add(contentsOf: Fixtures.check()) != nil)
    }

    /// Resampled points along straight legs from `start` through `corner` to `end`, `perLeg` segments each.
    static func legs(
        _ start: SIMD2<Double>, _ corner: SIMD2<Double>, _ end: SIMD2<Double>, perLeg: Int
    ) -> (xs: [Double], ys: [Double]) {
        var points = [SIMD2<Double>]()
        for k in 0..<perLeg { points.append(start + (corner - start) * (Double(k) / Double(perLeg))) }
        for k in 0...perLeg { points.append(corner + (end - corner) * (Double(k) / Double(perLeg))) }
        return (points.map { $0.x }, points.map { $0.y })
    }

    @Test(
        "the full test's shortcuts on the legs' signs follow the configured directions",
        arguments: [
            // A second leg going down: the default second-leg directions (all upward) refuse it.
            (SIMD2(10.0, 10.0), SIMD2(30.0, 20.0)),
            // A first leg going up: the default first-leg directions (level to downward) refuse it.
            (SIMD2(10.0, -10.0), SIMD2(20.0, -40.0)),
        ])
    func signShortcuts(corner: SIMD2<Double>, end: SIMD2<Double>) {
        let (xs, ys) = Self.legs(.zero, corner, end, perLeg: 10)
        let times = [Double](repeating: 0, count: xs.count)
        func fires(_ configuration: CheckmarkConfiguration) -> Bool {
            xs.withUnsafeBufferPointer { xs in
                ys.withUnsafeBufferPointer { ys in
                    CheckmarkDetector.fires(
                        xs, ys, times: times, settings: CheckmarkDetector.Settings(configuration))
                }
            }
        }
        // Every direction, turn, curl, sharpness and ratio allowed: these legs pass.
        let anything = CheckmarkConfiguration(
            firstLegDirection: -180...180, secondLegDirection: -180...180, turn: -360...360, firstLegMaxCurl: 100,
            secondLegMaxCurl: 100, minimumSharpness: -1000, fireRatio: 0.01, steepFireRatio: 0.01)
        #expect(fires(anything))
        var defaults = CheckmarkConfiguration.default
        defaults.turn = anything.turn
        defaults.firstLegMaxCurl = anything.firstLegMaxCurl
        defaults.secondLegMaxCurl = anything.secondLegMaxCurl
        defaults.minimumSharpness = anything.minimumSharpness
        defaults.fireRatio = anything.fireRatio
        defaults.steepFireRatio = anything.steepFireRatio
        #expect(!fires(defaults))
    }
}
