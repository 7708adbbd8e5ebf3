extension Recognizer {
    // MARK: - Recognition among some gestures

    /// The gestures a recognition may answer: a bit per gesture id of this recognizer, and how many templates the
    /// chosen gestures have.
    struct Selection {
        /// Bit `id % 64` of word `id / 64` is set for a chosen gesture.
        let words: UnsafeMutableBufferPointer<UInt64>
        /// The chosen gestures' templates.
        let templates: Int

        /// Whether gesture `id` is chosen.
        @inline(__always)
        func contains(_ id: Int32) -> Bool {
            words[Int(id) >> 6] & (1 &<< UInt64(id & 63)) != 0
        }
    }

    /// Calls `body` with the selection of the gestures named `names` (nil: no selection, every gesture), in
    /// temporary memory: the names are looked up, not the library's gestures scanned. Names this recognizer lacks
    /// choose nothing.
    func withSelection<Result>(of names: [String]?, _ body: (Selection?) -> Result) -> Result {
        guard let names else { return body(nil) }
        return withUnsafeTemporaryAllocation(of: UInt64.self, capacity: max(1, (templateCounts.count + 63) / 64)) {
            words in
            words.initialize(repeating: 0)
            var templates = 0
            for name in names {
                guard let id = gestureIndex[name] else { continue }
                let (word, bit) = (Int(id) >> 6, UInt64(1) &<< UInt64(id & 63))
                guard words[word] & bit == 0 else { continue }
                words[word] |= bit
                templates += Int(templateCounts[Int(id)])
            }
            return body(Selection(words: words, templates: templates))
        }
    }

    /// Sets the similarity of every template whose gesture `selection` does not choose to −∞ (`count` templates in
    /// groups of `ElasticMatcher.Lanes`): a group's lanes are marked in a register and added at once (−∞ plus a
    /// similarity is −∞), not written one at a time to memory the next write reads again.
    func exclude(
        unselectedBy selection: Selection, from similarities: UnsafeMutablePointer<ElasticMatcher.Lanes>, count: Int
    ) {
        typealias Lanes = ElasticMatcher.Lanes
        let laneCount = Lanes.scalarCount
        gestureIDs.withUnsafeBufferPointer { ids in
            for group in 0..<(count + laneCount - 1) / laneCount {
                var penalty = Lanes.zero
                for lane in 0..<min(laneCount, count - group * laneCount)
                where !selection.contains(ids[group * laneCount + lane]) {
                    penalty[lane] = -.infinity
                }
                similarities[group] += penalty
            }
        }
    }
}
