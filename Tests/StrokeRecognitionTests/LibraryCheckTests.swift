import Foundation
import Testing

@testable import StrokeRecognition

@Suite("Checking a library's gestures against each other")
struct LibraryCheckTests {
    /// Templates of a shape through `corners`, each with its corners moved by a few percent of the shape's size.
    private func templates(_ name: String, _ corners: [SIMD2<Double>], count: Int, seed: UInt64)
        -> [GestureTemplate]
    {
        var generator = SeededGenerator(seed: seed)
        return (0..<count).map { _ in
            let moved = corners.map { corner in
                corner
                    + SIMD2(Double.random(in: -3...3, using: &generator), Double.random(in: -3...3, using: &generator))
            }
            return GestureTemplate(name: name, strokePoints: Fixtures.polyline(moved, step: 2))
        }
    }

    private let zigzag: [SIMD2<Double>] = [SIMD2(0, 0), SIMD2(25, 60), SIMD2(50, 0), SIMD2(75, 60), SIMD2(100, 0)]
    private let square: [SIMD2<Double>] = [SIMD2(0, 0), SIMD2(0, 100), SIMD2(100, 100), SIMD2(100, 0), SIMD2(0, 0)]
    private let check: [SIMD2<Double>] = [SIMD2(0, 20), SIMD2(30, 50), SIMD2(100, -40)]

    @Test("gestures that differ stand apart: every template is clear and the check passes")
    func distinctGestures() throws {
        var library = TemplateLibrary(name: "distinct")
        library.add(contentsOf: templates("zigzag", zigzag, count: 3, seed: 1))
        library.add(contentsOf: templates("square", square, count: 3, seed: 2))
        library.add(contentsOf: templates("check", check, count: 3, seed: 3))
        let report = try Evaluator.check(library: library)
        #expect(report.templates == 9)
        #expect(report.verdicts == ["clear": 9])
        #expect(report.findings.isEmpty && report.pairs.isEmpty)
        #expect(!report.failed)
        #expect(report.margin == RecognizerConfiguration.default.choiceMargin)
        #expect(report.minimumScore == library.minimumScore)
    }

    @Test("two gestures drawn alike are found out, each the other's nearest, and the check fails")
    func gesturesDrawnAlike() throws {
        var library = TemplateLibrary(name: "alike")
        // The same three drawings under two names: the other gesture holds one exactly like each template.
        for template in templates("alike", check, count: 3, seed: 4) {
            library.add(GestureTemplate(name: "fire", points: template.points))
            library.add(GestureTemplate(name: "flame", points: template.points))
        }
        library.add(contentsOf: templates("square", square, count: 3, seed: 5))
        let report = try Evaluator.check(library: library)
        #expect(report.failed)
        let found = report.findings.filter { $0.gesture == "fire" || $0.gesture == "flame" }
        #expect(found.count == 6 && found.allSatisfy { $0.verdict == .confused })
        for finding in found {
            #expect(finding.nearest == (finding.gesture == "fire" ? "flame" : "fire"))
            let own = try #require(finding.ownScore)
            #expect(finding.nearestScore.map { $0 > own } == true)
        }
        #expect(Set(report.pairs.map { "\($0.gesture)→\($0.nearest)" }).isSuperset(of: ["fire→flame", "flame→fire"]))
        #expect(report.pairs.map(\.confused) == [3, 3])
        #expect(report.pairs.allSatisfy { $0.smallestLead < 0 })
        #expect(report.findings.allSatisfy { $0.gesture != "square" })
        // Counted once each: the tally covers every template.
        #expect(report.verdicts.values.reduce(0, +) == report.templates)
        #expect(report.verdicts["clear"] == report.templates - report.findings.count)
    }

    @Test("a gesture of one template is reported with its nearest other gesture; that alone fails nothing")
    func onlyTemplate() throws {
        var library = TemplateLibrary(name: "one")
        library.add(contentsOf: templates("square", square, count: 2, seed: 6))
        library.add(contentsOf: templates("zigzag", zigzag, count: 1, seed: 7))
        let report = try Evaluator.check(library: library)
        let finding = try #require(report.findings.first { $0.gesture == "zigzag" })
        #expect(finding.verdict == .onlyTemplate && finding.index == 0 && finding.ownScore == nil)
        #expect(finding.nearest == "square" && finding.nearestScore != nil)
        #expect(!report.failed)
    }

