import Foundation

extension CheckmarkDetector {
    // MARK: - Deciding

    /// The early out, inlined before the O(n) test of `fires`, where most points stop: both legs need points,
    /// and the pen must be moving up (screen coordinates) and not far to the left over the last few resampled
    /// points, as it does on a check's straight second leg. `last` is the resampled point at `n - 1`, as the
    /// walk holds it.
    ///
    /// Two more tests need no corner, only the lowest on screen of the resampled points after the first (`lowest`,
    /// their largest y), which the corner is one of (`Settings.EarlyOut` says where each applies):
    /// - where the first leg must fall, a corner above the first point fails `fires`: so does every point when
    ///   `lowest` is above the first one (a third of the full tests of the processor benchmark's strokes);
    /// - where the legs' heights must pass the ratio too, the second leg must rise by at least `leastFireRatio`
    ///   times the first leg's drop: the last point must be above the first by at least (1 − that ratio) times the
    ///   drop, and the drop is at most `lowest` less the first point's y (64% of the full tests left).
    @inline(__always)
    static func mightFire(
        count n: Int, last: SIMD2<Double>, xs: UnsafeMutablePointer<Double>, ys: UnsafeMutablePointer<Double>,
        legPoints k: Int, lowest: Double, bounds: Settings.EarlyOut
    ) -> Bool {
        guard n >= 2 * k + 1 else { return false }
        let recentX = last.x - xs[n - 1 - k]
        let recentY = last.y - ys[n - 1 - k]
        // lowest - ys[0] ≥ 0 exactly when lowest ≥ ys[0] (finite coordinates); always true at a floor of -∞. The
        // drop bound is then ≥ 0, and the rise test always true at an allowance of +∞.
        let dropBound = lowest - ys[0]
        return recentY < 0 && recentX > 0.5 * recentY && dropBound >= bounds.firstLegFloor
            && last.y - ys[0] <= bounds.riseSlack * dropBound + bounds.riseAllowance
    }

    /// The full test, once `mightFire` passed: split the resampled points at the corner, check both legs and the
    /// turn. `times` holds the time of each resampled point. It reads the tuning through the object that holds it:
    /// passed by value, the `CheckmarkConfiguration` was copied (a `memcpy` call) on every call.
    @inline(never)
    static func fires(
        _ xs: UnsafeBufferPointer<Double>, _ ys: UnsafeBufferPointer<Double>, times: UnsafePointer<Double>,
        settings: Settings
    ) -> Bool {
        let c = settings.configuration
        let n = xs.count
        func point(_ index: Int) -> SIMD2<Double> { SIMD2(xs[index], ys[index]) }
        let start = point(0)
        let end = point(n - 1)
        let chord = end - start
        let chordLength = (chord * chord).sum().squareRoot()
        guard chordLength > 0 else { return false }
        let corner = Self.corner(xs, ys, count: n, start: start, chord: chord)
        let legPoints = settings.minimumLegPoints  // the tuning's, held at 1 or more
        guard corner >= legPoints, n - 1 - corner >= legPoints else { return false }
        let first = point(corner) - start
        let second = end - point(corner)
        let firstLength = (first * first).sum().squareRoot()
        let secondLength = (second * second).sum().squareRoot()
        guard firstLength > 0, secondLength > 0 else { return false }
        let ratio = secondLength / firstLength
        guard ratio >= settings.leastFireRatio else { return false }
        // Where the ranges exclude a sign, a leg of that sign fails them whatever its angle (atan2 is positive for
        // a positive y and negative for a negative one): most of the tests that get this far stop here, before
        // the two atan2 calls (59% in the processor benchmark's batched strokes).
        if settings.secondLegMustRise && second.y > 0 || settings.firstLegMustFall && first.y < 0 { return false }
        let secondDirection = atan2(second.y, second.x) * 180 / .pi
        let firstDirection = atan2(first.y, first.x) * 180 / .pi
        let steep = -secondDirection > c.steepAngle && firstDirection > c.steepFirstAngle
        let required = steep ? c.steepFireRatio : c.fireRatio
        // With `compareHeights`, the legs' heights must pass the ratio as well as their lengths, where the first
        // leg falls and the second rises: a slant to the right lengthens a v's second leg and leaves both legs'
        // heights alone.
        let (drop, rise) = (first.y, -second.y)
        let compared = c.compareHeights && drop > 0 && rise > 0 ? min(ratio, rise / drop) : ratio
        guard
            compared >= required
                || compared >= required * c.earlyFireFactor
                    && Self.stillAtSpeed(times, corner: corner, count: n, threshold: c.earlyFireSpeed)
        else { return false }
        let turn = firstDirection - secondDirection
        // The corner of an L (a bracket drawn backward, a box): rightward, then up, both close to the axes.
        let square = c.squareCornerTolerance
        if abs(firstDirection) < square && abs(secondDirection + 90) < square { return false }
        guard c.firstLegDirection.contains(firstDirection), c.secondLegDirection.contains(secondDirection),
            c.turn.contains(turn)
        else { return false }
        // A first leg drawn in less than `minimumFirstLegDuration` is a hook where the finger landed. A stroke that
        // spans under a millisecond so far is not held to it: its times do not advance, or advance as seconds would,
        // which `minimumDuration` holds back and reports.
        guard times[n - 1] - times[0] < 1 || times[corner] - times[0] >= c.minimumFirstLegDuration else {
            return false
        }
        let firstPath = Self.pathLength(xs, ys, from: 0, to: corner)
        let secondPath = Self.pathLength(xs, ys, from: corner, to: n - 1)
        guard firstPath / firstLength <= c.firstLegMaxCurl, secondPath / secondLength <= c.secondLegMaxCurl else {
            return false
        }
        let k = max(2, n / 12)
        let into = point(corner) - point(max(0, corner - k))
        let outOf = point(min(n - 1, corner + k)) - point(corner)
        let localTurn = (atan2(into.y, into.x) - atan2(outOf.y, outOf.x)) * 180 / .pi
        guard localTurn / turn >= c.minimumSharpness else { return false }
        // Shares of the turn, so that a tuning that allows corners turning the other way holds their legs alike.
        return Self.legTurn(xs, ys, from: 0, to: corner) / turn <= c.firstLegMaxTurn
            && Self.legTurn(xs, ys, from: corner, to: n - 1) / turn <= c.secondLegMaxTurn
    }

