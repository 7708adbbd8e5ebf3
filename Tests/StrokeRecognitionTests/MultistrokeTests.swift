import Foundation
import Testing

@testable import StrokeRecognition

@Suite("Gestures of several strokes")
struct MultistrokeTests {
    /// A straight line from `a` to `b`, in `steps` segments.
    static func line(_ a: SIMD2<Double>, _ b: SIMD2<Double>, steps: Int = 10) -> [SIMD2<Double>] {
        (0...steps).map { a + (b - a) * (Double($0) / Double(steps)) }
    }

    /// A triangle drawn in one stroke from its apex: the path of a two-stroke caret drawn right leg first,
    /// whose jump closes it.
    static let triangle =
        line([5, 0], [10, 10]) + line([10, 10], [0, 10]).dropFirst() + line([0, 10], [5, 0]).dropFirst()

    /// A library of a two-stroke x, plus and caret, a one-stroke triangle and a one-stroke line.
    static let library: TemplateLibrary = {
        var library = TemplateLibrary(name: "symbols")
        library.add(GestureTemplate(name: "x", strokes: [line([0, 0], [10, 10]), line([10, 0], [0, 10])]))
        library.add(GestureTemplate(name: "plus", strokes: [line([0, 5], [10, 5]), line([5, 0], [5, 10])]))
        library.add(GestureTemplate(name: "caret", strokes: [line([0, 10], [5, 0]), line([5, 0], [10, 10])]))
        library.add(GestureTemplate(name: "triangle", points: triangle))
        library.add(GestureTemplate(name: "line", points: line([0, 0], [10, 2])))
        return library
    }()

    // MARK: - Templates

    @Test("strokes are kept with where each begins")
    func strokes() {
        let template = GestureTemplate(
            name: "t", strokes: [[[0, 0], [1, 1]], [[2, 2]], [[3, 3], [4, 4], [5, 5]]])
        #expect(template.points.count == 6)
        #expect(template.strokeStarts == [2, 3])
        #expect(template.strokeCount == 3)
        #expect(template.strokes.map(Array.init) == [[[0, 0], [1, 1]], [[2, 2]], [[3, 3], [4, 4], [5, 5]]])
        #expect(GestureTemplate(name: "u", points: [[0, 0], [1, 1]]).strokeCount == 1)
    }

    @Test("every order and direction, the drawn one first", arguments: [1, 2, 3, 4])
    func unistrokes(strokes: Int) {
        let parts = (0..<strokes).map { [SIMD2(Double($0), 0), SIMD2(Double($0), 1)] }
        let template = GestureTemplate(name: "t", strokes: parts)
        let variants = template.unistrokes
        let factorial = (1...strokes).reduce(1, *)
        #expect(variants.count == (strokes == 1 ? 1 : factorial << strokes))
        #expect(variants.first == template)
        #expect(Set(variants.map(\.points)).count == variants.count)
        #expect(variants.allSatisfy { $0.strokeStarts == template.strokeStarts && $0.name == "t" })
    }

