import StrokeProtocol
import StrokeRecognition

/// A finished stroke to recognize, and the `match` or `nomatch` event that answers it.
///
/// The session processor hands one to its sink when a stroke ends; the sink recognizes it at once (the default)
/// or later on another thread, in order with the other events. `context.session` and `points` are valid only
/// during the call that receives the request.
public struct RecognitionRequest {
    /// The event's session, numbering and stroke.
    public var context: EventEncoder.Context
    /// The session's recognizer (its library and orientation).
    public var recognizer: Recognizer
    /// The library's name, reported in the event.
    public var library: String
    /// Where `recognizer` and `library` are in the registry: all that a request handed to another thread keeps of
    /// them (that thread looks them up in its own copy, `LibraryRegistry.independentCopy()`).
    public var slot: LibraryRegistry.Slot
    /// The stroke's points.
    public var points: UnsafeBufferPointer<SIMD2<Double>>
    /// The templates the session learned, matched with the library's.
    var learned: LearnedTemplates? = nil
    /// The only gestures the session may be answered with, when it chose some (`options` with `gestures`).
    var choice: GestureChoice? = nil
    /// For a gesture of several strokes: where they start in `points`, and their ids.
    var gesture: GestureStrokes? = nil
    /// Whether the checkmark detector fired on the stroke, where it ran on all of it; the match then follows its
    /// verdict between close candidates (`RecognizerConfiguration.checkmarkChoice`). Nil for the gestures of
    /// several strokes of a session that groups strokes, and where the detector did not run.
    var checkmarkFired: Bool? = nil
    /// Where the rotation of a match that tells the session's tilt goes back to its lane
    /// (`RecognitionResult.Candidate.showsTilt`, not a learned template's); nil where the session's tilt is not
    /// followed, or neither its detector nor its matches use it (`SessionProcessor.Core.followsTilt`).
    /// Unretained, as `points` is unowned: whoever makes a request holds the feedback for as long as the request
    /// lives (the lane's processor, or the batch that carries it to another thread), and a retain and a release
    /// per stroke were 51 instructions a batched message (`make profile`).
    var tiltFeedback: Unmanaged<TiltFeedback>? = nil
    /// The score the session's strokes must reach beside their gesture's threshold in the library
    /// (`Recognizer.threshold(for:)`; the higher applies), where the session set one (`options` with
    /// `minimumScore`).
    var minimumScore: Double? = nil
    /// The scores the session's strokes must reach to match the gestures of these names, beside their thresholds in
    /// the library and `minimumScore` (the highest applies), where the session set some (`options` with
    /// `gestureScores`).
    var gestureScores: [String: Double]? = nil
    /// The whole degrees the library's templates see the stroke turned by: the correction of the session's tilt
    /// estimate (`TiltEstimate.correction`) where its matches follow its tilt (`WorkerConfiguration.matchFollowsTilt`),
    /// else 0. The learned templates see the stroke as drawn: the player drew them with the same hand. The match's
    /// `rotation` is still the stroke's turn from the template it matched.
    var turn: Int8 = 0

    /// How a finished stroke was answered, for the worker's counters.
    public enum Outcome: Sendable {
        /// A `match`.
        case match
        /// A `nomatch` below the threshold, or of a degenerate stroke.
        case noMatch
        /// A `nomatch` because a gesture outside the session's choice matched (`not_chosen`).
        case notChosen
    }

    /// Recognizes the stroke and writes the event into `writer`; how it was answered. A match that tells the
    /// session's tilt is posted to `tiltFeedback` at once.
    @discardableResult
    public func encode(into writer: inout JSONWriter) -> Outcome {
        let (outcome, tilt) = encodeEvent(into: &writer)
        if let tilt, let tiltFeedback { tiltFeedback._withUnsafeGuaranteedRef { $0.post(tilt) } }
        return outcome
    }

    /// Recognizes the stroke and writes the event into `writer`, as `encode(into:)` does, but appends the tilt
    /// sample of a match that tells the session's tilt to `tiltSamples`, for the caller to post with others
    /// (`TiltFeedback.post(contentsOf:)`): a thread that recognizes batches of strokes for a lane takes the
    /// feedback's lock once a batch, not once a match.
    func encode(into writer: inout JSONWriter, tiltSamples: inout [TiltFeedback.Sample]) -> Outcome {
        let (outcome, tilt) = encodeEvent(into: &writer)
        if let tilt { tiltSamples.append(tilt) }
        return outcome
    }

