// MARK: - A gesture's nearest templates

extension Recognizer {
    /// Gives each gesture's nearest entry in `scored` the mean distance of the gesture's nearest templates there
    /// (`gestureNeighbors`, by gesture id, of them; fewer where fewer are), and every other entry infinity, so that
    /// the scan for candidates that follows ranks gestures by it (`TemplateLibrary.neighbors`).
    ///
    /// Entries are taken in order of distance, ties by position (the order the scan breaks ties in), so that a
    /// gesture's nearest entry stands for it and gives the match its rotation and direction. A library template
    /// compiled into several paths (`sources`: the template of each path, empty when every template is one) counts
    /// once, by its nearest path. The shortlist is small (8 to 256 entries): the ordering is an insertion sort and
    /// the gestures are found by a scan of those seen, in temporary memory.
    static func averageNearest(
        _ scored: UnsafeMutableBufferPointer<Scored>, sources: [Int32],
        shortlist: UnsafeBufferPointer<Shortlisted>, gestureNeighbors: [Int32]
    ) {
        let count = scored.count
        guard count > 1 else { return }
        withUnsafeTemporaryAllocation(of: Int.self, capacity: count) { order in
            // The entries by distance, ties by position.
            for k in 0..<count {
                var position = k
                while position > 0 && scored[order[position - 1]].distance > scored[k].distance {
                    order[position] = order[position - 1]
                    position -= 1
                }
                order[position] = k
            }
            withUnsafeTemporaryAllocation(of: Group.self, capacity: count) { groups in
                var groupCount = 0
                for (position, k) in order.enumerated() {
                    let distance = scored[k].distance
                    guard distance.isFinite else { break }
                    let gesture = scored[k].gesture
                    if !sources.isEmpty {
                        // A path of a template already counted, by a nearer one, is passed over.
                        let source = sources[shortlist[k].index]
                        if order[0..<position].contains(where: { sources[shortlist[$0].index] == source }) { continue }
                    }
                    if let g = (0..<groupCount).first(where: { scored[groups[$0].nearest].gesture == gesture }) {
                        if groups[g].templates < Int(gestureNeighbors[Int(gesture)]) {
                            groups[g].templates += 1
                            groups[g].sum += distance
                        }
                    } else {
                        groups[groupCount] = Group(nearest: k, templates: 1, sum: distance)
                        groupCount += 1
                    }
                }
                for k in 0..<count { scored[k].distance = .infinity }
                for group in groups[0..<groupCount] {
                    scored[group.nearest].distance = group.sum / Float(group.templates)
                }
            }
        }
    }

    /// A gesture's entries taken so far: its nearest, how many, and the sum of their distances.
    private struct Group {
        var nearest: Int
        var templates: Int
        var sum: Float
    }
}