    /// How many degrees a leg, from the resampled point `a` to `b`, turns the way a check's corner turns (its
    /// direction falling: counterclockwise on the screen): the direction from `a` to the leg's middle point less
    /// that from the middle to `b`, in -180...180; negative when it bends the other way, 0 when the leg has no
    /// middle point. Chords of half a leg, so that noise smaller than that barely moves it.
    static func legTurn(_ xs: UnsafeBufferPointer<Double>, _ ys: UnsafeBufferPointer<Double>, from a: Int, to b: Int)
        -> Double
    {
        let middle = a + (b - a) / 2
        guard middle > a, middle < b else { return 0 }
        let firstHalf = SIMD2(xs[middle] - xs[a], ys[middle] - ys[a])
        let secondHalf = SIMD2(xs[b] - xs[middle], ys[b] - ys[middle])
        let degrees = (atan2(firstHalf.y, firstHalf.x) - atan2(secondHalf.y, secondHalf.x)) * 180 / .pi
        return degrees > 180 ? degrees - 360 : degrees < -180 ? degrees + 360 : degrees
    }

    /// Whether the second leg, from `corner` to the last of `count` resampled points, still moves at `threshold`
    /// times its mean speed or more over its last fifth (at least two resampled points): the middle of a movement
    /// from one point to another, not its end. The resampled points are evenly spaced, so the speeds are counts of
    /// points over times. False when the times do not advance.
    static func stillAtSpeed(_ times: UnsafePointer<Double>, corner: Int, count n: Int, threshold: Double) -> Bool {
        let legPoints = n - 1 - corner
        let recent = max(2, legPoints / 5)
        guard recent < legPoints else { return false }
        let end = times[n - 1]
        let legTime = end - times[corner]
        let recentTime = end - times[n - 1 - recent]
        guard recentTime > 0, legTime > 0 else { return false }
        // recent / recentTime ≥ threshold × legPoints / legTime, without the divisions.
        return Double(recent) * legTime >= threshold * Double(legPoints) * recentTime
    }

    /// Segments through which a leg's path is measured for its curl.
    static let curlSegments = 8

    /// The length of the polyline through `curlSegments + 1` resampled points spread evenly from `a` to `b` (all
    /// of them when there are fewer): a leg's path at a scale of about an eighth of the leg. Jitter then adds little
    /// to it, where the walk's own path length (resampled points × spacing) grows with every wiggle of the finger:
    /// with noise of 1% of the stroke's size, that length made straight legs look curled and cost 55% of the
    /// checks (`stroke-tool robustness`, docs/Recognition.md).
    static func pathLength(_ xs: UnsafeBufferPointer<Double>, _ ys: UnsafeBufferPointer<Double>, from a: Int, to b: Int)
        -> Double
    {
        let span = b - a
        let count = min(span, curlSegments)
        guard count > 0 else { return 0 }
        var total = 0.0
        var previous = SIMD2(xs[a], ys[a])
        for step in 1...count {
            let index = a + span * step / count
            let next = SIMD2(xs[index], ys[index])
            let delta = next - previous
            total += (delta * delta).sum().squareRoot()
            previous = next
        }
        return total
    }
}