    /// Recognizes the stroke and writes the event into `writer`; how it was answered, and the sample for
    /// `tiltFeedback` when the match tells the session's tilt.
    private func encodeEvent(into writer: inout JSONWriter) -> (Outcome, TiltFeedback.Sample?) {
        do {
            let (candidates, match, unchosen, showsTilt, isLine):
                ([EventEncoder.Candidate], EventEncoder.Candidate?, EventEncoder.Candidate?, Bool, Bool)
            if let gesture {
                (candidates, match, unchosen, showsTilt, isLine) = try gesture.starts.withUnsafeBufferPointer {
                    starts throws(RecognitionError) in try result(strokeStarts: starts)
                }
            } else {
                (candidates, match, unchosen, showsTilt, isLine) = try result(strokeStarts: .init(start: nil, count: 0))
            }
            let tilt =
                showsTilt ? match.map { TiltFeedback.Sample(session: context.session, degrees: $0.rotation) } : nil
            // Where nothing answers: a straight line that no template could answer (none it may be answered with is
            // one) is told apart from a stroke that scored too low (Protocol/README.md §6).
            let reason =
                match != nil
                ? nil
                : unchosen != nil ? "not_chosen" : isLine && candidates.isEmpty ? "straight_stroke" : "below_threshold"
            EventEncoder.result(
                context, name: match?.name, score: match?.score, candidates: candidates, points: points.count,
                library: library, reason: reason, unchosen: unchosen, strokes: gesture?.ids,
                bounds: StrokeBounds(of: points), into: &writer)
            return (match != nil ? .match : unchosen != nil ? .notChosen : .noMatch, tilt)
        } catch {
            EventEncoder.result(
                context, name: nil, score: nil, candidates: [], points: points.count, library: library,
                reason: error.code.rawValue, strokes: gesture?.ids, bounds: StrokeBounds(of: points),
                into: &writer)
            return (.noMatch, nil)
        }
    }

    /// The candidates and the match among the session's chosen gestures (all, if it chose none), and the gesture
    /// outside its choice that answers instead (`RecognizerConfiguration.choiceAnswer`): a second recognition of
    /// the same prepared stroke, among all gestures, tells a gesture the game does not allow now from one it allows
    /// or none; whether the match tells the session's tilt, and whether the stroke is a straight line. (A tuple: a
    /// struct of the same went through value witnesses in `withPreparedStrokes`, 15 instructions a batched message.)
    private func result(strokeStarts: UnsafeBufferPointer<Int>) throws(RecognitionError)
        -> (
            candidates: [EventEncoder.Candidate], match: EventEncoder.Candidate?, unchosen: EventEncoder.Candidate?,
            showsTilt: Bool, isLine: Bool
        )
    {
        try withPreparedStrokes(strokeStarts: strokeStarts) { stroke, asDrawn in
            guard let choice else {
                let (candidates, match, showsTilt) = recognize(stroke, asDrawn: asDrawn, among: nil)
                return (candidates, match, nil, showsTilt, stroke.isLine)
            }
            let (chosen, answer, unchosen) = recognizer.configuration.answer(
                among: choice.names, recognize: { recognize(stroke, asDrawn: asDrawn, among: $0) },
                match: { $0.match.map { ($0.name, $0.score) } })
            let matched = answer == .chosen
            return (
                chosen.candidates, matched ? chosen.match : nil, unchosen?.match, matched && chosen.showsTilt,
                stroke.isLine
            )
        }
    }

