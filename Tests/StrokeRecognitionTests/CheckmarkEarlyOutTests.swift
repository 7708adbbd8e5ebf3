import Testing

@testable import StrokeRecognition

/// The detector's early outs only spare it full tests that fail: it fires where the full test, run at every point
/// the recent movement allows, first passes.
@Suite("Checkmark detector early outs")
struct CheckmarkEarlyOutTests {
    /// What the detector decides after each input point, with the full test run wherever the recent movement allows
    /// it (the early out's first tests alone), read from the state's own buffer.
    struct Reference {
        var detectorFiredAt: Int?
        var referenceFiredAt: Int?
        /// Points where the recent movement allowed the full test while every resampled point after the first was
        /// above the first: those the first-leg bound spares.
        var sparable = 0
        /// Where the reference fired: how far the last resampled point was below the first (y down).
        var endBelowStart: Double?
    }

    static func reference(_ points: [StrokePoint], configuration: CheckmarkConfiguration) -> Reference {
        var state = CheckmarkDetector.State(configuration: configuration)
        let room = state.bufferCount / 3
        let buffer = UnsafeMutablePointer<Double>.allocate(capacity: state.bufferCount)
        defer { buffer.deallocate() }
        let settings = CheckmarkDetector.Settings(configuration)
        let k = settings.minimumLegPoints
        var result = Reference()
        points.withUnsafeBufferPointer { points in
            for index in points.indices {
                let before = state.resampledCount
                let detection = state.add(
                    contentsOf: UnsafeBufferPointer(rebasing: points[index...index]), buffer: buffer)
                let n = state.resampledCount
                if detection != nil { result.detectorFiredAt = index }
                guard n != before, n >= 2 * k + 1 else {
                    if detection != nil { return }
                    continue
                }
                let (xs, ys, ts) = (buffer, buffer + room, buffer + 2 * room)
                let recent = SIMD2(xs[n - 1] - xs[n - 1 - k], ys[n - 1] - ys[n - 1 - k])
                if recent.y < 0 && recent.x > 0.5 * recent.y {
                    if (1..<n).allSatisfy({ ys[$0] < ys[0] }) { result.sparable += 1 }
                    let fires = CheckmarkDetector.fires(
                        UnsafeBufferPointer(start: xs, count: n), UnsafeBufferPointer(start: ys, count: n), times: ts,
                        settings: settings)
                    if fires && result.referenceFiredAt == nil {
                        result.referenceFiredAt = index
                        result.endBelowStart = ys[n - 1] - ys[0]
                    }
                }
                if detection != nil { return }
            }
        }
        return result
    }

    /// The shipped strokes as drawn, and turned by ±30° (other first legs, other corners).
    static let strokes: [(name: String, points: [StrokePoint])] = Fixtures.logs.flatMap { log in
        [0.0, 30, -30].map { degrees in
            let turn = CheckmarkDetector.turn(degrees: degrees)
            let points = log.points.map { point in
                StrokePoint(
                    x: turn.x * point.x - turn.y * point.y, y: turn.y * point.x + turn.x * point.y, time: point.time)
            }
            return ("\(log.gesture) \(log.subject) \(log.speed) \(degrees)°", points)
        }
    }

    @Test(
        "the detector fires where the full test first passes, at every capacity (decimation keeps the bounds), with the legs' heights compared or not",
        arguments: [16, 33, 64], [true, false])
    func firesWhereTheFullTestFirstPasses(capacity: Int, compareHeights: Bool) {
        // Without minimumDuration, which holds a passing point back and is not the full test's.
        var configuration = CheckmarkConfiguration(capacity: capacity, compareHeights: compareHeights)
        configuration.minimumDuration = 0
        var sparable = 0
        var fired = 0
        for stroke in Self.strokes {
            let result = Self.reference(stroke.points, configuration: configuration)
            #expect(result.detectorFiredAt == result.referenceFiredAt, "\(stroke.name)")
            sparable += result.sparable
            fired += result.detectorFiredAt == nil ? 0 : 1
        }
        // The strokes exercise the bound: full tests it spares, and firings beside them.
        #expect(sparable > 100)
        #expect(fired > 10)
    }

    @Test(
        "a first leg that falls by a hair fires, one that rises by a hair does not, as the full test says",
        arguments: [-1.0, -0.25, 0.25, 1, 2.5])
    func hairline(drop: Double) {
        // Level first legs, whose corner is barely below (or above) the first point, then a long leg up-right.
        let points = Fixtures.polyline([SIMD2(0, 0), SIMD2(40, drop), SIMD2(100, drop - 110)], step: 2)
        var configuration = CheckmarkConfiguration.default
        configuration.minimumDuration = 0
        let result = Self.reference(points, configuration: configuration)
        #expect(result.detectorFiredAt == result.referenceFiredAt)
        #expect((result.detectorFiredAt != nil) == (drop > 0))
    }

    /// A check whose second leg speeds up and rises slowly: it fires early (`earlyFireFactor`), where the rise
    /// first reaches `leastFireRatio` times the drop, with the last point still below the first (at a depth of 40,
    /// 0.89 below it, where the early out's bound allows 0.9).
    static func acceleratingCheck(depth: Double) -> [StrokePoint] {
        var points = [StrokePoint]()
        var time = 0.0
        for k in 0...20 {  // the first leg at 120 Hz: down-right to (20, depth)
            points.append(StrokePoint(x: Double(k), y: depth * Double(k) / 20, time: time))
            time += 1000 / 120
        }
        var interval = 1000 / 120.0
        for k in 1...80 {  // the second leg, up-right at -38.7°, each point sooner than the last
            interval *= 0.97
            time += interval
            points.append(StrokePoint(x: 20 + 1.25 * Double(k), y: depth - Double(k), time: time))
        }
        return points
    }

    @Test(
        "a check that fires early, its last point still below its first, fires where the full test first passes",
        arguments: [38.0, 40, 47])
    func earlyFireBelowTheFirstPoint(depth: Double) {
        var configuration = CheckmarkConfiguration.default
        configuration.minimumDuration = 0
        let points = Self.acceleratingCheck(depth: depth)
        let result = Self.reference(points, configuration: configuration)
        #expect(result.detectorFiredAt == result.referenceFiredAt)
        // Fired on the rise, before the last resampled point came back up to the first one's height: where the
        // bound on the rise is closest.
        #expect(result.endBelowStart.map { $0 > 0 } == true)
    }

    @Test("where a first leg may rise, the first-leg bound spares nothing: a rising first leg still fires")
    func risingFirstLegAllowed() {
        // A check whose first leg rises a little: up-right, then steeply up-right.
        let points = Fixtures.polyline(
            [SIMD2(0, 0), SIMD2(40, -10), SIMD2(100, -120)], step: 2)
        var rising = CheckmarkConfiguration.default
        rising.minimumDuration = 0
        rising.firstLegDirection = -60...90
        rising.turn = -360...360
        rising.minimumSharpness = -1000
        rising.firstLegMaxTurn = 1000
        rising.secondLegMaxTurn = 1000
        rising.minimumFirstLegDuration = 0
        let allowed = Self.reference(points, configuration: rising)
        #expect(allowed.sparable > 0)
        #expect(allowed.detectorFiredAt != nil)
        #expect(allowed.detectorFiredAt == allowed.referenceFiredAt)
        // With the default directions the same stroke never fires: its first leg rises.
        var defaults = CheckmarkConfiguration.default
        defaults.minimumDuration = 0
        #expect(Self.reference(points, configuration: defaults).detectorFiredAt == nil)
    }
}
