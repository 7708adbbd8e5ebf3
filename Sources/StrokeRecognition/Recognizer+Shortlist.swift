import Foundation

extension Recognizer {
    // MARK: - The Protractor shortlist

    /// A shortlisted template and its two Protractor dot products; the alignment is derived only where needed.
    typealias Shortlisted = (index: Int, a: Float, b: Float)

    /// The `shortlist.count` templates most similar by Protractor to the stroke's unit vector `c`, into
    /// `shortlist`, best first, ties by template order.
    ///
    /// Both dot products of the closed form are plain dot products: `a = t·c` and `b = t·c⊥`, with
    /// `c⊥ = (−cy, cx)` per point. Templates are stored eight to a group, one per SIMD lane, so that eight
    /// similarities come out of one pass with no horizontal sums. Before any template is ranked, a floor is
    /// taken that at least `size` similarities reach (`floor(_:groups:size:)`). When few templates reach it, they
    /// are ranked all at once (`rankFew`); otherwise a heap keeps the best, and a group none of whose lanes
    /// reaches the floor, or later beats the shortlist's worst, is passed over by one vector comparison.
    ///
    /// With a `selection`, the other gestures' templates count as least similar of all (−∞), so that the
    /// shortlist, no longer than the selection's templates, holds none of them.
    ///
    /// Returns how the templates were ranked (for the tests: both ways must give the same shortlist).
    @discardableResult
    func protractorShortlist(
        _ c: UnsafeBufferPointer<Float>, into shortlist: UnsafeMutableBufferPointer<Shortlisted>,
        selection: Selection? = nil
    ) -> ShortlistRanking {
        typealias Lanes = ElasticMatcher.Lanes
        let size = shortlist.count
        let laneCount = Lanes.scalarCount
        let count = gestureIDs.count
        let groups = (count + laneCount - 1) / laneCount
        return Workspace.with(byteCount: 3 * groups * MemoryLayout<Lanes>.stride) { workspace in
            let dots = workspace.bindMemory(to: Lanes.self, capacity: 3 * groups)
            let similarities = dots + 2 * groups
            protractorLanes.withUnsafeBufferPointer { all in
                ElasticMatcher.protractorSimilarities(
                    templates: all.baseAddress!, groups: groups, stroke: c.baseAddress!, length: c.count,
                    cosMax: maxRotation >= .pi ? -1 : cos(maxRotation),
                    sinMax: maxRotation >= .pi ? 0 : sin(maxRotation), dots: dots, similarities: similarities)
            }
            // The unused lanes of the last group must not raise the floor.
            for lane in (count - (groups - 1) * laneCount)..<laneCount { similarities[groups - 1][lane] = -.infinity }
            if let selection { exclude(unselectedBy: selection, from: similarities) }
            let floor = Self.floor(similarities, groups: groups, size: size)
            // A few dozen templates reach the floor, typically: ranked at once, without a heap.
            if Self.rankFew(similarities, dots: dots, groups: groups, count: count, floor: floor, into: shortlist) {
                return .few
            }
            // The best `size` as a heap with the worst at the root.
            withUnsafeTemporaryAllocation(of: HeapEntry.self, capacity: size) { buffer in
                let heap = buffer.baseAddress!
                var filled = 0
                // What a template must reach to be ranked: the floor, then, once the heap is full, more than its
                // worst (later templates lose ties).
                var threshold = floor
                for group in 0..<groups {
                    let similarity = similarities[group]
                    guard any(similarity .>= Lanes(repeating: threshold)) else { continue }
                    for lane in 0..<min(laneCount, count - group * laneCount) where similarity[lane] >= threshold {
                        let entry = HeapEntry(similarity: similarity[lane], index: Int32(group * laneCount + lane))
                        if filled < size {
                            heap[filled] = entry
                            Self.siftUp(heap, from: filled)
                            filled += 1
                        } else {
                            heap[0] = entry
                            Self.siftDown(heap, count: filled, from: 0)
                        }
                        if filled == size { threshold = heap[0].similarity.nextUp }
                    }
                }
                // At least `size` templates reach the floor, so the heap is full. Taking the worst off the root
                // one at a time fills the shortlist from its end.
                assert(filled == size, "fewer templates than the shortlist reached the floor")
                while filled > 0 {
                    filled -= 1
                    shortlist[filled] = Self.shortlisted(Int(heap[0].index), dots: dots)
                    heap[0] = heap[filled]
                    Self.siftDown(heap, count: filled, from: 0)
                }
            }
            return .heap
        }
    }

    /// How `protractorShortlist` ranked the templates.
    enum ShortlistRanking {
        /// All that reached the floor at once (`rankFew`).
        case few
        /// With a heap, as many reached it.
        case heap
    }

    /// Templates reaching the floor that `rankFew` ranks at most; with more, the heap ranks them.
    static let fewCandidates = 64