    @Test("orders are the permutations in lexicographic order")
    func orders() {
        #expect(
            GestureTemplate.orders(of: 3) == [[0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]])
    }

    @Test("the points that lie on a jump between strokes")
    func jumps() {
        // Two strokes of length 1 with a jump of length 2 between them: 4 in all, 9 samples every 0.5.
        let points: [SIMD2<Double>] = [[0, 0], [1, 0], [3, 0], [4, 0]]
        let inAir = points.withUnsafeBufferPointer { points in
            [2].withUnsafeBufferPointer { StrokeGeometry.jumps(points, strokeStarts: $0, count: 9) }
        }
        #expect(inAir == [false, false, false, true, true, true, false, false, false])
        let none = points.withUnsafeBufferPointer { points in
            [Int]().withUnsafeBufferPointer { StrokeGeometry.jumps(points, strokeStarts: $0, count: 9) }
        }
        #expect(none == Array(repeating: false, count: 9))
    }

    // MARK: - Library files

    @Test("a library of several-stroke templates saves as version 2 and loads back")
    func fileRoundTrip() throws {
        let data = try Self.library.jsonData()
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(object["version"] as? Int == 2)
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.contains(#""strokes":[[[0,0],"#))
        let loaded = try TemplateLibrary(json: data)
        #expect(loaded.templates == Self.library.templates)
        var single = TemplateLibrary(name: "single")
        single.add(GestureTemplate(name: "line", points: Self.line([0, 0], [1, 1])))
        let plain = try #require(try JSONSerialization.jsonObject(with: try single.jsonData()) as? [String: Any])
        #expect(plain["version"] as? Int == 1)
    }

    @Test(
        "malformed templates of several strokes give clear errors",
        arguments: [
            // strokes in a version 1 file
            #"{"format":"stroke-worker/template-library","version":1,"name":"x","orientation":"sensitive","templates":[{"name":"a","strokes":[[[0,0],[1,1]],[[2,2]]]}]}"#,
            // both points and strokes
            #"{"format":"stroke-worker/template-library","version":2,"name":"x","orientation":"sensitive","templates":[{"name":"a","points":[[0,0],[1,1]],"strokes":[[[0,0],[1,1]]]}]}"#,
            // neither
            #"{"format":"stroke-worker/template-library","version":2,"name":"x","orientation":"sensitive","templates":[{"name":"a"}]}"#,
            // no strokes at all, and an empty stroke
            #"{"format":"stroke-worker/template-library","version":2,"name":"x","orientation":"sensitive","templates":[{"name":"a","strokes":[]}]}"#,
            #"{"format":"stroke-worker/template-library","version":2,"name":"x","orientation":"sensitive","templates":[{"name":"a","strokes":[[[0,0],[1,1]],[]]}]}"#,
            // five strokes
            #"{"format":"stroke-worker/template-library","version":2,"name":"x","orientation":"sensitive","templates":[{"name":"a","strokes":[[[0,0]],[[1,1]],[[2,2]],[[3,3]],[[4,4]]]}]}"#,
        ])
    func malformed(json: String) {
        do {
            _ = try TemplateLibrary(json: Data(json.utf8), source: "test.json")
            Issue.record("expected an error for \(json)")
        } catch {
            #expect(error.code == .malformedLibrary)
            #expect(error.message.hasPrefix("test.json"))
        }
    }

    @Test("a library that matches strokes only as drawn compiles one path each, takes more strokes, saves its order")
    func drawnOrder() throws {
        var library = Self.library
        library.strokeOrder = .drawn
        let five = GestureTemplate(name: "comb", strokes: (0..<5).map { Self.line([Double($0), 0], [Double($0), 5]) })
        library.add(five)
        #expect(try Recognizer(library: library).templateCount == library.templates.count)
        let loaded = try TemplateLibrary(json: try library.jsonData())
        #expect(loaded.strokeOrder == .drawn)
        #expect(loaded.templates.last == five)
        var any = library
        any.strokeOrder = .any
        #expect(throws: RecognitionError.self) { try any.validate() }
        let version1 =
            #"{"format":"stroke-worker/template-library","version":1,"name":"x","orientation":"sensitive","strokeOrder":"drawn","templates":[]}"#
        #expect(throws: RecognitionError.self) { try TemplateLibrary(json: Data(version1.utf8)) }
    }

    // MARK: - Matching

    @Test("a template of several strokes matches them in any order and direction")
    func anyOrder() throws {
        let recognizer = try Recognizer(library: Self.library)
        #expect(recognizer.templateCount == 3 * 8 + 2)
        let drawn = [
            ("x", [Self.line([10, 0], [0, 10]), Self.line([10, 10], [0, 0])]),
            ("x", [Self.line([0, 10], [10, 0]), Self.line([0, 0], [10, 10])]),
            ("plus", [Self.line([5, 10], [5, 0]), Self.line([10, 5], [0, 5])]),
            ("caret", [Self.line([10, 10], [5, 0]), Self.line([0, 10], [5, 0])]),
        ]
        for (name, strokes) in drawn {
            let gesture = GestureTemplate(name: name, strokes: strokes)
            let result = try recognizer.recognize(points: gesture.points, strokeStarts: gesture.strokeStarts)
            #expect(result.match?.name == name, "\(name) drawn as \(strokes.map { [$0.first!, $0.last!] })")
        }
    }

    @Test("a jump is not a side: a two-stroke caret whose jump closes it is no triangle")
    func jumpIsNoSide() throws {
        let caret = GestureTemplate(
            name: "caret", strokes: [Self.line([5, 0], [10, 10]), Self.line([0, 10], [5, 0])])
        // The same path: only its sampling differs (the jump is one segment).
        let paths = [caret.points, Self.triangle].map { StrokeGeometry.resample($0, count: 64) }
        #expect(zip(paths[0], paths[1]).allSatisfy { StrokeGeometry.distance($0, $1) < 1e-9 })
        let recognizer = try Recognizer(library: Self.library)
        let triangle = try recognizer.recognize(points: Self.triangle)
        #expect(triangle.match?.name == "triangle")
        let caretDistance = try #require(triangle.candidates.first { $0.name == "caret" }?.distance)
        #expect(caretDistance > 0.1)
        let asCaret = try recognizer.recognize(points: caret.points, strokeStarts: caret.strokeStarts)
        #expect(asCaret.match?.name == "caret")
        #expect(asCaret.candidates.first { $0.name == "triangle" }?.distance ?? .infinity > 0.1)
        // Blind to the pen, the matcher cannot tell them apart: both are at distance 0.
        var blind = RecognizerConfiguration.default
        blind.jumpTangentFactor = 1
        let same = try Recognizer(library: Self.library, configuration: blind).recognize(points: Self.triangle)
        #expect(same.candidates.prefix(2).map(\.name).sorted() == ["caret", "triangle"])
        #expect(same.candidates.prefix(2).allSatisfy { $0.distance < 1e-4 })
    }

    @Test("strokes drawn in the order of one-stroke templates match as well as one stroke")
    func drawnOrderOnDollarLogs() throws {
        let recognizer = try Recognizer(library: RecognizerTests.library)
        for log in Fixtures.logs where log.subject == "s03" {
            let parts = Evaluator.pieces(of: log.points.map(\.position), count: 3)
            let gesture = GestureTemplate(name: log.gesture, strokes: parts)
            #expect(gesture.points.count == log.points.count + parts.count - 1)
            let whole = try recognizer.recognize(log.points)
            let cut = try recognizer.recognize(points: gesture.points, strokeStarts: gesture.strokeStarts)
            #expect(cut.match?.name == whole.match?.name)
        }
    }

    @Test("a stroke is cut at its sharpest corners")
    func pieces() {
        // A square's outline: cut in 4 at three of its corners (the start is an end, not a corner).
        let square =
            Self.line([0, 0], [10, 0]) + Self.line([10, 0], [10, 10]).dropFirst()
            + Self.line([10, 10], [0, 10]).dropFirst() + Self.line([0, 10], [0, 0]).dropFirst()
        let parts = Evaluator.pieces(of: square, count: 4)
        #expect(parts.count == 4)
        #expect(parts.map { $0.last! } == [[10, 0], [10, 10], [0, 10], [0, 0]])
        #expect(zip(parts, parts.dropFirst()).allSatisfy { $0.last == $1.first })
        #expect(Evaluator.pieces(of: [[0, 0], [1, 1]], count: 3).count == 1)
    }
}
