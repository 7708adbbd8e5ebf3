import Foundation

/// A template library compiled for matching: a cascade of Protractor and elastic matching.
///
/// Every template is preprocessed once. A stroke is compared with all templates by the closed-form Protractor
/// similarity (rotation bounded in orientation-sensitive libraries); the `shortlist` best are re-ranked by
/// banded dynamic time warping over positions and tangents, after rotating the stroke by the Protractor angle.
/// A `Recognizer` is immutable and `Sendable`: share one across threads.
public struct Recognizer: Sendable {
    /// The library this recognizer was compiled from.
    public let library: TemplateLibrary
    /// The matcher's tuning.
    public let configuration: RecognizerConfiguration

    private let names: [String]
    private let vectors: [Float]  // templates.count × 2N
    private let elastic: [Float]  // templates.count × 4N
    private let maxRotation: Float

    /// Compiles `library`.
    ///
    /// - Throws: `RecognitionError` when the configuration is out of range or a template is degenerate.
    public init(library: TemplateLibrary, configuration: RecognizerConfiguration = .default) throws(RecognitionError)
    {
        try configuration.validate()
        try library.validate(source: library.name)
        var vectors = [Float]()
        var elastic = [Float]()
        vectors.reserveCapacity(library.templates.count * configuration.pointCount * 2)
        elastic.reserveCapacity(library.templates.count * configuration.pointCount * ElasticMatcher.stride)
        for template in library.templates {
            let features = try ShapeFeatures(
                points: template.points, pointCount: configuration.pointCount,
                tangentWeight: configuration.tangentWeight)
            vectors.append(contentsOf: features.vector)
            elastic.append(contentsOf: features.elastic)
        }
        self.library = library
        self.configuration = configuration
        self.names = library.templates.map(\.name)
        self.vectors = vectors
        self.elastic = elastic
        self.maxRotation =
            library.orientation == .invariant ? .infinity : Float(library.maxRotationDegrees * .pi / 180)
    }

    /// Number of templates.
    public var templateCount: Int { names.count }

    // MARK: - Recognition

    /// Recognizes a stroke given as touch points.
    public func recognize(_ points: [StrokePoint]) throws(RecognitionError) -> RecognitionResult {
        try recognize(points: points.map(\.position))
    }

    /// Recognizes a stroke.
    ///
    /// - Throws: `RecognitionError` `.degenerateStroke` (fewer than 2 points, or no extent) or `.nonFiniteValue`.
    ///   An empty library gives a result with no match and no candidates.
    public func recognize(points: [SIMD2<Double>]) throws(RecognitionError) -> RecognitionResult {
        let features = try ShapeFeatures(
            points: points, pointCount: configuration.pointCount, tangentWeight: configuration.tangentWeight)
        return recognize(features)
    }

    /// Recognizes a preprocessed stroke.
    public func recognize(_ features: ShapeFeatures) -> RecognitionResult {
        precondition(features.pointCount == configuration.pointCount, "features were made for another pointCount")
        guard !names.isEmpty else { return RecognitionResult(match: nil, candidates: []) }
        let n = configuration.pointCount
        let shortlistSize = min(max(configuration.shortlist, 1), names.count)
        // Protractor pass: keep the `shortlistSize` most similar templates (insertion into a small sorted list).
        var shortlist = [(index: Int, similarity: Float, angle: Float)]()
        shortlist.reserveCapacity(shortlistSize + 1)
        features.vector.withUnsafeBufferPointer { candidate in
            vectors.withUnsafeBufferPointer { all in
                for index in 0..<names.count {
                    let template = UnsafeBufferPointer(rebasing: all[(index * 2 * n)..<((index + 1) * 2 * n)])
                    let alignment = Protractor.align(template: template, candidate: candidate, maxRotation: maxRotation)
                    if shortlist.count == shortlistSize, alignment.similarity <= shortlist[shortlistSize - 1].similarity {
                        continue
                    }
                    var position = shortlist.count
                    while position > 0 && shortlist[position - 1].similarity < alignment.similarity { position -= 1 }
                    shortlist.insert((index, alignment.similarity, alignment.angle), at: position)
                    if shortlist.count > shortlistSize { shortlist.removeLast() }
                }
            }
        }
        var scored: [(name: String, distance: Double)]
        if configuration.shortlist == 0 {
            scored = shortlist.map { (names[$0.index], Double(acos(min(1, max(-1, $0.similarity))))) }
        } else {
            scored = rerank(shortlist, features: features)
        }
        scored.sort { $0.distance < $1.distance }
        var candidates = [RecognitionResult.Candidate]()
        for entry in scored where entry.distance.isFinite && !candidates.contains(where: { $0.name == entry.name }) {
            candidates.append(.init(name: entry.name, score: 1 / (1 + entry.distance), distance: entry.distance))
            if candidates.count == configuration.topK { break }
        }
        let match = candidates.first.flatMap { $0.score >= library.minimumScore ? $0 : nil }
        return RecognitionResult(match: match, candidates: candidates)
    }

    /// Elastic distances of the shortlisted templates; those certain to rank below the best `topK` are
    /// abandoned early and come back as infinity.
    private func rerank(
        _ shortlist: [(index: Int, similarity: Float, angle: Float)], features: ShapeFeatures
    ) -> [(name: String, distance: Double)] {
        let n = configuration.pointCount
        let stride = ElasticMatcher.stride
        var results = [(name: String, distance: Double)]()
        results.reserveCapacity(shortlist.count)
        var best = [(name: String, distance: Float)]()  // best distance per gesture so far, ascending
        withUnsafeTemporaryAllocation(of: Float.self, capacity: n * stride + 2 * n) { buffer in
            let rotated = UnsafeMutableBufferPointer(rebasing: buffer[0..<(n * stride)])
            let scratch = buffer.baseAddress! + n * stride
            elastic.withUnsafeBufferPointer { templates in
                for entry in shortlist {
                    _ = rotated.initialize(from: features.elastic)
                    if entry.angle != 0 && library.orientation == .invariant {
                        ElasticMatcher.rotate(rotated, by: entry.angle)
                    }
                    let bound = best.count >= configuration.topK ? best[configuration.topK - 1].distance : .infinity
                    let distance = ElasticMatcher.distance(
                        templates.baseAddress! + entry.index * n * stride, UnsafePointer(rotated.baseAddress!),
                        count: n, band: configuration.band, abandonAbove: bound, scratch: scratch)
                    let name = names[entry.index]
                    if distance.isFinite {
                        if let existing = best.firstIndex(where: { $0.name == name }) {
                            if best[existing].distance <= distance {
                                results.append((name, Double(distance)))
                                continue
                            }
                            best.remove(at: existing)
                        }
                        let position = best.firstIndex { $0.distance > distance } ?? best.count
                        best.insert((name, distance), at: position)
                    }
                    results.append((name, Double(distance)))
                }
            }
        }
        return results
    }
}
