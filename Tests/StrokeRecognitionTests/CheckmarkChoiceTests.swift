import Testing

@testable import StrokeRecognition

/// The checkmark detector's verdict between close candidates (`RecognizerConfiguration.checkmarkChoice`).
@Suite("Recognition: the checkmark detector's verdict in the match")
struct CheckmarkChoiceTests {
    typealias Candidate = RecognitionResult.Candidate

    static func result(_ candidates: [(String, Double)], minimumScore: Double = 0, backward: Bool = false)
        -> RecognitionResult
    {
        let list = candidates.enumerated().map {
            Candidate(name: $1.0, score: $1.1, distance: 1 / $1.1 - 1, drawnBackward: backward && $0 == 0)
        }
        return RecognitionResult(match: list.first.flatMap { $0.score >= minimumScore ? $0 : nil }, candidates: list)
    }

    static func decided(
        _ candidates: [(String, Double)], fired: Bool, margin: Double = 0.04, gesture: String = "check",
        minimumScore: Double = 0, backward: Bool = false
    ) -> [String] {
        var configuration = RecognizerConfiguration.default
        configuration.checkmarkMargin = margin
        configuration.checkmarkGesture = gesture
        let decided = result(candidates, minimumScore: minimumScore, backward: backward).applyingCheckmark(
            fired: fired, configuration: configuration, minimumScore: minimumScore)
        #expect(decided.match == nil || decided.match == decided.candidates.first)
        return decided.match == nil ? [] : decided.candidates.map(\.name)
    }

    @Test("fired: the checkmark gesture within the margin of the best becomes the match and comes first")
    func firedPromotes() {
        #expect(Self.decided([("v", 0.83), ("caret", 0.82), ("check", 0.80)], fired: true) == ["check", "v", "caret"])
        #expect(Self.decided([("v", 0.83), ("check", 0.78)], fired: true) == ["v", "check"])
        #expect(Self.decided([("v", 0.83), ("x", 0.82)], fired: true) == ["v", "x"])
        #expect(Self.decided([("check", 0.83), ("v", 0.82)], fired: true) == ["check", "v"])
    }

    @Test("not fired: a best checkmark gesture yields to the runner-up within the margin")
    func notFiredDemotes() {
        #expect(Self.decided([("check", 0.83), ("v", 0.80), ("x", 0.5)], fired: false) == ["v", "check", "x"])
        #expect(Self.decided([("check", 0.83), ("v", 0.78)], fired: false) == ["check", "v"])
        #expect(Self.decided([("v", 0.83), ("check", 0.82)], fired: false) == ["v", "check"])
        #expect(Self.decided([("check", 0.83)], fired: false) == ["check"])
    }

    @Test("drawn backward (a library either way round): the detector's silence does not demote the best check")
    func backward() {
        #expect(Self.decided([("check", 0.83), ("v", 0.80)], fired: false, backward: true) == ["check", "v"])
        #expect(Self.decided([("check", 0.83), ("v", 0.80)], fired: false, backward: false) == ["v", "check"])
        // Where the detector fired the stroke went the check's way: its verdict holds whatever the best matched.
        #expect(Self.decided([("v", 0.83), ("check", 0.82)], fired: true, backward: true) == ["check", "v"])
    }

    @Test("off with a margin of 0 or no gesture; the choice must reach the library's minimum score")
    func limits() {
        #expect(Self.decided([("v", 0.83), ("check", 0.82)], fired: true, margin: 0) == ["v", "check"])
        #expect(Self.decided([("v", 0.83), ("check", 0.82)], fired: true, gesture: "") == ["v", "check"])
        #expect(Self.decided([("v", 0.83), ("tick", 0.82)], fired: true, gesture: "tick") == ["tick", "v"])
        #expect(Self.decided([("v", 0.83), ("check", 0.82)], fired: true, minimumScore: 0.825) == ["v", "check"])
        // No match stays no match.
        #expect(Self.decided([("v", 0.83), ("check", 0.82)], fired: true, minimumScore: 0.9) == [])
        var configuration = RecognizerConfiguration.default
        for bad in [-0.1, 1.5, .nan] {
            configuration.checkmarkMargin = bad
            #expect(throws: RecognitionError.self) { try configuration.validate() }
        }
    }
}