    @Test("each template is numbered among its gesture's templates, as library remove --index counts")
    func indices() throws {
        var library = TemplateLibrary(name: "indices")
        let squares = templates("square", square, count: 2, seed: 8)
        library.add(squares[0])
        library.add(contentsOf: templates("zigzag", zigzag, count: 1, seed: 9))
        library.add(squares[1])
        library.add(contentsOf: templates("check", check, count: 1, seed: 10))
        let report = try Evaluator.check(library: library)
        #expect(
            report.findings.map { "\($0.gesture)[\($0.index)]" }.filter { !$0.hasPrefix("square") } == [
                "zigzag[0]", "check[0]",
            ])
    }

    @Test(
        "the verdict from a template's own gesture's score and the nearest other's",
        arguments: [
            (0.9, false, 0.5, LibraryCheckReport.Verdict.clear),
            (0.9, false, 0.88, .close),
            (0.9, false, 0.9, .confused),
            (0.7, false, 0.8, .confused),
            (0.5, false, 0.3, .belowThreshold),
            (0.5, false, 0.6, .confused),
            (0.3, false, 0.5, .belowThreshold),  // the other gesture wins, but under the threshold: no match
            (0.9, true, 0.8, .onlyTemplate),
        ])
    func verdicts(own: Double, alone: Bool, nearest: Double, expected: LibraryCheckReport.Verdict) {
        #expect(
            Evaluator.verdict(own: own, alone: alone, nearest: nearest, minimumScore: 0.55, margin: 0.05) == expected)
        #expect(
            Evaluator.verdict(own: nil, alone: false, nearest: nil, minimumScore: 0.55, margin: 0.05) == .belowThreshold
        )
        #expect(Evaluator.verdict(own: 0.9, alone: false, nearest: nil, minimumScore: 0.55, margin: 0.05) == .clear)
    }

    @Test("each gesture is held to its own threshold: the other gesture's, and the template's own")
    func ownThresholds() {
        // The other gesture wins but under its own threshold: no match, and the template's own is under its own.
        #expect(
            Evaluator.verdict(
                own: 0.6, alone: false, nearest: 0.7, minimumScore: 0.55, nearestMinimumScore: 0.8, margin: 0.05)
                == .belowThreshold)
        #expect(
            Evaluator.verdict(
                own: 0.6, alone: false, nearest: 0.7, minimumScore: 0.55, nearestMinimumScore: 0.65, margin: 0.05)
                == .confused)
        #expect(
            Evaluator.verdict(
                own: 0.6, alone: false, nearest: 0.3, minimumScore: 0.65, nearestMinimumScore: 0.2, margin: 0.05)
                == .belowThreshold)
        // A library check of a library whose gesture needs more than its templates reach one another by.
        var library = TemplateLibrary(name: "strict")
        library.add(
            contentsOf: Fixtures.logs.filter { $0.gesture == "circle" && $0.subject == "s02" }.prefix(3)
                .map { GestureTemplate(name: "circle", strokePoints: $0.points) })
        library.add(
            contentsOf: Fixtures.logs.filter { $0.gesture == "v" && $0.subject == "s02" }.prefix(3)
                .map { GestureTemplate(name: "v", strokePoints: $0.points) })
        library.gestureMinimumScores = ["circle": 1]
        let report = try? Evaluator.check(library: library)
        #expect(
            report?.findings.filter { $0.gesture == "circle" }.map(\.verdict) == [
                .belowThreshold, .belowThreshold, .belowThreshold,
            ])
        #expect(report?.findings.contains { $0.gesture == "v" && $0.verdict == .belowThreshold } == false)
    }

    @Test("a negative or non-finite margin is refused")
    func badMargin() {
        for margin in [-0.1, .nan, .infinity] {
            #expect(throws: RecognitionError.self) {
                try Evaluator.check(library: TemplateLibrary(name: "empty"), margin: margin)
            }
        }
    }
}
