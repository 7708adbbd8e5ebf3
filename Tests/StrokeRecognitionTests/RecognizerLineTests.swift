import Foundation
import Testing

@testable import StrokeRecognition

/// A stroke that is a straight line is answered only with a template that is one (`Recognizer.isLine`).
@Suite("Straight strokes")
struct RecognizerLineTests {
    /// Swipes without hooks in every direction, tilted up to 12 degrees, straight or bowed a tenth of their length.
    static var straightSwipes: [(name: String, points: [StrokePoint])] {
        SwipeLibraryTests.directions.flatMap { name, degrees in
            [-12.0, 0, 12].flatMap { tilt in
                [-0.1, 0, 0.1].map { bow in (name, SwipeLibraryTests.swipe(degrees: degrees + tilt, bow: bow)) }
            }
        }
    }

    /// Whether the stroke, preprocessed as the built-in library does, is a straight line.
    static func isLine(_ points: [StrokePoint]) throws -> Bool {
        let features = try ShapeFeatures(
            points: points.map(\.position), strokeStarts: [], configuration: RecognizerConfiguration.default)
        return features.vector.withUnsafeBufferPointer(Recognizer.isLine)
    }

    @Test("swipes straight or bowed a tenth are lines; the $1 strokes, a check, an arc bowed a quarter are not")
    func lines() throws {
        for (name, points) in Self.straightSwipes {
            #expect(try Self.isLine(points), "\(name)")
        }
        #expect(Fixtures.logs.count >= 80, "the fixtures are there")
        for log in Fixtures.logs {
            #expect(try !Self.isLine(log.points), "\(log.gesture)")
        }
        #expect(try !Self.isLine(Fixtures.check()))
        #expect(try !Self.isLine(SwipeLibraryTests.swipe(degrees: 30, bow: 0.25)))
        #expect(try Recognizer(library: TemplateLibrary.builtIn()).lines.isEmpty)
    }

    @Test("the built-in library, which holds no line, answers no straight stroke, as a library of no templates")
    func builtInAnswersNoLine() throws {
        let recognizer = try Recognizer(library: TemplateLibrary.builtIn())
        for (name, points) in Self.straightSwipes {
            let result = try recognizer.recognize(points)
            #expect(result.match == nil && result.candidates.isEmpty, "\(name): \(result.candidates.prefix(1))")
        }
        // Drawn down to the right at 45 degrees, a line scored 0.607 as an x, above the library's 0.6: it was an x.
        #expect(try recognizer.recognize(SwipeLibraryTests.swipe(degrees: 45)).candidates.isEmpty)
    }

    @Test("beside lines, a straight stroke is answered among them, also among a session's chosen gestures")
    func answeredAmongLines() throws {
        var both = try TemplateLibrary.builtIn()
        both.add(contentsOf: try TemplateLibrary(contentsOf: SwipeLibraryTests.path).templates)
        let recognizer = try Recognizer(library: both)
        #expect(recognizer.lines.contains { $0 != 0 })
        for (name, points) in Self.straightSwipes {
            #expect(try recognizer.recognize(points).match?.name == name)
        }
        let upRight = SwipeLibraryTests.swipe(degrees: 315).map(\.position)
        #expect(
            try recognizer.recognize(points: upRight, among: ["check", "swipe_up_right"]).match?.name
                == "swipe_up_right")
        let amongShapes = try recognizer.recognize(points: upRight, among: ["check", "question_mark"])
        #expect(amongShapes.match == nil && amongShapes.candidates.isEmpty)
        // The strokes under Tests/, none of them a line, are matched among every template, and none is a swipe.
        for log in Fixtures.logs {
            #expect(try recognizer.recognize(log.points).match?.name.hasPrefix("swipe") != true, "\(log.gesture)")
        }
    }
}
