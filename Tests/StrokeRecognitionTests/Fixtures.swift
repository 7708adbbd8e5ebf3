import Foundation
import StrokeRecognition

/// Strokes shipped under `Fixtures/` and synthetic strokes for the tests.
enum Fixtures {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/dollar1-mini").path

    static let logs: [DollarLog] = (try? DollarLog.loadDataset(directory)) ?? []

    static func log(_ gesture: String, subject: String = "s02", index: Int = 0) -> DollarLog {
        logs.filter { $0.gesture == gesture && $0.subject == subject }[index]
    }

    /// A polyline through `corners`, sampled every `step` units, timed at `hertz`.
    static func polyline(_ corners: [SIMD2<Double>], step: Double, hertz: Double = 120) -> [StrokePoint] {
        var points = [StrokePoint]()
        for (a, b) in zip(corners, corners.dropFirst()) {
            let length = StrokeGeometry.distance(a, b)
            let steps = max(1, Int((length / step).rounded()))
            for k in 0..<steps {
                let p = a + (b - a) * (Double(k) / Double(steps))
                points.append(StrokePoint(x: p.x, y: p.y, time: Double(points.count) * 1000 / hertz))
            }
        }
        let last = corners.last!
        points.append(StrokePoint(x: last.x, y: last.y, time: Double(points.count) * 1000 / hertz))
        return points
    }

    /// A check (y down): a short leg down-right, then a long leg up-right.
    static func check(size: Double = 100, step: Double = 2, hertz: Double = 120) -> [StrokePoint] {
        polyline([SIMD2(0, 0.2), SIMD2(0.3, 0.5), SIMD2(1.0, -0.4)].map { $0 * size }, step: step, hertz: hertz)
    }

    /// A v (y down): two equal, steep legs.
    static func v(size: Double = 100, step: Double = 2, hertz: Double = 120) -> [StrokePoint] {
        polyline([SIMD2(0, 0), SIMD2(0.35, 1), SIMD2(0.7, 0)].map { $0 * size }, step: step, hertz: hertz)
    }

    /// A caret (y down): up then down.
    static func caret(size: Double = 100, step: Double = 2) -> [StrokePoint] {
        polyline([SIMD2(0, 1), SIMD2(0.35, 0), SIMD2(0.7, 1)].map { $0 * size }, step: step)
    }

    /// A zig-zag.
    static func zigzag(size: Double = 100, step: Double = 2) -> [StrokePoint] {
        polyline(
            [SIMD2(0, 0), SIMD2(0.2, 0.5), SIMD2(0.4, 0), SIMD2(0.6, 0.5), SIMD2(0.8, 0)].map { $0 * size },
            step: step)
    }
}
