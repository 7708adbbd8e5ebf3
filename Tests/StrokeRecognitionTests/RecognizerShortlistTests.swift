import Foundation
import Testing

@testable import StrokeRecognition

/// The Protractor shortlist takes a floor before ranking, then ranks the few templates that reach it all at once,
/// or keeps a heap when many do; either way it must pick exactly the templates a full sort would, in the same
/// order, ties included.
@Suite("Template matcher: the Protractor shortlist")
struct RecognizerShortlistTests {
    /// A library of `count` templates cycling through the fixtures, so that larger ones hold exact duplicates
    /// (tied similarities).
    static func library(count: Int, orientation: TemplateLibrary.Orientation) -> TemplateLibrary {
        var library = TemplateLibrary(name: "shortlist-\(count)")
        library.orientation = orientation
        for k in 0..<count {
            let log = Fixtures.logs[(k * 7) % Fixtures.logs.count]
            library.add(GestureTemplate(name: log.gesture, strokePoints: log.points))
        }
        return library
    }

    /// The first `size` templates by similarity, highest first, ties by template order, from a full sort.
    static func reference(_ recognizer: Recognizer, vector: [Float], size: Int) -> [Int] {
        let count = recognizer.templateCount
        let groups = (count + 7) / 8
        var dots = [ElasticMatcher.Lanes](repeating: .zero, count: 2 * groups)
        var similarities = [ElasticMatcher.Lanes](repeating: .zero, count: groups)
        let bounded = recognizer.maxRotation < .pi
        ElasticMatcher.protractorSimilarities(
            templates: recognizer.protractorLanes, groups: groups, stroke: vector, length: vector.count,
            cosMax: bounded ? cos(recognizer.maxRotation) : -1, sinMax: bounded ? sin(recognizer.maxRotation) : 0,
            dots: &dots, similarities: &similarities)
        let ranked = (0..<count).sorted { a, b in
            let (sa, sb) = (similarities[a / 8][a % 8], similarities[b / 8][b % 8])
            return sa > sb || (sa == sb && a < b)
        }
        return Array(ranked.prefix(size))
    }

    @Test(
        "the shortlist is the head of a full sort, for every size and library size",
        arguments: [TemplateLibrary.Orientation.sensitive, .invariant], [3, 16, 45, 130, 700])
    func matchesFullSort(orientation: TemplateLibrary.Orientation, templates: Int) throws {
        let recognizer = try Recognizer(library: Self.library(count: templates, orientation: orientation))
        var compared = 0
        var rankings = Set<Recognizer.ShortlistRanking>()
        for log in Fixtures.logs.prefix(24) {
            let features = try ShapeFeatures(points: log.points.map(\.position), pointCount: 32, tangentWeight: 1)
            for size in [1, 7, 8, 16, 24, 32, 40, 96, 256] where size <= templates {
                let expected = Self.reference(recognizer, vector: features.vector, size: size)
                let shortlist = [Recognizer.Shortlisted](unsafeUninitializedCapacity: size) { buffer, initialized in
                    features.vector.withUnsafeBufferPointer {
                        _ = rankings.insert(recognizer.protractorShortlist($0, into: buffer))
                    }
                    initialized = size
                }
                #expect(shortlist.map(\.index) == expected, "size \(size)")
                compared += 1
            }
        }
        #expect(compared >= 24)
        // Small libraries and shortlists near the library's size take the first way; 700 templates, the second.
        if templates == 16 { #expect(rankings == [.few]) }
        if templates == 700 { #expect(rankings.contains(.heap)) }
    }

    @Test("ranking at once gives, in every kernel build, the places of a stable sort, ties by position")
    func ranksAreAStableSort() {
        var generator = SeededGenerator(seed: 7)
        for count in [1, 2, 15, 16, 17, 40, 64, 72] {
            // Few distinct values, so that most candidates tie with others.
            var values = (0..<count).map { _ in Float(Int.random(in: 0..<6, using: &generator)) / 4 }
            values += Array(repeating: 0, count: (count + 15) / 16 * 16 - count)
            let order = (0..<count).sorted { values[$0] > values[$1] || (values[$0] == values[$1] && $0 < $1) }
            var expected = [Int32](repeating: 0, count: count)
            for (rank, position) in order.enumerated() { expected[position] = Int32(rank) }
            for (build, kernels) in MatchingKernelsTests.builds {
                var ranks = [Int32](repeating: -1, count: values.count)
                kernels.shortlistRanks(similarities: values, count: count, into: &ranks)
                #expect(Array(ranks.prefix(count)) == expected, "\(build), count \(count)")
            }
        }
    }
}
