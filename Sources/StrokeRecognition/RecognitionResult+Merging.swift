// MARK: - Merging

extension RecognitionResult {
    /// A candidate of a merged result, and whether it came from the learned templates.
    public typealias MergedCandidate = (candidate: Candidate, learned: Bool)

    /// A library's candidates and those of a few templates of its own (a session's learned gestures) as one: the
    /// best `limit` gestures, one entry each (a name in both keeps its better score), best first, the library's
    /// first on a tie. The match is the first of them when it reaches the library's `minimumScore`.
    ///
    /// The worker answers a session that learned gestures this way, and `Evaluator.learnedGestures` measures it.
    public static func merged(library: [Candidate], learned: [Candidate], limit: Int) -> [MergedCandidate] {
        var all = library.map { MergedCandidate($0, false) }
        for candidate in learned {
            if let index = all.firstIndex(where: { $0.candidate.name == candidate.name }) {
                if candidate.score > all[index].candidate.score { all[index] = (candidate, true) }
            } else {
                all.append((candidate, true))
            }
        }
        // A stable sort: the library's entries come first among equal scores.
        let ordered = all.enumerated().sorted { a, b in
            a.element.candidate.score != b.element.candidate.score
                ? a.element.candidate.score > b.element.candidate.score : a.offset < b.offset
        }
        return ordered.prefix(limit).map(\.element)
    }
}
