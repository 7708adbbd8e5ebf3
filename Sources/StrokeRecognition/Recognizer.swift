import Foundation

/// A template library compiled for matching: a cascade of Protractor and elastic matching.
///
/// Every template is preprocessed once. A stroke is compared with all templates by the closed-form Protractor
/// similarity (rotation bounded in orientation-sensitive libraries); the `shortlist` best are re-ranked by
/// banded dynamic time warping over positions and tangents, after rotating the stroke by the Protractor angle.
/// A `Recognizer` is immutable and `Sendable`: share one across threads.
public struct Recognizer: Sendable {
    /// The compiled library, held by reference: copying a recognizer (per stroke, in the worker) costs one
    /// reference count, not one per array.
    private final class Storage: Sendable {
        let library: TemplateLibrary
        let configuration: RecognizerConfiguration
        /// Each template's gesture as a small integer, so that ranking compares integers, not strings.
        let gestureIDs: [Int32]
        let gestureNames: [String]
        /// Protractor vectors, eight templates to a group: `protractorLanes[g × 2N + k]` holds component `k` of
        /// templates `8g…8g+7` (zero in the unused lanes of the last group).
        let protractorLanes: [ElasticMatcher.Lanes]
        let elastic: [Float]  // templates.count × 4N
        let maxRotation: Float

        init(
            library: TemplateLibrary, configuration: RecognizerConfiguration, gestureIDs: [Int32],
            gestureNames: [String], protractorLanes: [ElasticMatcher.Lanes], elastic: [Float], maxRotation: Float
        ) {
            self.library = library
            self.configuration = configuration
            self.gestureIDs = gestureIDs
            self.gestureNames = gestureNames
            self.protractorLanes = protractorLanes
            self.elastic = elastic
            self.maxRotation = maxRotation
        }
    }

    private let storage: Storage

    /// The library this recognizer was compiled from.
    public var library: TemplateLibrary { storage.library }
    /// The matcher's tuning.
    public var configuration: RecognizerConfiguration { storage.configuration }

    private var gestureIDs: [Int32] { storage.gestureIDs }
    private var gestureNames: [String] { storage.gestureNames }
    private var protractorLanes: [ElasticMatcher.Lanes] { storage.protractorLanes }
    private var elastic: [Float] { storage.elastic }
    private var maxRotation: Float { storage.maxRotation }

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
        var ids = [String: Int32]()
        var gestureNames = [String]()
        let gestureIDs = library.templates.map { template in
            if let id = ids[template.name] { return id }
            let id = Int32(gestureNames.count)
            ids[template.name] = id
            gestureNames.append(template.name)
            return id
        }
        let n2 = configuration.pointCount * 2
        let lanes = ElasticMatcher.Lanes.scalarCount
        let groups = (library.templates.count + lanes - 1) / lanes
        var protractorLanes = [ElasticMatcher.Lanes](repeating: .zero, count: groups * n2)
        for template in 0..<library.templates.count {
            for k in 0..<n2 {
                protractorLanes[(template / lanes) * n2 + k][template % lanes] = vectors[template * n2 + k]
            }
        }
        self.storage = Storage(
            library: library, configuration: configuration, gestureIDs: gestureIDs, gestureNames: gestureNames,
            protractorLanes: protractorLanes, elastic: elastic,
            maxRotation: library.orientation == .invariant
                ? .infinity : Float(library.maxRotationDegrees * .pi / 180))
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

