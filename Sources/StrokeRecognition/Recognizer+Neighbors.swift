// MARK: - A gesture's nearest templates

extension Recognizer {
    /// Gives each gesture's nearest entry in `scored` the mean distance of the gesture's nearest templates there
    /// (`gestureNeighbors`, by gesture id, of them; fewer where fewer are), and every other entry infinity, so that
    /// the scan for candidates that follows ranks gestures by it (`TemplateLibrary.neighbors`).
    ///
    /// A gesture's nearest entry (ties by position, as the scan breaks them) stands for it and gives the match its
    /// rotation and direction. A library template compiled into several paths (`sources`: the template of each path,
    /// empty when every template is one) counts once, by its nearest path. One pass over the entries, in temporary
    /// memory: each gesture keeps its smallest distances in a short sorted column, updated by minimum and maximum
    /// without branches on the data (a sort of the entries by distance cost about 0.3 µs a recognition with the
    /// built-in library, most of it in mispredicted branches).
    static func averageNearest(
        _ scored: UnsafeMutableBufferPointer<Scored>, sources: [Int32], shortlist: UnsafeBufferPointer<Shortlisted>,
        gestureNeighbors: [Int32]
    ) {
        let count = scored.count
        guard count > 1, let entries = scored.baseAddress else { return }
        let limit = TemplateLibrary.maximumNeighbors
        // For each gesture, in the order they come: its nearest entry, how many of its templates are there and how
        // many its score stands for (three columns of integers), and its `limit` smallest distances, ascending (a
        // column of floats each).
        withUnsafeTemporaryAllocation(of: Int.self, capacity: 3 * count) { integers in
            withUnsafeTemporaryAllocation(of: Float.self, capacity: limit * count) { floats in
                let nearest = integers.baseAddress!
                let members = nearest + count
                let wanted = members + count
                var groups = 0
                for k in 0..<count {
                    var distance = entries[k].distance
                    guard distance.isFinite else { continue }
                    // A path of a template with a nearer path is passed over.
                    if !sources.isEmpty && Self.hasNearerPath(k, entries, count, sources, shortlist) { continue }
                    let gesture = entries[k].gesture
                    var group = 0
                    while group < groups && entries[nearest[group]].gesture != gesture { group += 1 }
                    let smallest = floats.baseAddress! + group * limit
                    if group == groups {
                        groups += 1
                        nearest[group] = k
                        members[group] = 0
                        wanted[group] = Int(gestureNeighbors[Int(gesture)])
                        smallest.initialize(repeating: .infinity, count: wanted[group])
                    } else if distance < entries[nearest[group]].distance {
                        nearest[group] = k
                    }
                    members[group] &+= 1
                    for j in 0..<wanted[group] {
                        let lower = min(smallest[j], distance)
                        distance = max(smallest[j], distance)
                        smallest[j] = lower
                    }
                }
                for k in 0..<count { entries[k].distance = .infinity }
                for group in 0..<groups {
                    let taken = min(wanted[group], members[group])
                    let smallest = floats.baseAddress! + group * limit
                    var sum: Float = 0
                    for j in 0..<taken { sum += smallest[j] }
                    entries[nearest[group]].distance = sum / Float(taken)
                }
            }
        }
    }

    /// Whether the template of entry `k`'s path has another path among the `count` entries that is nearer, or as
    /// near and earlier.
    private static func hasNearerPath(
        _ k: Int, _ entries: UnsafeMutablePointer<Scored>, _ count: Int, _ sources: [Int32],
        _ shortlist: UnsafeBufferPointer<Shortlisted>
    ) -> Bool {
        let source = sources[shortlist[k].index]
        let distance = entries[k].distance
        for j in 0..<count where j != k && sources[shortlist[j].index] == source {
            if entries[j].distance < distance || (entries[j].distance == distance && j < k) { return true }
        }
        return false
    }
}
