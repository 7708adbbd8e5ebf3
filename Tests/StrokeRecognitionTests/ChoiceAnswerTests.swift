import Testing

@testable import StrokeRecognition

@Suite("How a stroke of a session that chose its gestures is answered")
struct ChoiceAnswerTests {
    @Test("a gesture outside the choice answers where nothing chosen matched or it leads by more than the margin")
    func answers() {
        var configuration = RecognizerConfiguration.default
        #expect(configuration.choiceMargin == 0.05)
        #expect(configuration.choiceAnswer(chosen: nil, unchosen: nil) == .none)
        #expect(configuration.choiceAnswer(chosen: 0.7, unchosen: nil) == .chosen)
        #expect(configuration.choiceAnswer(chosen: nil, unchosen: 0.6) == .unchosen)
        #expect(configuration.choiceAnswer(chosen: 0.7, unchosen: 0.74) == .chosen, "within the margin")
        #expect(configuration.choiceAnswer(chosen: 0.7, unchosen: 0.76) == .unchosen)
        #expect(configuration.needsRecognitionAmongAll(chosenMatched: true))

        configuration.choiceMargin = .infinity
        #expect(configuration.choiceAnswer(chosen: 0.5, unchosen: 0.99) == .chosen)
        #expect(configuration.choiceAnswer(chosen: nil, unchosen: 0.99) == .unchosen)
        #expect(!configuration.needsRecognitionAmongAll(chosenMatched: true))
        #expect(configuration.needsRecognitionAmongAll(chosenMatched: false))

        configuration.choiceMargin = 0
        #expect(configuration.choiceAnswer(chosen: 0.7, unchosen: 0.7) == .chosen, "a tie goes to the chosen one")
        #expect(configuration.choiceAnswer(chosen: 0.7, unchosen: 0.7001) == .unchosen)
    }

    @Test("a margin below 0 or not a number is refused")
    func validation() throws {
        var configuration = RecognizerConfiguration.default
        for bad in [-0.01, Double.nan, -Double.infinity] {
            configuration.choiceMargin = bad
            #expect(throws: RecognitionError.self) { try configuration.validate() }
        }
        configuration.choiceMargin = .infinity
        try configuration.validate()
    }
}
