/// Tuning of the template matcher. The defaults are the ones measured in `docs/Recognition.md`.
public struct RecognizerConfiguration: Sendable, Hashable {
    /// Points each stroke is resampled to. Default: `32`.
    public var pointCount: Int
    /// Weight of the unit tangent against the position in elastic features. Default: `1.0`.
    public var tangentWeight: Double
    /// Half-width of the Sakoe–Chiba band of the elastic matcher, in points. Default: `4`.
    public var band: Int
    /// How many of the best templates by Protractor similarity are re-ranked by the elastic matcher, at least;
    /// `0` gives plain Protractor. Default: `8`.
    public var shortlist: Int
    /// Large libraries re-rank more: `max(shortlist, min(templates / shortlistDivisor, shortlistLimit))`, rounded
    /// up to a multiple of 8 (the elastic matcher's SIMD lanes).
    /// Measured on the $1 logs: with 9 templates per gesture, a shortlist of 32 over 8 takes user-dependent
    /// accuracy from 99.76% to 99.83%; a library of 1,920 templates from other subjects gains 0.5 points.
    /// Default: `8`.
    public var shortlistDivisor: Int = 8
    /// The most templates ever re-ranked. Default: `256`.
    public var shortlistLimit: Int = 256
    /// How many candidates (distinct gestures) a result lists. Default: `3`.
    public var topK: Int
    /// In gestures of several strokes, the length of the tangent where the path jumps from one stroke's end to
    /// the next one's start, in the air, as a share of `tangentWeight`. At 0 a point in the air differs from one
    /// drawn by the whole tangent weight whatever their directions, and two jumps match whatever theirs: a
    /// two-stroke caret, whose jump closes it, is then no triangle, and a template of several strokes matches
    /// strokes drawn in its order as well as the same shape as one stroke. 1 makes no difference. Measured with
    /// `stroke-tool multistroke` (docs/Recognition.md, "Gestures of several strokes"): 0 against 0.25, 0.5, 1, 2, 3.
    /// Default: `0`.
    public var jumpTangentFactor: Double = 0
    /// The library's gesture that the streaming checkmark detector stands for. Where the detector fired on a
    /// stroke, that gesture is its match if it scored within `checkmarkMargin` of the best; where the detector ran
    /// and did not fire, a best match of that gesture yields to the runner-up within the margin. The detector tells
    /// a check from a v by the legs' lengths, heights and speed, which the matcher's normalized shapes blur. A
    /// library without that gesture is unaffected; `""` turns the rule off. Default: `"check"`.
    public var checkmarkGesture = "check"
    /// How close, in score, the detector's choice must be to the best candidate (`checkmarkGesture`); `0` turns
    /// the rule off. Measured with `stroke-tool eval` (docs/Recognition.md, "The detector's verdict in the match").
    /// Default: `0.04`.
    public var checkmarkMargin = 0.04
    /// In a session that chose the gestures it may match, how far, in score, a gesture outside the choice must
    /// score above the best chosen match to turn the answer into a `nomatch` that names it (`not_chosen`), so that
    /// a gesture the game does not allow now is not taken for an allowed one that looks a little like it.
    /// `.infinity` answers with the best chosen match whenever one reaches the threshold; a finite margin costs a
    /// second recognition, among all gestures, for every stroke of such a session (`.infinity`: only for those that
    /// match nothing chosen). Measured with `stroke-tool eval --among K` and `--among-others K` (docs/Recognition.md,
    /// "Gestures outside a session's choice"): at 0.05, strokes of chosen gestures lose at most 0.09 points of
    /// accuracy against `.infinity`, and 97.9–99.4% of the strokes of gestures left out of a choice of 8 to 2 are
    /// turned away instead of taken for a chosen one (31–78% at `.infinity`). Default: `0.05`.
    public var choiceMargin = 0.05

    /// Creates a configuration.
    public init(pointCount: Int = 32, tangentWeight: Double = 1.0, band: Int = 4, shortlist: Int = 8, topK: Int = 3) {
        self.pointCount = pointCount
        self.tangentWeight = tangentWeight
        self.band = band
        self.shortlist = shortlist
        self.topK = topK
    }

    /// The defaults.
    public static let `default` = RecognizerConfiguration()

    /// The point counts a recognizer resamples to (`pointCount`).
    public static let pointCounts = 4...1024

    /// Checks the documented ranges.
    public func validate() throws(RecognitionError) {
        guard Self.pointCounts.contains(pointCount) else {
            throw RecognitionError(.invalidConfiguration, "pointCount \(pointCount) is outside \(Self.pointCounts)")
        }
        guard tangentWeight.isFinite, tangentWeight >= 0 else {
            throw RecognitionError(.invalidConfiguration, "tangentWeight \(tangentWeight) must be ≥ 0")
        }
        guard band >= 0 else { throw RecognitionError(.invalidConfiguration, "band \(band) must be ≥ 0") }
        guard shortlist >= 0 else {
            throw RecognitionError(.invalidConfiguration, "shortlist \(shortlist) must be ≥ 0")
        }
        guard shortlistDivisor >= 1 else {
            throw RecognitionError(.invalidConfiguration, "shortlistDivisor \(shortlistDivisor) must be ≥ 1")
        }
        guard topK >= 1 else { throw RecognitionError(.invalidConfiguration, "topK \(topK) must be ≥ 1") }
        guard jumpTangentFactor.isFinite, jumpTangentFactor >= 0 else {
            throw RecognitionError(.invalidConfiguration, "jumpTangentFactor \(jumpTangentFactor) must be ≥ 0")
        }
        guard choiceMargin >= 0 else {
            throw RecognitionError(.invalidConfiguration, "choiceMargin \(choiceMargin) must be ≥ 0")
        }
        guard checkmarkMargin.isFinite, (0...1).contains(checkmarkMargin) else {
            throw RecognitionError(.invalidConfiguration, "checkmarkMargin \(checkmarkMargin) is outside 0...1")
        }
    }
}
