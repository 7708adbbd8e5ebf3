extension RecognizerConfiguration {
    // MARK: - The checkmark detector's verdict

    /// The candidate that the checkmark detector's verdict on a stroke makes its match instead of the best one, if
    /// any (`checkmarkGesture`, `checkmarkMargin`). `candidates` are best first, one per gesture, and the first is
    /// the match (it reached `minimumScore`); the one chosen must reach `minimumScore` too. `fired` is whether the
    /// detector fired on the stroke; call this only where it ran on the whole stroke. Inlinable, so that a caller
    /// gets it specialized: unspecialized, its collection's conformances were looked up at run time, about 1,300
    /// instructions per stroke in the worker (`make profile`).
    @inlinable
    public func checkmarkChoice<C: Collection>(
        among candidates: C, fired: Bool, minimumScore: Double, name: (C.Element) -> String,
        score: (C.Element) -> Double
    ) -> C.Index? {
        guard checkmarkMargin > 0, !checkmarkGesture.isEmpty, let best = candidates.first else { return nil }
        let bestIsCheckmark = name(best) == checkmarkGesture
        // Fired: the checkmark gesture, if it is close behind. Not fired: whatever is close behind a best
        // checkmark gesture.
        guard fired != bestIsCheckmark,
            let index = candidates.indices.dropFirst().first(where: {
                (name(candidates[$0]) == checkmarkGesture) == fired
            })
        else { return nil }
        let chosen = score(candidates[index])
        return score(best) - chosen <= checkmarkMargin && chosen >= minimumScore ? index : nil
    }
}

extension RecognitionResult {
    /// This result with the checkmark detector's verdict on the stroke applied
    /// (`RecognizerConfiguration.checkmarkChoice`): the candidate it chooses is the match and comes first. A
    /// result without a match is left as it is.
    public func applyingCheckmark(fired: Bool, configuration: RecognizerConfiguration, minimumScore: Double)
        -> RecognitionResult
    {
        guard match != nil,
            let index = configuration.checkmarkChoice(
                among: candidates, fired: fired, minimumScore: minimumScore, name: \.name, score: \.score)
        else { return self }
        var reordered = candidates
        let chosen = reordered.remove(at: index)
        reordered.insert(chosen, at: 0)
        return RecognitionResult(match: chosen, candidates: reordered)
    }
}