    /// Recognizes a stroke given as a buffer of points.
    ///
    /// - Throws: as `recognize(points:)`.
    public func recognize(points: UnsafeBufferPointer<SIMD2<Double>>) throws(RecognitionError) -> RecognitionResult {
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
            scored = shortlist.map { entry in
                let similarity = Protractor.alignment(a: entry.a, b: entry.b, maxRotation: maxRotation).similarity
                return (gestureIDs[entry.index], acos(min(1, max(-1, similarity))))
            }
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

    /// A shortlisted template and its two Protractor dot products; the alignment is derived only where needed.
    private typealias Shortlisted = (index: Int, a: Float, b: Float)

    /// The `size` templates most similar by Protractor, best first.
    ///
    /// Both dot products of the closed form are plain dot products: `a = t·c` and `b = t·c⊥`, with
    /// `c⊥ = (−cy, cx)` per point. Templates are stored eight to a group, one per SIMD lane, so that eight
    /// similarities come out of one pass with no horizontal sums, and a group none of whose lanes beats the
    /// shortlist's worst is rejected by one vector comparison.
    private func protractorShortlist(_ features: ShapeFeatures, size: Int) -> [Shortlisted] {
        typealias Lanes = ElasticMatcher.Lanes
        let length = 2 * configuration.pointCount
        let laneCount = Lanes.scalarCount
        let count = gestureIDs.count
        let cosMax = Lanes(repeating: maxRotation >= .pi ? -1 : cos(maxRotation))
        let sinMax = Lanes(repeating: maxRotation >= .pi ? 0 : sin(maxRotation))
        let groups = (count + laneCount - 1) / laneCount
        return withUnsafeTemporaryAllocation(of: Lanes.self, capacity: 2 * groups) { dots in
            // The best `size` as a min-heap of (similarity, index), worst at the root.
            withUnsafeTemporaryAllocation(of: HeapEntry.self, capacity: size) { heap in
                var filled = 0
                var threshold = -Float.infinity
                features.vector.withUnsafeBufferPointer { c in
                    protractorLanes.withUnsafeBufferPointer { all in
                        ElasticMatcher.protractorDots(
                            templates: all.baseAddress!, groups: groups, stroke: c.baseAddress!, length: length,
                            into: dots.baseAddress!)
                        for group in 0..<groups {
                            let a = dots[2 * group]
                            let b = dots[2 * group + 1]
                            let r = (a * a + b * b).squareRoot()
                            let absB = b.replacing(with: -b, where: b .< 0)
                            let similarity = r.replacing(with: a * cosMax + absB * sinMax, where: a .< r * cosMax)
                            guard any(similarity .> threshold) else { continue }
                            for lane in 0..<min(laneCount, count - group * laneCount) where similarity[lane] > threshold
                            {
                                let entry = HeapEntry(
                                    similarity: similarity[lane], index: Int32(group * laneCount + lane))
                                if filled < size {
                                    heap[filled] = entry
                                    Self.siftUp(heap.baseAddress!, from: filled)
                                    filled += 1
                                } else {
                                    heap[0] = entry
                                    Self.siftDown(heap.baseAddress!, count: filled, from: 0)
                                }
                                if filled == size { threshold = heap[0].similarity }
                            }
                        }
                    }
                }
                // Best first; ties by template order, so results do not depend on the heap's layout.
                var best = UnsafeMutableBufferPointer(rebasing: heap[0..<filled])
                best.sort { ($0.similarity, $1.index) > ($1.similarity, $0.index) }
                return best.map { entry in
                    let index = Int(entry.index)
                    let a = dots[2 * (index / laneCount)][index % laneCount]
                    let b = dots[2 * (index / laneCount) + 1][index % laneCount]
                    return (index, a, b)
                }
            }
        }
    }

    private struct HeapEntry {
        var similarity: Float
        var index: Int32
    }

    private static func siftUp(_ heap: UnsafeMutablePointer<HeapEntry>, from start: Int) {
        var child = start
        let entry = heap[child]
        while child > 0 {
            let parent = (child - 1) / 2
            guard entry.similarity < heap[parent].similarity else { break }
            heap[child] = heap[parent]
            child = parent
        }
        heap[child] = entry
    }

    private static func siftDown(_ heap: UnsafeMutablePointer<HeapEntry>, count: Int, from start: Int) {
        var parent = start
        let entry = heap[parent]
        while true {
            let left = 2 * parent + 1
            guard left < count else { break }
            var smallest = left
            if left + 1 < count && heap[left + 1].similarity < heap[left].similarity { smallest = left + 1 }
            guard heap[smallest].similarity < entry.similarity else { break }
            heap[parent] = heap[smallest]
            parent = smallest
        }
        heap[parent] = entry
    }

    /// Elastic distances of the shortlisted templates, eight at a time in SIMD lanes. In rotation-invariant
    /// libraries the stroke is first rotated by each template's Protractor angle; in orientation-sensitive ones
    /// it is compared as drawn (measured: rotating it there costs accuracy), so no angle is computed at all.
    private func rerank(_ shortlist: [Shortlisted], features: ShapeFeatures) -> [(gesture: Int32, distance: Float)] {
        typealias Lanes = ElasticMatcher.Lanes
        let n = configuration.pointCount
        let length = n * ElasticMatcher.stride
        let laneCount = Lanes.scalarCount
        let zeroVectors = (length + laneCount - 1) / laneCount
        var results = [(gesture: Int32, distance: Float)]()
        results.reserveCapacity(shortlist.count)
        withUnsafeTemporaryAllocation(of: Lanes.self, capacity: 2 * length + 2 * n + zeroVectors) { buffer in
            let candidates = buffer.baseAddress!
            let templates = candidates + length
            let rows = templates + length
            let zeros = rows + 2 * n
            zeros.initialize(repeating: .zero, count: zeroVectors)
            let invariant = library.orientation == .invariant
            features.elastic.withUnsafeBufferPointer { feature in
                if !invariant {
                    for k in 0..<length { candidates[k] = Lanes(repeating: feature[k]) }
                }
                elastic.withUnsafeBufferPointer { all in
                    withUnsafeTemporaryAllocation(of: UnsafePointer<Float>.self, capacity: laneCount) { sources in
                        let zeroFloats = UnsafeRawPointer(zeros).assumingMemoryBound(to: Float.self)
                        var groupStart = 0
                        while groupStart < shortlist.count {
                            let group = shortlist[groupStart..<min(groupStart + laneCount, shortlist.count)]
                            for lane in 0..<laneCount {
                                sources[lane] =
                                    lane < group.count
                                    ? all.baseAddress! + group[groupStart + lane].index * length : zeroFloats
                            }
                            ElasticMatcher.gather(
                                UnsafePointer(sources.baseAddress!), count: length, into: templates)
                            if invariant {
                                rotate(feature, by: group, into: candidates, count: length)
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
        }
        return results
    }

    /// Writes the stroke's elastic features rotated by each shortlisted template's Protractor angle, one template
    /// per lane (positions and tangents alike: both are pairs).
    private func rotate(
        _ feature: UnsafeBufferPointer<Float>, by group: ArraySlice<Shortlisted>,
        into candidates: UnsafeMutablePointer<ElasticMatcher.Lanes>, count: Int
    ) {
        typealias Lanes = ElasticMatcher.Lanes
        var cosine = Lanes(repeating: 1)
        var sine = Lanes.zero
        for (lane, entry) in group.enumerated() {
            let angle = Protractor.alignment(a: entry.a, b: entry.b, maxRotation: maxRotation).angle
            cosine[lane] = cos(angle)
            sine[lane] = sin(angle)
        }
        var k = 0
        while k + 1 < count {
            let x = Lanes(repeating: feature[k])
            let y = Lanes(repeating: feature[k + 1])
            candidates[k] = x * cosine - y * sine
            candidates[k + 1] = x * sine + y * cosine
            k += 2
        }
    }
}
