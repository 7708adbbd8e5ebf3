extension RecognizerConfiguration {
    // MARK: - The checkmark detector's verdict

    /// The candidate that the checkmark detector's verdict on a stroke makes its match instead of the best one, if
    /// any (`checkmarkGesture`, `checkmarkMargin`). `candidates` are best first, one per gesture, and the first is
    /// the match (it reached `minimumScore`); the one chosen must reach `minimumScore` too. `fired` is whether the
    /// detector fired on the stroke; call this only where it ran on the whole stroke. `bestDrawnBackward`: the best
    /// candidate matched a template drawn the other way round (a library whose strokes go either way), of which the
    /// detector, which knows a check one way round only, says nothing. Inlinable, so that a caller
    /// gets it specialized: unspecialized, its collection's conformances were looked up at run time, about 1,300
    /// instructions per stroke in the worker (`make profile`).
    @inlinable
    public func checkmarkChoice<C: Collection>(
        among candidates: C, fired: Bool, minimumScore: Double, bestDrawnBackward: Bool = false,
        name: (C.Element) -> String, score: (C.Element) -> Double
    ) -> C.Index? {
        checkmarkChoice(
            among: candidates, fired: fired, threshold: { _ in minimumScore }, bestDrawnBackward: bestDrawnBackward,
            name: name, score: score)
    }

    /// The candidate that the checkmark detector's verdict makes the match, as `checkmarkChoice(among:fired:
    /// minimumScore:…)`, where each candidate must reach a threshold of its own (`threshold`: a library whose
    /// gestures have their own, `TemplateLibrary.gestureMinimumScores`).
    @inlinable
    public func checkmarkChoice<C: Collection>(
        among candidates: C, fired: Bool, threshold: (C.Element) -> Double, bestDrawnBackward: Bool = false,
        name: (C.Element) -> String, score: (C.Element) -> Double
    ) -> C.Index? {
        guard checkmarkMargin > 0, !checkmarkGesture.isEmpty, let best = candidates.first else { return nil }
        let bestIsCheckmark = name(best) == checkmarkGesture
        // Fired: the checkmark gesture, if it is close behind. Not fired: whatever is close behind a best
        // checkmark gesture, unless that was drawn backward.
        guard fired != bestIsCheckmark, fired || !bestDrawnBackward,
            let index = candidates.indices.dropFirst().first(where: {
                (name(candidates[$0]) == checkmarkGesture) == fired
            })
        else { return nil }
        let chosen = score(candidates[index])
        return score(best) - chosen <= checkmarkMargin && chosen >= threshold(candidates[index]) ? index : nil
    }

    /// Moves the candidate `checkmarkChoice` chooses, if any, to the front of `candidates`, the others keeping
    /// their order; whether it moved one. The same preconditions as `checkmarkChoice`.
    @inlinable
    @discardableResult
    public func moveCheckmarkChoiceFirst<Element>(
        in candidates: inout [Element], fired: Bool, minimumScore: Double, bestDrawnBackward: Bool = false,
        name: (Element) -> String, score: (Element) -> Double
    ) -> Bool {
        moveCheckmarkChoiceFirst(
            in: &candidates, fired: fired, threshold: { _ in minimumScore }, bestDrawnBackward: bestDrawnBackward,
            name: name, score: score)
    }

    /// Moves the candidate `checkmarkChoice(among:fired:threshold:…)` chooses, if any, to the front of
    /// `candidates`, as `moveCheckmarkChoiceFirst(in:fired:minimumScore:…)` does.
    @inlinable
    @discardableResult
    public func moveCheckmarkChoiceFirst<Element>(
        in candidates: inout [Element], fired: Bool, threshold: (Element) -> Double, bestDrawnBackward: Bool = false,
        name: (Element) -> String, score: (Element) -> Double
    ) -> Bool {
        guard
            let index = checkmarkChoice(
                among: candidates, fired: fired, threshold: threshold, bestDrawnBackward: bestDrawnBackward,
                name: name, score: score)
        else { return false }
        let chosen = candidates[index]
        for k in stride(from: index, to: 0, by: -1) { candidates[k] = candidates[k - 1] }
        candidates[0] = chosen
        return true
    }
}

extension RecognitionResult {
    /// This result with the checkmark detector's verdict on the stroke applied
    /// (`RecognizerConfiguration.checkmarkChoice`): the candidate it chooses is the match and comes first. A
    /// result without a match is left as it is.
    public func applyingCheckmark(fired: Bool, configuration: RecognizerConfiguration, minimumScore: Double)
        -> RecognitionResult
    {
        applyingCheckmark(fired: fired, configuration: configuration, threshold: { _ in minimumScore })
    }

    /// This result with the checkmark detector's verdict applied, as `applyingCheckmark(fired:configuration:
    /// minimumScore:)`, where each gesture must reach a threshold of its own (`threshold(name)`, such as
    /// `Recognizer.threshold(for:)`).
    public func applyingCheckmark(
        fired: Bool, configuration: RecognizerConfiguration, threshold: (String) -> Double
    ) -> RecognitionResult {
        var reordered = candidates
        guard match != nil,
            configuration.moveCheckmarkChoiceFirst(
                in: &reordered, fired: fired, threshold: { threshold($0.name) },
                bestDrawnBackward: reordered.first?.drawnBackward ?? false, name: \.name, score: \.score)
        else { return self }
        return RecognitionResult(match: reordered[0], candidates: reordered)
    }
}
