extension Recognizer {
    // MARK: - Recognition among some gestures

    /// The gestures a recognition may answer: the lanes of their templates, a byte per group of lanes, and how
    /// many templates they have.
    struct Selection {
        /// Bit `k` of byte `g` is set when template `g × 8 + k` is of a chosen gesture.
        let lanes: UnsafeMutableBufferPointer<UInt8>
        /// The chosen gestures' templates.
        let templates: Int
    }

    /// Calls `body` with the selection of the gestures named `names` (nil: no selection, every gesture), in
    /// temporary memory: the names are looked up and their templates' lanes marked, not the library's templates
    /// scanned. Names this recognizer lacks choose nothing.
    func withSelection<Result>(of names: [String]?, _ body: (Selection?) -> Result) -> Result {
        guard let names else { return body(nil) }
        let laneCount = ElasticMatcher.Lanes.scalarCount
        return withUnsafeTemporaryAllocation(
            of: UInt8.self, capacity: max(1, (gestureIDs.count + laneCount - 1) / laneCount)
        ) {
            lanes in
            lanes.initialize(repeating: 0)
            let index = gestureIndex
            var templates = 0
            for name in names {
                guard let id = index.id(of: name, among: gestureNames) else { continue }
                templates += index.mark(id, in: lanes)
            }
            return body(Selection(lanes: lanes, templates: templates))
        }
    }

    /// Sets the similarity of every template whose gesture `selection` does not choose to −∞, a group of lanes at a
    /// time: the group's unchosen lanes pick its penalty (0 or −∞ in each lane) from `penalties`, added at once.
    /// (The lanes past the last template are −∞ already.)
    func exclude(unselectedBy selection: Selection, from similarities: UnsafeMutablePointer<ElasticMatcher.Lanes>) {
        Self.penalties.withUnsafeBufferPointer { penalties in
            for group in selection.lanes.indices {
                similarities[group] += penalties[Int(~selection.lanes[group])]
            }
        }
    }

    /// For each byte, the lanes whose bits it sets at −∞, the others at 0.
    static let penalties: [ElasticMatcher.Lanes] = (0..<256).map { bits in
        var penalty = ElasticMatcher.Lanes.zero
        for lane in 0..<ElasticMatcher.Lanes.scalarCount where bits & (1 << lane) != 0 { penalty[lane] = -.infinity }
        return penalty
    }
}
