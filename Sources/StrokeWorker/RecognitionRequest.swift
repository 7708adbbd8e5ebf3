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
    /// verdict between close candidates (`RecognizerConfiguration.checkmarkChoice`). Nil for the gestures of a
    /// session that groups strokes and where the detector did not run.
    var checkmarkFired: Bool? = nil

    /// Recognizes the stroke and writes the event into `writer`.
    public func encode(into writer: inout JSONWriter) {
        do {
            let candidates: [EventEncoder.Candidate]
            let match: EventEncoder.Candidate?
            if let gesture {
                (candidates, match) = try gesture.starts.withUnsafeBufferPointer { starts throws(RecognitionError) in
                    try recognize(strokeStarts: starts)
                }
            } else {
                (candidates, match) = try recognize(strokeStarts: .init(start: nil, count: 0))
            }
            EventEncoder.result(
                context, name: match?.name, score: match?.score, candidates: candidates, points: points.count,
                library: library, reason: match == nil ? "below_threshold" : nil, strokes: gesture?.ids,
                into: &writer)
        } catch {
            EventEncoder.result(
                context, name: nil, score: nil, candidates: [], points: points.count, library: library,
                reason: error.code.rawValue, strokes: gesture?.ids, into: &writer)
        }
    }

    /// The candidates and the match, from the library and the session's learned templates together.
    private func recognize(strokeStarts: UnsafeBufferPointer<Int>) throws(RecognitionError)
        -> (candidates: [EventEncoder.Candidate], match: EventEncoder.Candidate?)
    {
        var candidates: [EventEncoder.Candidate]
        if let learned {
            let (fromLibrary, fromLearned) = try recognizer.recognize(
                points: points, strokeStarts: strokeStarts, alongWith: learned.recognizer, among: choice?.names)
            candidates = LearnedTemplates.merged(
                library: fromLibrary.candidates, learned: fromLearned.candidates, limit: recognizer.configuration.topK)
        } else {
            let result = try recognizer.recognize(points: points, strokeStarts: strokeStarts, among: choice?.names)
            candidates = result.candidates.map { .init(name: $0.name, score: $0.score, backward: $0.drawnBackward) }
        }
        let minimumScore = recognizer.minimumScore
        guard let best = candidates.first, best.score >= minimumScore else { return (candidates, nil) }
        if let fired = checkmarkFired {
            recognizer.configuration.moveCheckmarkChoiceFirst(
                in: &candidates, fired: fired, minimumScore: minimumScore, bestDrawnBackward: best.backward,
                name: { $0.name }, score: { $0.score })
        }
        return (candidates, candidates[0])
    }
}
