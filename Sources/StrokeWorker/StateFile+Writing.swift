import Foundation
import StrokeProtocol
import StrokeRecognition

// MARK: - Encoding

extension StateFile {
    /// The file's bytes: compact JSON, every number in the fewest digits that read back as exactly the same value
    /// (`read(_:)`; `JSONDecoder` reads it too). The sessions come last, after the format and version, so that
    /// `read(_:)` knows it can read them in the same pass; each session's keys are in alphabetical order.
    ///
    /// Written directly rather than through `JSONEncoder`, which took 176 ms for a checkpoint of 11,000 sessions
    /// and 479 ms for 101,000 at a stop (`stroke-bench --only state-file`), on the checkpointer's thread every
    /// interval in which a setting changed.
    static func encode(_ saved: Saved, savedAt: String) -> [UInt8] {
        var writer = JSONWriter(capacity: 128 + 96 * saved.sessions.count)
        writer.beginObject()
        if saved.isCheckpoint {
            writer.key("checkpoint")
            writer.bool(true)
        }
        writer.key("format")
        writer.string(format)
        if let keptBy = saved.keptBy {
            writer.key("keptBy")
            writer.string(keptBy.description)
        }
        writer.key("savedAt")
        writer.string(savedAt)
        if let shard = saved.shard {
            writer.key("shard")
            writer.string(shard.description)
        }
        writer.key("version")
        writer.integer(version)
        writer.key("sessions")
        writer.beginArray()
        for session in saved.sessions { encode(session, into: &writer) }
        writer.endArray()
        writer.endObject()
        return writer.bytes
    }

    /// The bytes `write(_:to:)` writes: the file as `encode(_:savedAt:)` gives it, saved at `saved.savedAt` (now,
    /// when that is nil).
    public static func encode(_ saved: Saved) -> [UInt8] {
        encode(saved, savedAt: timestamp(saved.savedAt ?? Date()))
    }

    /// One session, its keys as `SessionSnapshot`'s `Codable` conformance names them; nil fields left out. Its
    /// `session` first, the others sorted: a worker that adopts from the file reads the id, and passes over the
    /// rest of a session of a bucket it does not serve (`read(_:buckets:)`).
    private static func encode(_ session: SessionSnapshot, into writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("session")
        writer.string(session.session)
        writer.key("checkmark")
        writer.bool(session.checkmark)
        writer.key("eventSeq")
        writer.integer(session.eventSeq)
        if let followTilt = session.followTilt {
            writer.key("followTilt")
            writer.bool(followTilt)
        }
        if let gestures = session.gestures {
            writer.key("gestures")
            writer.beginArray()
            for gesture in gestures { writer.string(gesture) }
            writer.endArray()
        }
        if let gestureScores = session.gestureScores {
            writer.key("gestureScores")
            writer.beginObject()
            for name in gestureScores.keys.sorted() {
                writer.keyDynamic(name)
                writer.exactNumber(gestureScores[name]!)
            }
            writer.endObject()
        }
        if let learned = session.learned {
            writer.key("learned")
            writer.beginArray()
            for template in learned { encode(template, into: &writer) }
            writer.endArray()
        }
        writer.key("library")
        writer.string(session.library)
        if let minimumScore = session.minimumScore {
            writer.key("minimumScore")
            writer.exactNumber(minimumScore)
        }
        if let minimumSize = session.minimumSize {
            writer.key("minimumSize")
            writer.exactNumber(minimumSize)
        }
        writer.key("multistroke")
        writer.integer(session.multistroke)
        if let orientation = session.orientation {
            writer.key("orientation")
            writer.string(orientation)
        }
        if let seq = session.seq {
            writer.key("seq")
            writer.integer(seq)
        }
        if let tilt = session.tilt {
            writer.key("tilt")
            writer.beginObject()
            writer.key("degrees")
            writer.integer(Int(tilt.degrees))
            writer.key("samples")
            writer.integer(Int(tilt.samples))
            writer.endObject()
        }
        writer.endObject()
    }

    /// A template as `GestureTemplate`'s `Codable` conformance writes it: `points`, or `strokes` for several.
    private static func encode(_ template: GestureTemplate, into writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("name")
        writer.string(template.name)
        if template.strokeStarts.isEmpty {
            writer.key("points")
            encode(template.points[...], into: &writer)
        } else {
            writer.key("strokes")
            writer.beginArray()
            for stroke in template.strokes { encode(stroke, into: &writer) }
            writer.endArray()
        }
        writer.endObject()
    }

    /// `[[x, y], …]`.
    private static func encode(_ points: ArraySlice<SIMD2<Double>>, into writer: inout JSONWriter) {
        writer.beginArray()
        for point in points {
            writer.beginArray()
            writer.exactNumber(point.x)
            writer.exactNumber(point.y)
            writer.endArray()
        }
        writer.endArray()
    }
}

// MARK: - Writing

extension StateFile {
    /// Writes `saved` to `path` whole or not at all, and durably: to a file beside it first, created readable by
    /// its owner only (learned gestures are players' data), flushed to the disk, then renamed over it in one step,
    /// and the rename itself flushed with its directory. A crash of the worker or of its machine leaves either the
    /// old file or the new one.
    ///
    /// - Throws: `RecognitionError` `.io` when it cannot be written.
    public static func write(_ saved: Saved, to path: String) throws(RecognitionError) {
        let bytes = encode(saved)
        let staging = path + ".partial"
        func failure(_ step: String) -> RecognitionError {
            let reason = String(cString: strerror(errno))
            unlink(staging)
            return RecognitionError(.io, "cannot write the state file \(path): \(step): \(reason)")
        }
        // A staging file left by a crash may have other permissions: created afresh, it has 0600.
        unlink(staging)
        let file = open(staging, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard file >= 0 else { throw failure("open \(staging)") }
        var written = 0
        let complete = bytes.withUnsafeBytes { raw in
            while written < raw.count {
                let count = Foundation.write(file, raw.baseAddress! + written, raw.count - written)
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { return false }
                written += count
            }
            return true
        }
        guard complete, fsync(file) == 0 else {
            let error = failure(complete ? "fsync" : "write")
            close(file)
            throw error
        }
        guard close(file) == 0 else { throw failure("close") }
        guard rename(staging, path) == 0 else { throw failure("rename to \(path)") }
        // The rename is durable once the directory is on disk; a directory that cannot be opened or flushed (some
        // file systems refuse) leaves it to the file system's own journal.
        let directory = open(RecognitionError.directory(of: path), O_RDONLY | O_CLOEXEC)
        if directory >= 0 {
            _ = fsync(directory)
            close(directory)
        }
    }
}