    /// Calls `body` with the stroke prepared for the library, turned by `turn`, and as drawn for the learned
    /// templates: the same prepared stroke where it is not turned (most strokes) or the session learned none.
    @inline(__always)  // not inlined, its generic result went through value witnesses: 49 instructions a message
    private func withPreparedStrokes<Value>(
        strokeStarts: UnsafeBufferPointer<Int>,
        _ body: (Recognizer.PreparedStroke, Recognizer.PreparedStroke) -> Value
    ) throws(RecognitionError) -> Value {
        let turn = appliedTurn
        guard turn != 0 else {
            return try recognizer.withPreparedStroke(points: points, strokeStarts: strokeStarts) { body($0, $0) }
        }
        return try Self.withTurned(points, by: turn) { turned throws(RecognitionError) in
            let outcome = try recognizer.withPreparedStroke(points: turned, strokeStarts: strokeStarts) {
                stroke -> Result<Value, RecognitionError> in
                guard let learned else { return .success(body(stroke, stroke)) }
                do throws(RecognitionError) {
                    return .success(
                        try learned.recognizer.withPreparedStroke(points: points, strokeStarts: strokeStarts) {
                            body(stroke, $0)
                        })
                } catch {
                    return .failure(error)
                }
            }
            return try outcome.get()
        }
    }

    /// `turn`, where the recognizer minds a stroke's rotation.
    private var appliedTurn: Int8 { Self.turn(turn, for: recognizer) }

    /// `turn` where `recognizer` minds a stroke's rotation, else 0: one that matches any rotation gains nothing
    /// from it. The one place that decides it, for the lane, a request and a learned gesture's `nearest`.
    static func turn(_ turn: Int8, for recognizer: Recognizer) -> Int8 {
        recognizer.isOrientationInvariant ? 0 : turn
    }

    /// Calls `body` with `points` turned by `degrees` about the origin, in memory of their own (once per stroke
    /// of a tilted session: the points of one message are not turned).
    static func withTurned<Value>(
        _ points: UnsafeBufferPointer<SIMD2<Double>>, by degrees: Int8,
        _ body: (UnsafeBufferPointer<SIMD2<Double>>) throws(RecognitionError) -> Value
    ) throws(RecognitionError) -> Value {
        let cosineSine = CheckmarkDetector.turn(wholeDegrees: degrees)
        let turned = UnsafeMutableBufferPointer<SIMD2<Double>>.allocate(capacity: points.count)
        defer { turned.deallocate() }
        for (index, point) in points.enumerated() {
            turned[index] = SIMD2(
                cosineSine.x * point.x - cosineSine.y * point.y, cosineSine.y * point.x + cosineSine.x * point.y)
        }
        return try body(UnsafeBufferPointer(turned))
    }

    /// The candidates and the match, from the library and the session's learned templates together, among the
    /// gestures `names` (nil: all), and whether the match's rotation tells the session's tilt (asked only where it
    /// is followed).
    private func recognize(
        _ stroke: Recognizer.PreparedStroke, asDrawn: Recognizer.PreparedStroke, among names: [String]?
    ) -> (candidates: [EventEncoder.Candidate], match: EventEncoder.Candidate?, showsTilt: Bool) {
        var candidates: [EventEncoder.Candidate]
        var fromLibrary = recognizer.recognize(stroke, among: names)
        fromLibrary.turnRotations(by: -Double(appliedTurn))
        if let learned {
            let fromLearned = learned.recognizer.recognize(asDrawn, among: names)
            candidates = LearnedTemplates.merged(
                library: fromLibrary.candidates, learned: fromLearned.candidates, limit: recognizer.configuration.topK)
        } else {
            candidates = fromLibrary.candidates.map {
                .init(name: $0.name, score: $0.score, backward: $0.drawnBackward, rotation: $0.rotation)
            }
        }
        // A gesture's threshold: its own or its library's (`Recognizer.threshold(for:)` looks a name up only in a
        // library where some gesture has its own), and the session's where that is higher.
        let floor = self.minimumScore ?? 0
        let gestureScores = self.gestureScores
        func threshold(_ candidate: EventEncoder.Candidate) -> Double {
            let shared = max(recognizer.threshold(for: candidate.name), floor)
            guard let gestureScores, let own = gestureScores[candidate.name] else { return shared }
            return max(shared, own)
        }
        guard let best = candidates.first, best.score >= threshold(best) else { return (candidates, nil, false) }
        if let fired = checkmarkFired {
            recognizer.configuration.moveCheckmarkChoiceFirst(
                in: &candidates, fired: fired, threshold: threshold, bestDrawnBackward: best.backward,
                name: { $0.name }, score: { $0.score })
        }
        let match = candidates[0]
        let showsTilt =
            tiltFeedback != nil && !match.learned
            && fromLibrary.candidates.contains { $0.name == match.name && $0.showsTilt }
        return (candidates, match, showsTilt)
    }
}
