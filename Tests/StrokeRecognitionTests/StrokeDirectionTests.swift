import Foundation
import Testing

@testable import StrokeRecognition

@Suite("Strokes drawn either way round")
struct StrokeDirectionTests {
    /// A circle drawn counter-clockwise on screen (y grows downward) from its rightmost point, in 32 segments.
    static let circle: [SIMD2<Double>] = (0...32).map { step in
        let angle = -2 * Double.pi * Double(step) / 32
        return [50 + 40 * cos(angle), 50 + 40 * sin(angle)]
    }

    /// A library of a circle, a triangle and a zig-zag, each drawn one way.
    static func library(_ direction: TemplateLibrary.StrokeDirection) -> TemplateLibrary {
        var library = TemplateLibrary(name: "round")
        library.add(GestureTemplate(name: "circle", points: circle))
        library.add(GestureTemplate(name: "triangle", points: [[50, 0], [100, 90], [0, 90], [50, 0]]))
        library.add(GestureTemplate(name: "zigzag", points: [[0, 0], [25, 60], [50, 0], [75, 60], [100, 0]]))
        library.strokeDirection = direction
        return library
    }

    // MARK: - Paths

    @Test("a template's paths: itself as drawn, then each stroke reversed in every combination, in the drawn order")
    func paths() {
        let one = GestureTemplate(name: "circle", points: Self.circle)
        #expect(one.paths(order: .any, direction: .drawn) == [one])
        let both = one.paths(order: .any, direction: .any)
        #expect(both.count == 2 && both[0] == one)
        #expect(both[1].points == Array(Self.circle.reversed()) && both[1].strokeStarts.isEmpty)
        let two = GestureTemplate(name: "tee", strokes: [[[0, 0], [10, 0]], [[5, 0], [5, 10]]])
        let drawnOrder = two.paths(order: .drawn, direction: .any)
        #expect(
            drawnOrder.map(\.points) == [
                [[0, 0], [10, 0], [5, 0], [5, 10]], [[10, 0], [0, 0], [5, 0], [5, 10]],
                [[0, 0], [10, 0], [5, 10], [5, 0]], [[10, 0], [0, 0], [5, 10], [5, 0]],
            ])
        #expect(drawnOrder.allSatisfy { $0.strokeStarts == [2] && $0.name == "tee" })
        #expect(two.paths(order: .drawn, direction: .drawn) == [two])
        // In any order every direction is matched already.
        #expect(two.paths(order: .any, direction: .any) == two.unistrokes)
        #expect(two.paths(order: .any, direction: .drawn) == two.unistrokes)
    }

    // MARK: - Matching

    @Test("a circle drawn the other way round is a circle only where strokes may go either way")
    func reversedCircle() throws {
        let drawn = try Recognizer(library: Self.library(.drawn))
        let either = try Recognizer(library: Self.library(.any))
        #expect(drawn.templateCount == 3 && either.templateCount == 6)
        let reversed = Array(Self.circle.reversed())
        let asDrawn = try drawn.recognize(points: reversed)
        #expect(asDrawn.match?.name != "circle")
        let eitherWay = try either.recognize(points: reversed)
        #expect(eitherWay.match?.name == "circle" && eitherWay.match?.drawnBackward == true)
        #expect(eitherWay.match!.score > 0.99)
        #expect(asDrawn.candidates.allSatisfy { !$0.drawnBackward })
        // Drawn the template's way, the stroke matches as it did; a gesture is one candidate either way.
        let forward = try either.recognize(points: Self.circle)
        let forwardAsDrawn = try drawn.recognize(points: Self.circle)
        #expect(forward.match?.name == "circle" && forward.match?.score == forwardAsDrawn.match?.score)
        #expect(forward.match?.drawnBackward == false)
        #expect(Set(forward.candidates.map(\.name)).count == forward.candidates.count)
    }

    @Test("backward: a stroke or, in the drawn order, a stroke of several matched reversed; never in any order")
    func backwardOfSeveral() throws {
        let tee = GestureTemplate(name: "tee", strokes: [[[0, 0], [90, 0]], [[45, 0], [45, 90]]])
        let bar: [SIMD2<Double>] = [[0, 1], [30, 1], [60, 0], [90, 1]]
        let stem: [SIMD2<Double>] = [[46, 1], [45, 30], [44, 60], [45, 88]]
        var library = Self.library(.any)
        library.add(tee)
        library.strokeOrder = .drawn
        let inOrder = try Recognizer(library: library)
        let forward = try inOrder.recognize(points: bar + stem, strokeStarts: [bar.count])
        #expect(forward.match?.name == "tee" && forward.match?.drawnBackward == false)
        let stemUp = try inOrder.recognize(points: bar + stem.reversed(), strokeStarts: [bar.count])
        #expect(stemUp.match?.name == "tee" && stemUp.match?.drawnBackward == true)
        library.strokeOrder = .any
        let anyOrder = try Recognizer(library: library)
        let stemFirst = try anyOrder.recognize(points: stem.reversed() + bar, strokeStarts: [stem.count])
        #expect(stemFirst.match?.name == "tee" && stemFirst.match?.drawnBackward == false)
        // One stroke, in the same library: backward as ever.
        #expect(try anyOrder.recognize(points: Array(Self.circle.reversed())).match?.drawnBackward == true)
    }

    // MARK: - Files

    @Test("the direction is saved (version 2) and read back; version 1 cannot say it; either way bounds the strokes")
    func file() throws {
        let either = Self.library(.any)
        #expect(either.fileVersion == 2 && Self.library(.drawn).fileVersion == 1)
        let data = try either.jsonData()
        #expect(String(decoding: data, as: UTF8.self).contains(#""strokeDirection":"any""#))
        #expect(try TemplateLibrary(json: data) == either)
        #expect(!String(decoding: try Self.library(.drawn).jsonData(), as: UTF8.self).contains("strokeDirection"))
        let version1 =
            #"{"format":"stroke-worker/template-library","version":1,"name":"x","orientation":"sensitive","strokeDirection":"any","templates":[]}"#
        do {
            _ = try TemplateLibrary(json: Data(version1.utf8), source: "v1.json")
            Issue.record("version 1 with strokeDirection was read")
        } catch {
            #expect(error.code == .malformedLibrary && error.message == "v1.json: strokeDirection needs version 2")
        }
        let unknown =
            #"{"format":"stroke-worker/template-library","version":2,"name":"x","orientation":"sensitive","strokeDirection":"backwards","templates":[]}"#
        #expect(throws: RecognitionError.self) { try TemplateLibrary(json: Data(unknown.utf8)) }
        // Drawn in order, five strokes make one path; either way round they would make 32.
        var comb = TemplateLibrary(name: "comb")
        comb.strokeOrder = .drawn
        comb.add(GestureTemplate(name: "comb", strokes: (0..<5).map { [[Double($0), 0], [Double($0), 5]] }))
        try comb.validate()
        comb.strokeDirection = .any
        do {
            try comb.validate(source: "comb.json")
            Issue.record("five strokes either way round were accepted")
        } catch {
            #expect(error.message.contains("has 5 strokes; at most 4") && error.message.contains("direction"))
        }
    }
}
