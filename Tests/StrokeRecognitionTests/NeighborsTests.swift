import Foundation
import Testing

@testable import StrokeRecognition

/// A gesture's score standing for its nearest templates (`TemplateLibrary.neighbors`).
@Suite("Recognition: a gesture's nearest templates")
struct NeighborsTests {
    /// A shortlist long enough that every template of the small libraries here is compared.
    static let configuration = RecognizerConfiguration(shortlist: 64)

    /// A library of the shipped strokes of subject s02 of `gestures` (3 of each), scored by `neighbors` templates.
    static func library(_ gestures: [String], neighbors: Int) -> TemplateLibrary {
        var library = TemplateLibrary(
            name: "s02", elasticDeadZoneDegrees: TemplateLibrary.shapeElasticDeadZoneDegrees,
            templates: Fixtures.logs.filter { $0.subject == "s02" && gestures.contains($0.gesture) }.map {
                GestureTemplate(name: $0.gesture, strokePoints: $0.points)
            })
        library.neighbors = neighbors
        return library
    }

    /// The distance of `points` from each template of `library` on its own (a library of that template alone,
    /// scored by it), by gesture, nearest first.
    static func distances(_ points: [SIMD2<Double>], strokeStarts: [Int] = [], in library: TemplateLibrary) throws
        -> [String: [Double]]
    {
        var distances = [String: [Double]]()
        for template in library.templates {
            var alone = library
            alone.neighbors = 1
            for name in alone.gestureNames { alone.removeAll(named: name) }
            alone.add(template)
            let recognizer = try Recognizer(library: alone, configuration: configuration)
            let result = try recognizer.recognize(points: points, strokeStarts: strokeStarts)
            distances[template.name, default: []].append(try #require(result.candidates.first).distance)
        }
        return distances.mapValues { $0.sorted() }
    }

    // MARK: - Scores

    @Test("a gesture's score is the mean distance of its nearest templates, 1 to all of them")
    func meanDistance() throws {
        let gestures = ["check", "v", "caret"]
        let points = Fixtures.log("check", subject: "s03").points.map(\.position)
        let alone = try Self.distances(points, in: Self.library(gestures, neighbors: 1))
        #expect(alone.values.allSatisfy { $0.count == 3 })
        for neighbors in 1...3 {
            let result = try Recognizer(
                library: Self.library(gestures, neighbors: neighbors), configuration: Self.configuration
            ).recognize(points: points)
            #expect(Set(result.candidates.map(\.name)) == Set(gestures))
            for candidate in result.candidates {
                let nearest = try #require(alone[candidate.name]).prefix(neighbors)
                let mean = nearest.reduce(0, +) / Double(nearest.count)
                #expect(abs(candidate.distance - mean) < 1e-5, "\(neighbors): \(candidate.name)")
                #expect(candidate.score == 1 / (1 + candidate.distance))
            }
            #expect(result.candidates.map(\.distance) == result.candidates.map(\.distance).sorted())
        }
    }

    @Test("a stroke one template fits and the others do not goes to a gesture all of whose templates fit it")
    func ranking() throws {
        let stroke = Fixtures.log("check", subject: "s03")
        // "odd": the stroke itself and two shapes unlike it; "check": three checks of another hand.
        var library = Self.library(["check"], neighbors: 1)
        library.add(GestureTemplate(name: "odd", strokePoints: stroke.points))
        library.add(GestureTemplate(name: "odd", strokePoints: Fixtures.log("circle").points))
        library.add(GestureTemplate(name: "odd", strokePoints: Fixtures.log("star").points))
        let nearest = try Recognizer(library: library, configuration: Self.configuration).recognize(stroke.points)
        #expect(nearest.match?.name == "odd" && nearest.match?.score == 1)
        library.neighbors = 3
        let three = try Recognizer(library: library, configuration: Self.configuration).recognize(stroke.points)
        #expect(three.match?.name == "check")
        #expect(three.candidates.map(\.name) == ["check", "odd"])
    }

    @Test("a template of several paths (strokes either way round) counts once, by its nearest path")
    func paths() throws {
        // A line and a dot: the dot drawn either way is nearly the same path, so the template's two nearest paths
        // are both its own. The gesture's second template is a steeper line and a dot.
        func template(rise: Double) -> GestureTemplate {
            let line = (0...20).map { SIMD2(Double($0) * 5, Double($0) * rise) }
            return GestureTemplate(name: "mark", strokes: [line, [SIMD2(50, 40), SIMD2(51, 41)]])
        }
        var library = TemplateLibrary(name: "marks", templates: [template(rise: 0), template(rise: 1.5)])
        library.strokeOrder = .drawn
        library.strokeDirection = .any
        library.neighbors = 2
        let drawn = template(rise: 0)
        let alone = try #require(
            try Self.distances(drawn.points, strokeStarts: drawn.strokeStarts, in: library)["mark"])
        #expect(alone[0] < 1e-6 && alone[1] > 0.1)
        let match = try #require(
            try Recognizer(library: library, configuration: Self.configuration)
                .recognize(points: drawn.points, strokeStarts: drawn.strokeStarts).match)
        // The mean of its own template (0) and the other one, not of two paths of its own.
        #expect(abs(match.distance - (alone[0] + alone[1]) / 2) < 1e-5, "\(match.distance) against \(alone)")
        #expect(match.drawnBackward == false)
    }

    @Test("a gesture of several strokes matched in any order is scored by its nearest template; the others by theirs")
    func severalStrokes() throws {
        var library = Self.library(["check", "v", "caret"], neighbors: 3)
        library.removeAll(named: "caret")
        for log in Fixtures.logs where log.subject == "s02" && log.gesture == "x" {
            library.add(
                GestureTemplate(name: "x", strokes: Evaluator.pieces(of: log.points.map(\.position), count: 2)))
        }
        let x = GestureTemplate(
            name: "x", strokes: Evaluator.pieces(of: Fixtures.log("x", subject: "s03").points.map(\.position), count: 2)
        )
        let alone = try Self.distances(x.points, strokeStarts: x.strokeStarts, in: library)
        let result = try Recognizer(library: library, configuration: RecognizerConfiguration(shortlist: 256))
            .recognize(points: x.points, strokeStarts: x.strokeStarts)
        #expect(result.match?.name == "x")
        for candidate in result.candidates {
            let nearest = try #require(alone[candidate.name]).prefix(candidate.name == "x" ? 1 : 3)
            #expect(abs(candidate.distance - nearest.reduce(0, +) / Double(nearest.count)) < 1e-5, "\(candidate.name)")
        }
    }

    @Test("the built-in library's scores stand for each gesture's 3 nearest templates")
    func builtIn() throws {
        let library = try TemplateLibrary.builtIn()
        #expect(library.neighbors == 3 && library.fileVersion == 4)
        var nearestOnly = library
        nearestOnly.neighbors = 1
        // A template's own stroke: the nearest template alone scores it 1, its gesture's three nearest less.
        let points = try #require(library.templates.first { $0.name == "circle" }).points
        #expect(try Recognizer(library: nearestOnly).recognize(points: points).match?.score == 1)
        let match = try #require(try Recognizer(library: library).recognize(points: points).match)
        #expect(match.name == "circle" && match.score < 1 && match.score > library.minimumScore)
    }

    // MARK: - The file

    @Test("saved as version 4 only when a score stands for several templates; older versions and bad counts refused")
    func file() throws {
        var library = Self.library(["check", "v"], neighbors: 1)
        #expect(library.fileVersion == 1)
        library.neighbors = 3
        #expect(library.fileVersion == 4)
        let data = try library.jsonData()
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(object["version"] as? Int == 4 && object["neighbors"] as? Int == 3)
        #expect(try TemplateLibrary(json: data) == library)

        func refused(_ change: (inout [String: Any]) -> Void) -> RecognitionError? {
            var edited = object
            change(&edited)
            do {
                _ = try TemplateLibrary(json: try JSONSerialization.data(withJSONObject: edited), source: "edited")
                return nil
            } catch {
                return error as? RecognitionError
            }
        }
        let older = refused { $0["version"] = 3 }
        #expect(older?.code == .malformedLibrary && older?.message.contains("neighbors needs version 4") == true)
        for count in [0, 9, -1] {
            let error = refused { $0["neighbors"] = count }
            #expect(error?.code == .malformedLibrary, "\(count)")
            #expect(error?.message.contains("neighbors \(count) is outside 1...8") == true, "\(count)")
        }
        #expect(refused { $0["neighbors"] = "3" }?.code == .malformedLibrary)
        #expect(refused { $0["version"] = 5 }?.code == .unsupportedVersion)
        var invalid = library
        invalid.neighbors = 0
        #expect(throws: RecognitionError.self) { try Recognizer(library: invalid) }
    }
}
