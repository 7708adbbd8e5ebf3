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
    /// taken that at least `size` similarities reach (`floor(_:groups:size:)`), and a group none of whose lanes
    /// reaches it, or later beats the shortlist's worst, is passed over by one vector comparison.
    func protractorShortlist(_ c: UnsafeBufferPointer<Float>, into shortlist: UnsafeMutableBufferPointer<Shortlisted>) {
        typealias Lanes = ElasticMatcher.Lanes
        let size = shortlist.count
        let laneCount = Lanes.scalarCount
        let count = gestureIDs.count
        let groups = (count + laneCount - 1) / laneCount
        Workspace.with(byteCount: 3 * groups * MemoryLayout<Lanes>.stride) { workspace in
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
            // The best `size` as a heap with the worst at the root.
            withUnsafeTemporaryAllocation(of: HeapEntry.self, capacity: size) { buffer in
                let heap = buffer.baseAddress!
                var filled = 0
                // What a template must reach to be ranked: the floor, then, once the heap is full, more than its
                // worst (later templates lose ties).
                var threshold = Self.floor(similarities, groups: groups, size: size)
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
                    let index = Int(heap[0].index)
                    let a = dots[2 * (index / laneCount)][index % laneCount]
                    let b = dots[2 * (index / laneCount) + 1][index % laneCount]
                    shortlist[filled] = (index, a, b)
                    heap[0] = heap[filled]
                    Self.siftDown(heap, count: filled, from: 0)
                }
            }
        }
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
