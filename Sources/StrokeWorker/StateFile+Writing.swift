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
            writer.numbers(gestureScores)
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
            writer.number(minimumScore)
        }
        if let minimumSize = session.minimumSize {
            writer.key("minimumSize")
            writer.number(minimumSize)
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
        let directory = open((path as NSString).deletingLastPathComponent.nilIfEmpty ?? ".", O_RDONLY | O_CLOEXEC)
        if directory >= 0 {
            _ = fsync(directory)
            close(directory)
        }
    }
}

extension StateFile {
    /// `savedAt` as written: ISO 8601 in UTC, to the millisecond.
    static func timestamp(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }

    /// `savedAt` as read: RFC 3339 (`2026-12-04T15:00:00.123Z`), with or without fractions of a second (as workers
    /// before session 38 wrote it), in UTC or with an offset; nil for anything else.
    ///
    /// Read here rather than by `ISO8601DateFormatter`: ICU's parser under it, given a fraction of a hundred digits
    /// (a damaged or forged file), stopped the process with an arithmetic fault (found by `make fuzz-coverage`'s
    /// state target), and a worker reads other workers' files at its start (`--adopt-state`).
    static func date(fromTimestamp text: String) -> Date? {
        let bytes = Array(text.utf8)
        var index = 0
        /// The next `count` digits as a number, or nil.
        func digits(_ count: Int) -> Int? {
            guard index + count <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[index..<index + count] {
                guard byte >= 0x30 && byte <= 0x39 else { return nil }
                value = value * 10 + Int(byte - 0x30)
            }
            index += count
            return value
        }
        /// Whether the next byte is one of `expected` (consumed if so).
        func take(_ expected: String) -> Bool {
            guard index < bytes.count, expected.utf8.contains(bytes[index]) else { return false }
            index += 1
            return true
        }
        guard let year = digits(4), take("-"), let month = digits(2), take("-"), let day = digits(2), take("Tt"),
            let hour = digits(2), take(":"), let minute = digits(2), take(":"), let second = digits(2),
            (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year), hour < 24, minute < 60,
            second <= 60
        else { return nil }
        var fraction = 0.0
        if take(".") {
            let start = index
            var scale = 0.1
            while index < bytes.count, bytes[index] >= 0x30 && bytes[index] <= 0x39 {
                if index - start < 9 {
                    fraction += Double(bytes[index] - 0x30) * scale
                    scale /= 10
                }
                index += 1
            }
            guard index > start else { return nil }
        }
        var offset = 0
        if !take("Zz") {
            guard index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") else {
                return nil
            }
            let sign = bytes[index] == UInt8(ascii: "-") ? -1 : 1
            index += 1
            guard let hours = digits(2), take(":"), let minutes = digits(2), hours < 24, minutes < 60 else {
                return nil
            }
            offset = sign * (hours * 3600 + minutes * 60)
        }
        guard index == bytes.count else { return nil }
        let seconds = daysSince1970(year: year, month: month, day: day) * 86_400 + hour * 3600 + minute * 60 + second
        return Date(timeIntervalSince1970: Double(seconds - offset) + fraction)
    }

    /// Days in `month` (1–12) of `year`, in the Gregorian calendar.
    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days from 1970-01-01 to the date (proleptic Gregorian, years 0–9999): whole 400-year cycles of 146,097
    /// days, counted from a year that starts in March, so that a leap day ends it.
    private static func daysSince1970(year: Int, month: Int, day: Int) -> Int {
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * ((month + 9) % 12) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}

extension String {
    /// nil when empty.
    fileprivate var nilIfEmpty: String? { isEmpty ? nil : self }
}
