import Foundation
import Testing

@testable import StrokeRecognition

/// The library of swipes shipped in `Libraries/swipes.json`, alone and beside the built-in gestures.
@Suite("Swipes (Libraries/swipes.json)")
struct SwipeLibraryTests {
    static let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../Libraries/swipes.json").standardized.path

    /// The eight directions, in degrees with y down (touch convention), by gesture name.
    static let directions: [(name: String, degrees: Double)] = [
        ("swipe_right", 0), ("swipe_down_right", 45), ("swipe_down", 90), ("swipe_down_left", 135),
        ("swipe_left", 180), ("swipe_up_left", 225), ("swipe_up", 270), ("swipe_up_right", 315),
    ]

    /// A swipe of 200 units in direction `degrees`, bowed into an arc `bow` × its length high, with a hook of
    /// `hook` × its length turned by `hookTurn` degrees as the finger lifts; a point every 4 units and 8 ms.
    static func swipe(degrees: Double, bow: Double = 0, hook: Double = 0, hookTurn: Double = 0) -> [StrokePoint] {
        let angle = degrees * .pi / 180
        let (ux, uy) = (cos(angle), sin(angle))
        let length = 200.0
        let count = 50
        var points = (0...count).map { i -> StrokePoint in
            let u = Double(i) / Double(count)
            let (along, across) = (u * length, 4 * bow * length * u * (1 - u))
            return StrokePoint(x: 50 + along * ux - across * uy, y: 80 + along * uy + across * ux, time: Double(i) * 8)
        }
        if hook > 0 {
            let turn = angle + hookTurn * .pi / 180
            let last = points[points.count - 1]
            for j in 1...5 {
                let step = hook * length * Double(j) / 5
                points.append(
                    StrokePoint(
                        x: last.x + step * cos(turn), y: last.y + step * sin(turn), time: last.time + Double(j) * 8))
            }
        }
        return points
    }

    /// Swipes in every direction: tilted up to 12 degrees, straight or bowed a tenth of their length either way,
    /// plain or with a hook of 8% turned by 90 or -120 degrees.
    static var swipes: [(name: String, points: [StrokePoint])] {
        var swipes = [(name: String, points: [StrokePoint])]()
        for (name, degrees) in directions {
            for tilt in [-12.0, 0, 12] {
                for bow in [-0.1, 0, 0.1] {
                    for (hook, turn) in [(0.0, 0.0), (0.08, 90), (0.08, -120)] {
                        swipes.append((name, swipe(degrees: degrees + tilt, bow: bow, hook: hook, hookTurn: turn)))
                    }
                }
            }
        }
        return swipes
    }

    @Test("the file holds one straight template per direction and asks a score of 0.65")
    func file() throws {
        let library = try TemplateLibrary(contentsOf: Self.path)
        #expect(library.name == "swipes" && library.orientation == .sensitive)
        #expect(library.minimumScore == 0.65)
        #expect(library.templates.map(\.name).sorted() == Self.directions.map(\.name).sorted())
    }

    @Test("each swipe matches its direction, tilted, bowed or hooked, and the checkmark detector stays quiet")
    func swipesMatchTheirDirection() throws {
        let recognizer = try Recognizer(library: try TemplateLibrary(contentsOf: Self.path))
        let swipes = Self.swipes
        #expect(swipes.count == 8 * 27)
        for (name, points) in swipes {
            let result = try recognizer.recognize(points)
            #expect(result.match?.name == name, "\(name): \(result.candidates.prefix(2))")
            var detector = CheckmarkDetector()
            #expect(detector.add(contentsOf: points) == nil, "\(name) fired the checkmark detector")
        }
    }

    @Test("beside the built-in gestures, swipes still match their direction and the $1 strokes keep their answers")
    func besideTheBuiltInLibrary() throws {
        let builtIn = try TemplateLibrary.builtIn()
        var both = builtIn
        both.add(contentsOf: try TemplateLibrary(contentsOf: Self.path).templates)
        let alone = try Recognizer(library: builtIn)
        let together = try Recognizer(library: both)
        for (name, points) in Self.swipes {
            #expect(try together.recognize(points).match?.name == name)
        }
        #expect(Fixtures.logs.count >= 80, "the fixtures are there")
        for log in Fixtures.logs {
            let before = try alone.recognize(log.points).match?.name
            let after = try together.recognize(log.points).match?.name
            #expect(
                after == before, "\(log.gesture): \(String(describing: before)) became \(String(describing: after))")
        }
    }

    @Test("a swipe at the angle between two directions is answered by one of them, or not at all")
    func betweenDirections() throws {
        let recognizer = try Recognizer(library: try TemplateLibrary(contentsOf: Self.path))
        for (index, (name, degrees)) in Self.directions.enumerated() {
            let next = Self.directions[(index + 1) % 8].name
            let match = try recognizer.recognize(Self.swipe(degrees: degrees + 22.5)).match?.name
            #expect(match == nil || match == name || match == next)
        }
    }
}
