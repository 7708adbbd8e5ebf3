/// Writes the output events of wire protocol v1 (JSON payloads on the PUB socket, topic = session id).
///
/// Every event carries `v`, `event`, `session`, the session's event sequence number `eventSeq` (1, 2, 3, … per
/// session, so consumers see gaps), and which input it answers: `seq`, and `stroke` and `pointer` when a stroke
/// is concerned.
public enum EventEncoder {
    /// The topic of events that cannot be tied to a session (session ids never start with `$`).
    public static let systemTopic = "$system"

    /// What an event answers.
    public struct Context {
        /// The session id's UTF-8 bytes (empty for system events).
        public var session: UnsafeRawBufferPointer
        /// The session's event sequence number.
        public var eventSequence: UInt64
        /// The input sequence number answered, if any.
        public var sequence: UInt32?
        /// The stroke concerned, if any.
        public var stroke: UInt32?
        /// The pointer of that stroke.
        public var pointer: UInt16

        /// Creates a context.
        public init(
            session: UnsafeRawBufferPointer, eventSequence: UInt64, sequence: UInt32?, stroke: UInt32? = nil,
            pointer: UInt16 = 0
        ) {
            self.session = session
            self.eventSequence = eventSequence
            self.sequence = sequence
            self.stroke = stroke
            self.pointer = pointer
        }
    }

    /// A candidate gesture of a match or no-match event.
    public struct Candidate: Sendable {
        /// The gesture's name.
        public var name: String
        /// Its score in `(0, 1]`.
        public var score: Double

        /// Creates a candidate.
        public init(name: String, score: Double) {
            self.name = name
            self.score = score
        }
    }

    private static func header(_ event: StaticString, _ context: Context, into writer: inout JSONWriter) {
        writer.reset()
        writer.beginObject()
        writer.key("v")
        writer.integer(1)
        writer.key("event")
        writer.string(UnsafeRawBufferPointer(start: event.utf8Start, count: event.utf8CodeUnitCount))
        writer.key("session")
        if context.session.isEmpty { writer.null() } else { writer.string(context.session) }
        writer.key("eventSeq")
        writer.integer(context.eventSequence)
        writer.key("seq")
        if let sequence = context.sequence { writer.integer(sequence) } else { writer.null() }
        if let stroke = context.stroke {
            writer.key("stroke")
            writer.integer(stroke)
            writer.key("pointer")
            writer.integer(context.pointer)
        }
    }

    /// `checkmark`: the detector fired mid-stroke at the stroke's point `pointIndex`, sampled at time `t`.
    public static func checkmark(_ context: Context, pointIndex: Int, time: Double, into writer: inout JSONWriter) {
        header("checkmark", context, into: &writer)
        writer.key("pointIndex")
        writer.integer(pointIndex)
        writer.key("t")
        writer.number(time, decimals: 3)
        writer.endObject()
    }

    /// `match` (a gesture was recognized) or `nomatch` (none scored above the library's threshold, or the
    /// stroke was degenerate: `reason`).
    public static func result(
        _ context: Context, name: String?, score: Double?, candidates: [Candidate], points: Int, library: String,
        reason: String? = nil, into writer: inout JSONWriter
    ) {
        header(name == nil ? "nomatch" : "match", context, into: &writer)
        if let name, let score {
            writer.key("name")
            writer.string(name)
            writer.key("score")
            writer.number(score, decimals: 4)
        }
        if let reason {
            writer.key("reason")
            writer.string(reason)
        }
        writer.key("candidates")
        writer.beginArray()
        for candidate in candidates {
            writer.beginObject()
            writer.key("name")
            writer.string(candidate.name)
            writer.key("score")
            writer.number(candidate.score, decimals: 4)
            writer.endObject()
        }
        writer.endArray()
        writer.key("points")
        writer.integer(points)
        writer.key("library")
        writer.string(library)
        writer.endObject()
    }

    /// `error`: bad input, a sequence gap, a limit; `code` is machine-readable, `message` is for people.
    public static func error(_ context: Context, code: String, message: String, into writer: inout JSONWriter) {
        header("error", context, into: &writer)
        writer.key("code")
        writer.string(code)
        writer.key("message")
        writer.string(message)
        writer.endObject()
    }

    /// `closed`: the session's state was dropped (`reason`: `closed` by the producer, or `idle`).
    public static func closed(_ context: Context, reason: String, into writer: inout JSONWriter) {
        header("closed", context, into: &writer)
        writer.key("reason")
        writer.string(reason)
        writer.endObject()
    }
}
