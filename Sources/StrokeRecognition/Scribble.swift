import Foundation

/// Random strokes that are no gesture: what a player draws who doodles, tests the screen or has no idea what the
/// game wants. They measure how often a library turns away what it was not taught (`Evaluator.scribbles`).
///
/// Two kinds, half of each, drawn in a box of 200 × 200 units:
/// - **curves** through 3 to 7 random points (Catmull–Rom splines): the ones through 3 bend once or twice and
///   may well look like a v, a caret or an arc, those through 7 wind about;
/// - **wanderings**: 40 to 140 steps of 3 units whose direction turns by a random rate that drifts from step to
///   step (a smoothed random walk), some nearly straight and some curling.
///
/// Each is drawn at a steady speed of 0.3 to 1.5 units a millisecond and sampled every 8 ms at least, as a
/// digitizer of 125 Hz reports it. Deterministic for a seed.
public enum Scribble {
    /// What a scribble is: `curve3` … `curve7` (the points it passes through) or `wander`.
    public typealias Kind = String

    /// `count` scribbles from `seed`, alternating curves and wanderings.
    public static func make(count: Int, seed: UInt64) -> [(kind: Kind, points: [StrokePoint])] {
        var generator = SeededGenerator(seed: seed)
        var scribbles: [(kind: Kind, points: [StrokePoint])] = []
        scribbles.reserveCapacity(max(0, count))
        for index in 0..<max(0, count) {
            let path: [SIMD2<Double>]
            let kind: Kind
            if index % 2 == 0 {
                let through = Int.random(in: 3...7, using: &generator)
                let points = (0..<through).map { _ in
                    SIMD2(Double.random(in: 0...200, using: &generator), Double.random(in: 0...200, using: &generator))
                }
                path = curve(through: points, stepsPerSpan: 20)
                kind = "curve\(through)"
            } else {
                path = wander(using: &generator)
                kind = "wander"
            }
            let speed = Double.random(in: 0.3...1.5, using: &generator)
            scribbles.append((kind, timed(path, speed: speed)))
        }
        return scribbles
    }

    // MARK: - Paths

    /// A Catmull–Rom spline through `points`, `stepsPerSpan` positions per span between two of them, ending on
    /// the last.
    static func curve(through points: [SIMD2<Double>], stepsPerSpan: Int) -> [SIMD2<Double>] {
        guard points.count >= 2 else { return points }
        // The ends repeated, so that the spline starts and ends on them.
        let controls = [points[0]] + points + [points[points.count - 1]]
        var path: [SIMD2<Double>] = []
        path.reserveCapacity((points.count - 1) * stepsPerSpan + 1)
        for span in 1..<(controls.count - 2) {
            let (p0, p1, p2, p3) = (controls[span - 1], controls[span], controls[span + 1], controls[span + 2])
            for step in 0..<stepsPerSpan {
                let t = Double(step) / Double(stepsPerSpan)
                let t2 = t * t
                let t3 = t2 * t
                let a = 2 * p1
                let b = (p2 - p0) * t
                let c = (2 * p0 - 5 * p1 + 4 * p2 - p3) * t2
                let d = (3 * p1 - p0 - 3 * p2 + p3) * t3
                path.append(0.5 * (a + b + c + d))
            }
        }
        path.append(points[points.count - 1])
        return path
    }

    /// A smoothed random walk from the box's centre: each step's turn is the last one's, decayed, plus noise of
    /// a spread chosen per walk (0.02 to 0.25 radians).
    static func wander(using generator: inout SeededGenerator) -> [SIMD2<Double>] {
        let steps = Int.random(in: 40...140, using: &generator)
        let curl = Double.random(in: 0.02...0.25, using: &generator)
        var direction = Double.random(in: -Double.pi...Double.pi, using: &generator)
        var turn = 0.0
        var position = SIMD2<Double>(100, 100)
        var path = [position]
        path.reserveCapacity(steps + 1)
        for _ in 0..<steps {
            turn = 0.8 * turn + curl * normal(using: &generator)
            direction += turn
            position += 3 * SIMD2(cos(direction), sin(direction))
            path.append(position)
        }
        return path
    }

    /// A standard normal variate (Box–Muller).
    static func normal(using generator: inout SeededGenerator) -> Double {
        let u = Double.random(in: Double.ulpOfOne...1, using: &generator)
        let v = Double.random(in: 0..<1, using: &generator)
        return (-2 * log(u)).squareRoot() * cos(2 * Double.pi * v)
    }

    /// The path drawn at `speed` units a millisecond, keeping a position only 8 ms or more after the last one
    /// kept, and the last.
    static func timed(_ path: [SIMD2<Double>], speed: Double) -> [StrokePoint] {
        guard let first = path.first else { return [] }
        var points = [StrokePoint(x: first.x, y: first.y, time: 0)]
        var time = 0.0
        var previous = first
        for (index, position) in path.enumerated().dropFirst() {
            time += ((position - previous) * (position - previous)).sum().squareRoot() / speed
            previous = position
            if time - points[points.count - 1].time >= 8 || index == path.count - 1 {
                points.append(StrokePoint(x: position.x, y: position.y, time: time))
            }
        }
        return points
    }
}
