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
        /// How far the stroke is turned from that template, in degrees (`"rotation"` on the wire, written for the
        /// match only).
        public var rotation: Double
        /// Whether the score is that of a template the session learned (`"learned": true` on the wire).
        public var learned: Bool
        /// Whether that template matched drawn the other way round, in a library whose strokes go either way
        /// (`"backward": true` on the wire).
        public var backward: Bool

        /// Creates a candidate.
        public init(
            name: String, score: Double, learned: Bool = false, backward: Bool = false, rotation: Double = 0
        ) {
            self.name = name
            self.score = score
            self.learned = learned
            self.backward = backward
            self.rotation = rotation
        }
    }

    // MARK: - Events

    /// `checkmark`: the detector fired mid-stroke at the stroke's point `pointIndex`, sampled at time `t`.
    public static func checkmark(_ context: Context, pointIndex: Int, time: Double, into writer: inout JSONWriter) {
        event("checkmark", context, bound: 128, into: &writer) { out in
            out.key("pointIndex")
            out.integer(pointIndex)
            out.key("t")
            out.number(time, decimals: 3)
        }
    }

    /// `match` (a gesture was recognized) or `nomatch` (none scored above the library's threshold, or the
    /// stroke was degenerate: `reason`; `unchosen`: the gesture outside the session's choice that it matched).
    public static func result(
        _ context: Context, name: String?, score: Double?, candidates: [Candidate], points: Int, library: String,
        reason: String? = nil, unchosen: Candidate? = nil, strokes: [UInt32]? = nil, bounds: StrokeBounds? = nil,
        into writer: inout JSONWriter
    ) {
        // The candidates are read in place, through their buffer (a copy of one retained and released its name),
        // and `event` is inlined with its closure (which retained what it captured): 30 fewer reference-count
        // operations an event, 111 → 81 a recognized stroke in all (callgrind, `make profile`'s run).
        candidates.withUnsafeBufferPointer { candidates in
            var bound = 256 + string(name) + string(reason) + string(library) + strokesBound(strokes)
            if bounds != nil { bound += 12 + 4 * JSONCursor.numberBound }
            for index in candidates.indices { bound += 96 + JSONCursor.stringBound(candidates[index].name.utf8.count) }
            if !candidates.isEmpty { bound += 12 + JSONCursor.numberBound }  // the match's "rotation"
            if let unchosen { bound += 112 + string(unchosen.name) }
            event(name == nil ? "nomatch" : "match", context, bound: bound, into: &writer) { out in
                if let name, let score {
                    out.key("name")
                    out.string(name)
                    out.key("score")
                    out.number(score, decimals: 4)
                    if !candidates.isEmpty && candidates[0].name == name {
                        if candidates[0].learned {
                            out.key("learned")
                            out.bool(true)
                        }
                        if candidates[0].backward {
                            out.key("backward")
                            out.bool(true)
                        }
                        out.key("rotation")
                        out.number(candidates[0].rotation, decimals: 1)
                    }
                }
                if let reason {
                    out.key("reason")
                    out.string(reason)
                }
                if let unchosen {
                    out.key("unchosen")
                    write(unchosen, into: &out)
                }
                out.key("candidates")
                out.beginArray()
                for index in candidates.indices { write(candidates[index], into: &out) }
                out.endArray()
                out.key("points")
                out.integer(points)
                out.key("library")
                out.string(library)
                if let strokes { write(strokes: strokes, into: &out) }
                if let bounds {
                    out.key("bounds")
                    out.beginArray()
                    out.number(bounds.minX, decimals: 4)
                    out.number(bounds.minY, decimals: 4)
                    out.number(bounds.maxX, decimals: 4)
                    out.number(bounds.maxY, decimals: 4)
                    out.endArray()
                }
            }
        }
    }

    /// `error`: bad input, a sequence gap, a limit; `code` is machine-readable, `message` is for people.
    /// `restored` (written only when true): on `session_reset`, the session's options and learned gestures were
    /// restored from the worker's checkpoint, and need not be sent again.
    public static func error(
        _ context: Context, code: String, message: String, restored: Bool = false, into writer: inout JSONWriter
    ) {
        event("error", context, bound: 80 + string(code) + string(message), into: &writer) { out in
            out.key("code")
            out.string(code)
            out.key("message")
            out.string(message)
            if restored {
                out.key("restored")
                out.bool(true)
            }
        }
    }

    /// `learned`: the session learned the ended stroke as a template of the gesture `name`; it now holds
    /// `templates` learned templates in all. `nearest` is the other gesture the stroke comes nearest to, among the
    /// session's library and the gestures it learned before.
    public static func learned(
        _ context: Context, name: String, templates: Int, points: Int, strokes: [UInt32]? = nil,
        nearest: Candidate? = nil, into writer: inout JSONWriter
    ) {
        // The key and a candidate (96 bytes and its name's).
        let nearestBound = nearest.map { 12 + 96 + string($0.name) } ?? 0
        event("learned", context, bound: 96 + string(name) + strokesBound(strokes) + nearestBound, into: &writer) {
            out in
            out.key("name")
            out.string(name)
            out.key("templates")
            out.integer(templates)
            out.key("points")
            out.integer(points)
            if let strokes { write(strokes: strokes, into: &out) }
            if let nearest {
                out.key("nearest")
                write(nearest, into: &out)
            }
        }
    }

    /// `closed`: the session's state was dropped (`reason`: `closed` by the producer, or `idle`), with the tilt of
    /// the player's hand in whole degrees where the session had estimated one (`tilt`), for a game to give back to
    /// the player's next session (`SessionOptions.tilt`).
    public static func closed(_ context: Context, reason: String, tilt: Int? = nil, into writer: inout JSONWriter) {
        event("closed", context, bound: 48 + string(reason), into: &writer) { out in
            out.key("reason")
            out.string(reason)
            if let tilt {
                out.key("tilt")
                out.integer(tilt)
            }
        }
    }

    /// `pong`: the answer to a `ping`, from the worker of shard `shard` (`"index/count"`); `known` tells whether that
    /// worker holds state for the session. Numbered 0, outside the session's count, as the ping is outside its
    /// numbering.
    public static func pong(_ context: Context, shard: String, known: Bool, into writer: inout JSONWriter) {
        event("pong", context, bound: 48 + string(shard), into: &writer) { out in
            out.key("shard")
            out.string(shard)
            out.key("known")
            out.bool(known)
        }
    }

    // MARK: - Writing

    /// `{"name": …, "score": …}` of a candidate, with `learned` and `backward` where they are true (at most 96 bytes
    /// and its name's).
    @inline(__always)
    private static func write(_ candidate: Candidate, into out: inout JSONCursor) {
        out.beginObject()
        out.key("name")
        out.string(candidate.name)
        out.key("score")
        out.number(candidate.score, decimals: 4)
        if candidate.learned {
            out.key("learned")
            out.bool(true)
        }
        if candidate.backward {
            out.key("backward")
            out.bool(true)
        }
        out.endObject()
    }

    /// `"strokes": [id, …]`, a gesture's stroke ids (Protocol/README.md §4.2).
    private static func write(strokes: [UInt32], into out: inout JSONCursor) {
        out.key("strokes")
        out.beginArray()
        for stroke in strokes { out.integer(stroke) }
        out.endArray()
    }

    /// The most bytes `write(strokes:into:)` takes: a key, and up to 10 digits and a comma per id.
    private static func strokesBound(_ strokes: [UInt32]?) -> Int {
        strokes.map { 16 + 11 * $0.count } ?? 0
    }

    /// Replaces the writer's contents with one event, written in one piece: the header, what `body` writes
    /// (at most `bound` bytes) and the closing brace. Inlined: called, it took its closure's captures with a
    /// retain each.
    @inline(__always)
    private static func event(
        _ event: StaticString, _ context: Context, bound: Int, into writer: inout JSONWriter,
        _ body: (inout JSONCursor) -> Void
    ) {
        writer.reset()
        // The header's keys, punctuation and five integers take at most 238 bytes, its strings the rest.
        let headerBound = 256 + JSONCursor.stringBound(context.session.count)
        writer.write(bound: headerBound + bound + JSONCursor.punctuationBound) { out in
            out.beginObject()
            out.key("v")
            out.integer(1)
            out.key("event")
            out.plainString(event)
            out.key("session")
            if context.session.isEmpty { out.null() } else { out.string(context.session) }
            out.key("eventSeq")
            out.integer(context.eventSequence)
            out.key("seq")
            if let sequence = context.sequence { out.integer(sequence) } else { out.null() }
            if let stroke = context.stroke {
                out.key("stroke")
                out.integer(stroke)
                out.key("pointer")
                out.integer(context.pointer)
            }
            body(&out)
            out.endObject()
        }
    }

    /// The most bytes a string value takes.
    private static func string(_ value: String?) -> Int { value.map { JSONCursor.stringBound($0.utf8.count) } ?? 0 }
}
