import Testing

@testable import StrokeRecognition

@Suite("Recognition among some gestures")
struct RecognizerSelectionTests {
    /// Choices of gestures to recognize among: one, a few that look alike, half of them.
    static let choices: [[String]] = [
        ["circle"], ["check", "v", "caret"],
        ["rectangle", "triangle", "x", "star", "pigtail", "question_mark", "arrow", "delete_mark"],
    ]

    /// The built-in library, its settings kept, with only the templates of `names`.
    static func builtIn(only names: [String]) throws -> TemplateLibrary {
        var library = try TemplateLibrary.builtIn()
        for name in library.gestureNames where !names.contains(name) { library.removeAll(named: name) }
        return library
    }

    @Test("with every template re-ranked, a recognition among some gestures equals one with a library of only them")
    func equalsSmallerLibrary() throws {
        // A shortlist as long as the library: both recognitions re-rank every template they may answer with.
        let configuration = RecognizerConfiguration(shortlist: 128)
        let full = try Recognizer(library: try TemplateLibrary.builtIn(), configuration: configuration)
        for names in Self.choices {
            let only = try Recognizer(library: try Self.builtIn(only: names), configuration: configuration)
            #expect(only.templateCount == 8 * names.count)
            for log in Fixtures.logs where log.subject == "s03" {
                let points = log.points.map(\.position)
                let among = try full.recognize(points: points, among: names)
                let expected = try only.recognize(points: points)
                #expect(among.candidates.map(\.name) == expected.candidates.map(\.name))
                #expect(among.candidates.map(\.distance) == expected.candidates.map(\.distance))
                #expect(among.match?.name == expected.match?.name)
            }
        }
    }

    @Test("with the default shortlist, every candidate is a chosen gesture, and a chosen gesture drawn is matched")
    func candidatesAreChosen() throws {
        let recognizer = try Recognizer(library: try TemplateLibrary.builtIn())
        var matchedOwn = 0
        var drawnAmongChosen = 0
        for names in Self.choices {
            for log in Fixtures.logs {
                let result = try recognizer.recognize(points: log.points.map(\.position), among: names)
                #expect(!result.candidates.isEmpty)
                #expect(result.candidates.allSatisfy { names.contains($0.name) })
                #expect(result.match.map { names.contains($0.name) } ?? true)
                if names.contains(log.gesture) {
                    drawnAmongChosen += 1
                    if result.match?.name == log.gesture { matchedOwn += 1 }
                }
            }
        }
        #expect(drawnAmongChosen > 0)
        #expect(matchedOwn == drawnAmongChosen)
    }

    @Test("a stroke of a gesture left out matches none, or one chosen: a circle among lines and corners")
    func gestureLeftOut() throws {
        let recognizer = try Recognizer(library: try TemplateLibrary.builtIn())
        let circle = Fixtures.log("circle").points.map(\.position)
        #expect(try recognizer.recognize(points: circle, among: nil).match?.name == "circle")
        let result = try recognizer.recognize(points: circle, among: ["check", "caret"])
        #expect(Set(result.candidates.map(\.name)) == ["check", "caret"])
        #expect(result.match == nil || result.match?.name == "check" || result.match?.name == "caret")
    }

    @Test("names the library lacks choose nothing; with none it has there are no candidates")
    func unknownNames() throws {
        let recognizer = try Recognizer(library: try TemplateLibrary.builtIn())
        let points = Fixtures.log("triangle").points.map(\.position)
        let none = try recognizer.recognize(points: points, among: ["no such gesture"])
        #expect(none.candidates.isEmpty && none.match == nil)
        let empty = try recognizer.recognize(points: points, among: [])
        #expect(empty.candidates.isEmpty && empty.match == nil)
        let some = try recognizer.recognize(points: points, among: ["no such gesture", "triangle", "triangle"])
        #expect(some.candidates.map(\.name) == ["triangle"])
        #expect(some.match?.name == "triangle")
    }

    @Test("a library recognized along with another answers among the same chosen gestures in both")
    func alongWith() throws {
        let recognizer = try Recognizer(library: try TemplateLibrary.builtIn())
        var own = TemplateLibrary(name: "own")
        own.add(GestureTemplate(name: "spiral", strokePoints: Fixtures.log("pigtail", subject: "s03").points))
        own.add(GestureTemplate(name: "hook", strokePoints: Fixtures.log("check", subject: "s03").points))
        let other = try Recognizer(library: own)
        let points = Fixtures.log("check").points.map(\.position)
        let (library, learned) = try points.withUnsafeBufferPointer {
            try recognizer.recognize(points: $0, alongWith: other, among: ["check", "spiral"])
        }
        #expect(library.candidates.map(\.name) == ["check"])
        #expect(learned.candidates.map(\.name) == ["spiral"])
        let (all, allLearned) = try points.withUnsafeBufferPointer {
            try recognizer.recognize(points: $0, alongWith: other)
        }
        #expect(all.candidates.count == 3)
        #expect(Set(allLearned.candidates.map(\.name)) == ["spiral", "hook"])
    }

    @Test("a stroke prepared once is recognized among each choice and among all as if prepared for each")
    func preparedOnce() throws {
        let recognizer = try Recognizer(library: try TemplateLibrary.builtIn())
        for log in Fixtures.logs where log.subject == "s03" {
            let points = log.points.map(\.position)
            let choices: [[String]?] = [nil] + Self.choices
            let prepared = try points.withUnsafeBufferPointer { (points) throws(RecognitionError) in
                try recognizer.withPreparedStroke(points: points) { stroke in
                    choices.map { recognizer.recognize(stroke, among: $0) }
                }
            }
            for (names, result) in zip(choices, prepared) {
                let alone = try recognizer.recognize(points: points, among: names)
                #expect(result.candidates.map(\.name) == alone.candidates.map(\.name))
                #expect(result.candidates.map(\.distance) == alone.candidates.map(\.distance))
                #expect(result.match?.name == alone.match?.name)
            }
        }
    }
}
