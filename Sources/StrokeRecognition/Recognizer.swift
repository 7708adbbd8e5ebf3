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

    /// Each template's gesture as a small integer, so that ranking compares integers, not strings.
    private let gestureIDs: [Int32]
    private let gestureNames: [String]
    private let vectors: [Float]  // templates.count × 2N
    private let elastic: [Float]  // templates.count × 4N
    private let maxRotation: Float

    /// Compiles `library`.
    ///
    /// - Throws: `RecognitionError` when the configuration is out of range or a template is degenerate.
    public init(library: TemplateLibrary, configuration: RecognizerConfiguration = .default) throws(RecognitionError) {
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
        var ids = [String: Int32]()
        var gestureNames = [String]()
        self.gestureIDs = library.templates.map { template in
            if let id = ids[template.name] { return id }
            let id = Int32(gestureNames.count)
            ids[template.name] = id
            gestureNames.append(template.name)
            return id
        }
        self.gestureNames = gestureNames
        self.vectors = vectors
        self.elastic = elastic
        self.maxRotation =
            library.orientation == .invariant ? .infinity : Float(library.maxRotationDegrees * .pi / 180)
    }

    /// Number of templates.
    public var templateCount: Int { gestureIDs.count }

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
        guard !gestureIDs.isEmpty else { return RecognitionResult(match: nil, candidates: []) }
        // The elastic matcher computes eight templates at once, so the shortlist is rounded up to a multiple of
        // eight: the extra lanes cost nothing.
        let lanes = ElasticMatcher.Lanes.scalarCount
        let scaled = min(gestureIDs.count / configuration.shortlistDivisor, configuration.shortlistLimit)
        let wanted =
            configuration.shortlist == 0
            ? 1 : (max(configuration.shortlist, scaled) + lanes - 1) / lanes * lanes
        let shortlist = protractorShortlist(features, size: min(wanted, gestureIDs.count))
        var scored: [(gesture: Int32, distance: Float)]
        if configuration.shortlist == 0 {
            scored = shortlist.map { (gestureIDs[$0.index], acos(min(1, max(-1, $0.similarity)))) }
        } else {
            scored = rerank(shortlist, features: features)
        }
        scored.sort { $0.distance < $1.distance }
        // The best `topK` distinct gestures; names are looked up only for them.
        var best = [(gesture: Int32, distance: Float)]()
        best.reserveCapacity(configuration.topK)
        for entry in scored where entry.distance.isFinite && !best.contains(where: { $0.gesture == entry.gesture }) {
            best.append(entry)
            if best.count == configuration.topK { break }
        }
        let candidates = best.map { entry in
            let distance = Double(entry.distance)
            return RecognitionResult.Candidate(
                name: gestureNames[Int(entry.gesture)], score: 1 / (1 + distance), distance: distance)
        }
        let match = candidates.first.flatMap { $0.score >= library.minimumScore ? $0 : nil }
        return RecognitionResult(match: match, candidates: candidates)
    }

    // MARK: - Cascade stages

    private typealias Shortlisted = (index: Int, similarity: Float, angle: Float)

    /// The `size` templates most similar by Protractor, best first.
    ///
    /// Both dot products of the closed form are plain dot products: `a = t·c` and `b = t·c⊥`, with
    /// `c⊥ = (−cy, cx)` per point, so the loop runs over 8-float vectors.
    private func protractorShortlist(_ features: ShapeFeatures, size: Int) -> [Shortlisted] {
        let length = 2 * configuration.pointCount
        var shortlist = [HeapEntry]()
        shortlist.reserveCapacity(size + 1)
        let cosMax = maxRotation >= .pi ? -1 : cos(maxRotation)
        let sinMax = maxRotation >= .pi ? 0 : sin(maxRotation)
        withUnsafeTemporaryAllocation(of: Float.self, capacity: 2 * length) { buffer in
            let c = buffer.baseAddress!
            let perpendicular = c + length
            for k in 0..<(length / 2) {
                c[2 * k] = features.vector[2 * k]
                c[2 * k + 1] = features.vector[2 * k + 1]
                perpendicular[2 * k] = -features.vector[2 * k + 1]
                perpendicular[2 * k + 1] = features.vector[2 * k]
            }
            vectors.withUnsafeBufferPointer { all in
                let base = all.baseAddress!
                for index in 0..<gestureIDs.count {
                    let t = base + index * length
                    var a8 = SIMD8<Float>.zero
                    var b8 = SIMD8<Float>.zero
                    var k = 0
                    while k + 8 <= length {
                        let tv = UnsafeRawPointer(t + k).loadUnaligned(as: SIMD8<Float>.self)
                        a8 += tv * UnsafeRawPointer(c + k).loadUnaligned(as: SIMD8<Float>.self)
                        b8 += tv * UnsafeRawPointer(perpendicular + k).loadUnaligned(as: SIMD8<Float>.self)
                        k += 8
                    }
                    var a = a8.sum()
                    var b = b8.sum()
                    while k < length {
                        a += t[k] * c[k]
                        b += t[k] * perpendicular[k]
                        k += 1
                    }
                    let similarity = Protractor.similarity(a: a, b: b, cosMax: cosMax, sinMax: sinMax)
                    // Keep the best `size` in a min-heap: O(templates × log size), and most templates are
                    // rejected by one comparison with the heap's root.
                    if shortlist.count < size {
                        shortlist.append((index, similarity, a, b))
                        Self.siftUp(&shortlist, from: shortlist.count - 1)
                    } else if similarity > shortlist[0].similarity {
                        shortlist[0] = (index, similarity, a, b)
                        Self.siftDown(&shortlist, from: 0)
                    }
                }
            }
        }
        // Best first; ties by template order, so results do not depend on the heap's layout.
        shortlist.sort { ($0.similarity, $1.index) > ($1.similarity, $0.index) }
        return shortlist.map { entry in
            let alignment = Protractor.alignment(a: entry.a, b: entry.b, maxRotation: maxRotation)
            return (entry.index, alignment.similarity, alignment.angle)
        }
    }

    private typealias HeapEntry = (index: Int, similarity: Float, a: Float, b: Float)

    private static func siftUp(_ heap: inout [HeapEntry], from start: Int) {
        var child = start
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].similarity < heap[parent].similarity else { return }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    private static func siftDown(_ heap: inout [HeapEntry], from start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1
            guard left < heap.count else { return }
            var smallest = left
            if left + 1 < heap.count && heap[left + 1].similarity < heap[left].similarity { smallest = left + 1 }
            guard heap[smallest].similarity < heap[parent].similarity else { return }
            heap.swapAt(smallest, parent)
            parent = smallest
        }
    }

    /// Elastic distances of the shortlisted templates, eight at a time in SIMD lanes. In rotation-invariant
    /// libraries the stroke is first rotated by each template's Protractor angle; in orientation-sensitive ones
    /// it is compared as drawn (measured: rotating it there costs accuracy).
    private func rerank(_ shortlist: [Shortlisted], features: ShapeFeatures) -> [(gesture: Int32, distance: Float)] {
        typealias Lanes = ElasticMatcher.Lanes
        let n = configuration.pointCount
        let stride = ElasticMatcher.stride
        let laneCount = Lanes.scalarCount
        var results = [(gesture: Int32, distance: Float)]()
        results.reserveCapacity(shortlist.count)
        withUnsafeTemporaryAllocation(of: Lanes.self, capacity: 2 * n * stride + 2 * n) { buffer in
            let candidates = buffer.baseAddress!
            let templates = candidates + n * stride
            let rows = templates + n * stride
            // Lane vectors are written as plain floats (8 per vector): scalar stores, no SIMD inserts.
            let candidateFloats = UnsafeMutableRawPointer(candidates).assumingMemoryBound(to: Float.self)
            let templateFloats = UnsafeMutableRawPointer(templates).assumingMemoryBound(to: Float.self)
            let invariant = library.orientation == .invariant
            features.elastic.withUnsafeBufferPointer { feature in
                if !invariant {
                    for k in 0..<(n * stride) { candidates[k] = Lanes(repeating: feature[k]) }
                }
                elastic.withUnsafeBufferPointer { all in
                    var groupStart = 0
                    while groupStart < shortlist.count {
                        let group = shortlist[groupStart..<min(groupStart + laneCount, shortlist.count)]
                        if group.count < laneCount {
                            for k in 0..<(n * stride) { templates[k] = .zero }
                        }
                        for (lane, entry) in group.enumerated() {
                            let source = all.baseAddress! + entry.index * n * stride
                            for k in 0..<(n * stride) { templateFloats[k * laneCount + lane] = source[k] }
                            guard invariant else { continue }
                            let cosine = cos(entry.angle)
                            let sine = sin(entry.angle)
                            var k = 0
                            while k < n * stride {
                                let x = feature[k]
                                let y = feature[k + 1]
                                candidateFloats[k * laneCount + lane] = x * cosine - y * sine
                                candidateFloats[(k + 1) * laneCount + lane] = x * sine + y * cosine
                                k += 2
                            }
                        }
                        let distances = ElasticMatcher.distances(
                            candidates: candidates, templates: templates, count: n, band: configuration.band,
                            rows: rows)
                        for (lane, entry) in group.enumerated() {
                            results.append((gestureIDs[entry.index], distances[lane]))
                        }
                        groupStart += laneCount
                    }
                }
            }
        }
        return results
    }
}