    /// The shortlist, when at most `fewCandidates` templates reach `floor` (and at least the shortlist's size do):
    /// those templates are gathered in template order and ranked all at once (`ShortlistKernel.ranks`), each then
    /// written to its place if it has one. Returns false, writing nothing, when there are more or fewer.
    private static func rankFew(
        _ similarities: UnsafePointer<ElasticMatcher.Lanes>, dots: UnsafePointer<ElasticMatcher.Lanes>, groups: Int,
        count: Int, floor: Float, into shortlist: UnsafeMutableBufferPointer<Shortlisted>
    ) -> Bool {
        typealias Lanes = ElasticMatcher.Lanes
        guard shortlist.count <= fewCandidates else { return false }
        let laneCount = Lanes.scalarCount
        // Room for a group's lanes past the limit, rounded up to the kernel's sixteen (its padding).
        let room = (fewCandidates + laneCount + 15) / 16 * 16
        return withUnsafeTemporaryAllocation(of: Float.self, capacity: room) { values in
            withUnsafeTemporaryAllocation(of: Int32.self, capacity: 2 * room) { indices in
                let ranks = indices.baseAddress! + room
                var gathered = 0
                let reached = Lanes(repeating: floor)
                for group in 0..<groups {
                    let similarity = similarities[group]
                    guard any(similarity .>= reached) else { continue }
                    // Every lane is written; only those that reach the floor (and are templates) are kept.
                    for lane in 0..<laneCount {
                        let index = group * laneCount + lane
                        values[gathered] = similarity[lane]
                        indices[gathered] = Int32(truncatingIfNeeded: index)
                        gathered += similarity[lane] >= floor && index < count ? 1 : 0
                    }
                    guard gathered <= fewCandidates else { return false }
                }
                guard gathered >= shortlist.count else { return false }
                let padded = (gathered + 15) / 16 * 16
                for k in gathered..<padded { values[k] = 0 }
                ElasticMatcher.KernelBuild.currentKernels.shortlistRanks(
                    similarities: values.baseAddress!, count: gathered, into: ranks)
                for k in 0..<gathered {
                    let rank = Int(ranks[k])
                    guard rank < shortlist.count else { continue }
                    shortlist[rank] = shortlisted(Int(indices[k]), dots: dots)
                }
                return true
            }
        }
    }

    /// Template `index` with its two dot products, read from where `protractorSimilarities` wrote them.
    private static func shortlisted(_ index: Int, dots: UnsafePointer<ElasticMatcher.Lanes>) -> Shortlisted {
        let (group, lane) = index.quotientAndRemainder(dividingBy: ElasticMatcher.Lanes.scalarCount)
        return (index, dots[2 * group][lane], dots[2 * group + 1][lane])
    }

    /// A similarity that at least `size` templates reach, found in one pass without ranking anything.
    ///
    /// With at most four vectors per lane (`⌈size / 8⌉`, up to 32 templates), it is the lowest of each lane's
    /// that many best over all groups: that many distinct templates per lane. With more, the groups are split
    /// into that many runs, and it is the lowest of the runs' lane-wise maxima: each is a distinct template's.
    private static func floor(_ similarities: UnsafePointer<ElasticMatcher.Lanes>, groups: Int, size: Int) -> Float {
        typealias Lanes = ElasticMatcher.Lanes
        let levels = (size + Lanes.scalarCount - 1) / Lanes.scalarCount
        guard levels <= 4 else {
            guard groups >= levels else { return -.infinity }
            var lowest = Float.infinity
            for run in 0..<levels {
                var highest = similarities[run * groups / levels]
                for group in (run * groups / levels + 1)..<((run + 1) * groups / levels) {
                    highest = highest.replacing(with: similarities[group], where: similarities[group] .> highest)
                }
                lowest = min(lowest, highest.min())
            }
            return lowest
        }
        let lowest = Lanes(repeating: -.infinity)
        var best = (lowest, lowest, lowest, lowest)
        for group in 0..<groups {
            var x = similarities[group]
            (best.0, x) = (x.replacing(with: best.0, where: best.0 .> x), x.replacing(with: best.0, where: x .> best.0))
            (best.1, x) = (x.replacing(with: best.1, where: best.1 .> x), x.replacing(with: best.1, where: x .> best.1))
            (best.2, x) = (x.replacing(with: best.2, where: best.2 .> x), x.replacing(with: best.2, where: x .> best.2))
            best.3 = x.replacing(with: best.3, where: best.3 .> x)
        }
        switch levels {
        case 1: return best.0.min()
        case 2: return best.1.min()
        case 3: return best.2.min()
        default: return best.3.min()
        }
    }

    /// A ranked template.
    private struct HeapEntry {
        var similarity: Float
        var index: Int32

        /// Whether `self` ranks below `other`: less similar, or as similar and later in the library. A total
        /// order, so the shortlist does not depend on the heap's layout.
        @inline(__always)
        func ranksBelow(_ other: HeapEntry) -> Bool {
            similarity < other.similarity || (similarity == other.similarity && index > other.index)
        }
    }

    private static func siftUp(_ heap: UnsafeMutablePointer<HeapEntry>, from start: Int) {
        var child = start
        let entry = heap[child]
        while child > 0 {
            let parent = (child - 1) / 2
            guard entry.ranksBelow(heap[parent]) else { break }
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
            var lowest = left
            if left + 1 < count && heap[left + 1].ranksBelow(heap[left]) { lowest = left + 1 }
            guard heap[lowest].ranksBelow(entry) else { break }
            heap[parent] = heap[lowest]
            parent = lowest
        }
        heap[parent] = entry
    }
}
