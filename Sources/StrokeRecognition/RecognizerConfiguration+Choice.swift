extension RecognizerConfiguration {
    // MARK: - Gestures a session chose

    /// How a stroke of a session that chose the gestures it may match is answered.
    public enum ChoiceAnswer: Sendable, Hashable {
        /// With the best of the chosen gestures.
        case chosen
        /// With no match: a gesture outside the choice matched it (reason `not_chosen`).
        case unchosen
        /// With no match: nothing did (reason `below_threshold`).
        case none
    }

    /// Whether a recognition among all gestures is needed besides the one among the chosen ones: always where
    /// `choiceMargin` is finite, otherwise only where none of the chosen ones matched (`chosenMatched` false).
    @inlinable
    public func needsRecognitionAmongAll(chosenMatched: Bool) -> Bool {
        !chosenMatched || choiceMargin.isFinite
    }

    /// The answer to a stroke recognized among a session's chosen gestures, where `chosen` is the score of its
    /// match among them (nil: none reached the threshold) and `unchosen` that of its match among all gestures when
    /// that one is not chosen (nil: no match, or a chosen gesture). A gesture outside the choice wins where nothing
    /// chosen matched, or where it scored more than `choiceMargin` above the chosen match.
    @inlinable
    public func choiceAnswer(chosen: Double?, unchosen: Double?) -> ChoiceAnswer {
        if let unchosen, chosen.map({ unchosen > $0 + choiceMargin }) ?? true { return .unchosen }
        return chosen == nil ? .none : .chosen
    }

    /// Answers a stroke of a session that chose the gestures `chosen` (nil: it chose none): `recognize` recognizes
    /// it among the gestures it is given (nil: all), `match` reads the name and score of a result's match (nil: no
    /// match). Returns the result among the chosen gestures, the answer, and with `.unchosen` the result among all
    /// whose match answers instead. Recognizes among all only where `needsRecognitionAmongAll` says so.
    @inlinable
    public func answer<Result>(
        among chosen: [String]?, recognize: ([String]?) -> Result,
        match: (Result) -> (name: String, score: Double)?
    ) -> (result: Result, answer: ChoiceAnswer, unchosen: Result?) {
        let result = recognize(chosen)
        let best = match(result)
        guard let chosen, needsRecognitionAmongAll(chosenMatched: best != nil) else {
            return (result, best == nil ? .none : .chosen, nil)
        }
        let all = recognize(nil)
        let other = match(all).flatMap { chosen.contains($0.name) ? nil : $0 }
        let answer = choiceAnswer(chosen: best?.score, unchosen: other?.score)
        return (result, answer, answer == .unchosen ? all : nil)
    }
}
