import Foundation
import Testing

@testable import StrokeRecognition

/// The elastic stage's dead zone (`TemplateLibrary.elasticDeadZoneDegrees`): strokes turned past it from a
/// template are compared with it as if drawn upright; lines keep their direction.
@Suite("Recognition: tilted strokes and the elastic dead zone")
struct ElasticDeadZoneTests {
    /// `points` turned by `degrees` about their first point, clockwise on screen.
    static func turned(_ points: [StrokePoint], by degrees: Double) -> [StrokePoint] {
        let (sine, cosine) = (sin(degrees * .pi / 180), cos(degrees * .pi / 180))
        let origin = points[0]
        return points.map {
            let (x, y) = ($0.x - origin.x, $0.y - origin.y)
            return StrokePoint(x: x * cosine - y * sine, y: x * sine + y * cosine, time: $0.time)
        }
    }

    /// The share of subject s03's strokes, turned by `degrees`, that a library of subject s02's strokes (all of
    /// them) with `deadZone` recognizes as their own gesture.
    static func recognized(turnedBy degrees: Double, deadZone: Double?) throws -> Double {
        var library = TemplateLibrary(
            name: "s02",
            templates: Fixtures.logs.filter { $0.subject == "s02" }.map {
                GestureTemplate(name: $0.gesture, strokePoints: $0.points)
            })
        library.elasticDeadZoneDegrees = deadZone
        let recognizer = try Recognizer(library: library)
        let tested = Fixtures.logs.filter { $0.subject == "s03" }
        let right = try tested.filter {
            try recognizer.recognize(turned($0.points, by: degrees)).match?.name == $0.gesture
        }
        return Double(right.count) / Double(tested.count)
    }

    @Test("another hand's strokes, tilted by 20° or 30° either way, are recognized as upright ones are")
    func tilted() throws {
        #expect(!Fixtures.logs.isEmpty)
        var asDrawn = [Double]()
        for degrees in [0.0, -20, 20, -30, 30] {
            #expect(try Self.recognized(turnedBy: degrees, deadZone: 10) == 1, "turned by \(degrees)°")
            asDrawn.append(try Self.recognized(turnedBy: degrees, deadZone: nil))
        }
        // Compared as drawn, upright strokes are all recognized and tilted ones are not.
        #expect(asDrawn[0] == 1)
        #expect(asDrawn.dropFirst().contains { $0 < 1 }, "\(asDrawn)")
    }

    @Test("a line keeps its direction: a swipe 15–22° off its axis is not taken for the next direction")
    func lines() throws {
        var library = TemplateLibrary(name: "swipes")
        for step in 0..<8 {
            let angle = Double(step) * .pi / 4
            library.add(
                GestureTemplate(name: "swipe\(step * 45)", points: [.zero, SIMD2(cos(angle), sin(angle)) * 100]))
        }
        library.add(GestureTemplate(name: "check", strokePoints: Fixtures.check()))
        library.elasticDeadZoneDegrees = 10
        let recognizer = try Recognizer(library: library)
        #expect(recognizer.asDrawn == (0..<9).map { $0 < 8 })
        // Straight and slightly bowed either way, 200 units long in 31 points.
        for offset in 15...22 {
            for bow in [0, 0.05, -0.05] {
                let angle = Double(offset) * .pi / 180
                let swipe = (0...30).map { k -> SIMD2<Double> in
                    let t = Double(k) / 30
                    let (x, y) = (200 * t, 200 * bow * sin(.pi * t))
                    return SIMD2(x * cos(angle) - y * sin(angle), x * sin(angle) + y * cos(angle))
                }
                #expect(try recognizer.recognize(points: swipe).match?.name == "swipe0", "\(offset)°, bow \(bow)")
            }
        }
        #expect(try recognizer.recognize(Self.turned(Fixtures.check(), by: -25)).match?.name == "check")
    }

    @Test("a rotation-invariant library turns strokes all the way, whatever its dead zone says")
    func invariant() throws {
        var library = TemplateLibrary(
            name: "s02", orientation: .invariant,
            templates: Fixtures.logs.filter { $0.subject == "s02" }.map {
                GestureTemplate(name: $0.gesture, strokePoints: $0.points)
            })
        let stroke = Self.turned(Fixtures.log("question_mark", subject: "s03").points, by: 70)
        let without = try Recognizer(library: library).recognize(stroke)
        library.elasticDeadZoneDegrees = 10
        let with = try Recognizer(library: library).recognize(stroke)
        #expect(with == without && with.match?.name == "question_mark")
    }
}
