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

    /// Recognizes the stroke and writes the event into `writer`.
    public func encode(into writer: inout JSONWriter) {
        do {
            let candidates: [EventEncoder.Candidate]
            let match: EventEncoder.Candidate?
            if let learned {
                let (fromLibrary, fromLearned) = try recognizer.recognize(points: points, alongWith: learned.recognizer)
                candidates = LearnedTemplates.merged(
                    library: fromLibrary.candidates, learned: fromLearned.candidates,
                    limit: recognizer.configuration.topK)
                match = candidates.first.flatMap { $0.score >= recognizer.library.minimumScore ? $0 : nil }
            } else {
                let result = try recognizer.recognize(points: points)
                candidates = result.candidates.map { .init(name: $0.name, score: $0.score) }
                match = result.match.map { .init(name: $0.name, score: $0.score) }
            }
            EventEncoder.result(
                context, name: match?.name, score: match?.score, candidates: candidates, points: points.count,
                library: library, reason: match == nil ? "below_threshold" : nil, into: &writer)
        } catch {
            EventEncoder.result(
                context, name: nil, score: nil, candidates: [], points: points.count, library: library,
                reason: error.code.rawValue, into: &writer)
        }
    }
}
