import Foundation
import StrokeProtocol
import StrokeRecognition

extension StateFile {
    /// Reads the sessions from `path`; nil when there is no such file. With `buckets`, only the sessions of the
    /// buckets it admits: the others are passed over once their `session` is read (the field workers write first
    /// since session 47), their later fields scanned but neither parsed nor checked (a worker that adopts from other
    /// workers' files keeps a share of them).
    ///
    /// Read directly (`JSONReader`), in 120 ms for the 101,000 sessions of a stop, where `JSONDecoder` took 648 ms
    /// (`stroke-bench --only state-file`) while the worker's lanes waited to start. Keys it does not know are
    /// skipped, as a later version's additions; `null` stands for a field left out.
    ///
    /// - Throws: `RecognitionError` `.io` when the file cannot be read, `.malformedState` when it is not a state
    ///   file (with what was wrong and where), `.unsupportedVersion` when it is one of another version.
    public static func read(_ path: String, buckets: ((Int) -> Bool)? = nil) throws(RecognitionError) -> Saved? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        if let kind = RecognitionError.nonRegularKind(of: path) {
            // A pipe would hold the worker's start until something wrote to it; a device is no state file.
            throw RecognitionError(.io, "cannot read the state file \(path): it is \(kind), not a regular file")
        }
        let data = try RecognitionError.contents(ofFile: path, naming: "the state file \(path)")
        return try read(data, source: path, buckets: buckets)
    }

    /// Reads the sessions from the bytes of a state file, as `read(_:buckets:)` does from a file; `source` names
    /// it in errors (the file's path).
    ///
    /// - Throws: `RecognitionError` `.malformedState` when it is not a state file (with what was wrong and where),
    ///   `.unsupportedVersion` when it is one of another version.
    public static func read(_ data: Data, source: String, buckets: ((Int) -> Bool)? = nil) throws(RecognitionError)
        -> Saved
    {
        let parsed = data.withUnsafeBytes { raw in
            Result { () throws(ProtocolError) in
                try JSONReader.read(raw) { reader throws(ProtocolError) in try readHeader(&reader, buckets: buckets) }
            }
        }
        let header: Header
        do {
            header = try parsed.get()
        } catch {
            throw RecognitionError(.malformedState, "the state file \(source) is not a state file: \(error.message)")
        }
        guard let fileFormat = header.format, let fileVersion = header.version else {
            throw RecognitionError(
                .malformedState, "the state file \(source) is not a state file: it has no \"format\" and \"version\"")
        }
        guard fileFormat == format, fileVersion == version else {
            throw RecognitionError(
                .unsupportedVersion,
                "the state file \(source) is \"\(fileFormat)\" version \(fileVersion); this worker reads \"\(format)\" "
                    + "version \(version)")
        }
        // In one pass where the format and version came first (as this worker writes them); else, now that they
        // are known, a second pass over the sessions alone (a file of another version may keep them in another shape).
        if let sessions = header.sessions { return header.saved(sessions) }
        guard let start = header.sessionsStart else {
            throw RecognitionError(.malformedState, "the state file \(source) is not a state file: it has no sessions")
        }
        let sessions = data.withUnsafeBytes { raw in
            Result { () throws(ProtocolError) in
                try JSONReader.read(raw) { reader throws(ProtocolError) in
                    reader.position = start
                    let sessions = try readSessions(&reader, buckets: buckets)
                    reader.position = raw.count
                    return sessions
                }
            }
        }
        do {
            return header.saved(try sessions.get())
        } catch {
            throw RecognitionError(.malformedState, "the state file \(source) is not a state file: \(error.message)")
        }
    }

    // MARK: - Parts

    /// The top-level fields, and the sessions or where they start.
    private struct Header {
        var format: String?
        var version: Int?
        /// Absent (as in the files of workers before checkpoints) means false.
        var checkpoint = false
        var shard: Shard?
        var keptBy: Shard?
        var savedAt: Date?
        /// The sessions, read at once when the format and version before them were this worker's.
        var sessions: [SessionSnapshot]?
        /// Where the sessions start, when they came before the format and version and were skipped.
        var sessionsStart: Int?

        /// The file's contents, with `sessions`.
        func saved(_ sessions: [SessionSnapshot]) -> Saved {
            Saved(sessions: sessions, isCheckpoint: checkpoint, shard: shard, keptBy: keptBy, savedAt: savedAt)
        }
    }

    private static func readHeader(_ reader: inout JSONReader, buckets: ((Int) -> Bool)?) throws(ProtocolError)
        -> Header
    {
        var header = Header()
        try reader.object { key, reader throws(ProtocolError) in
            switch key {
            case "format": header.format = try reader.string()
            case "version": header.version = try reader.integer()
            case "checkpoint": header.checkpoint = reader.null() ? false : try reader.bool()
            case "savedAt": header.savedAt = reader.null() ? nil : StateFile.date(fromTimestamp: try reader.string())
            case "shard", "keptBy":
                guard !reader.null() else { return }
                let start = reader.position
                guard let shard = Shard(try reader.string()) else {
                    reader.position = start
                    throw reader.error("\"\(key)\" is not a shard (index/count, index below count)")
                }
                if key == "shard" { header.shard = shard } else { header.keptBy = shard }
            case "sessions" where header.format == format && header.version == version:
                header.sessions = try readSessions(&reader, buckets: buckets)
            case "sessions":
                header.sessionsStart = reader.position
                try reader.skipValue()
            default: try reader.skipValue()
            }
        }
        return header
    }

    /// `[session, …]`, those of `buckets` only when given.
    private static func readSessions(_ reader: inout JSONReader, buckets: ((Int) -> Bool)?) throws(ProtocolError)
        -> [SessionSnapshot]
    {
        var sessions = [SessionSnapshot]()
        try reader.array { reader throws(ProtocolError) in
            if let session = try readSession(&reader, buckets: buckets) { sessions.append(session) }
        }
        return sessions
    }

    /// One session, with the fields `SessionSnapshot` requires; nil when its bucket is not among `buckets`.
    private static func readSession(_ reader: inout JSONReader, buckets: ((Int) -> Bool)?) throws(ProtocolError)
        -> SessionSnapshot?
    {
        let start = reader.position
        var id: String?, library: String?, eventSeq: UInt64?, checkmark: Bool?, multistroke: Int?
        var snapshot = SessionSnapshot(session: "", seq: nil, eventSeq: 0, library: "")
        var passedOver = false
        try reader.object { key, reader throws(ProtocolError) in
            guard !passedOver else { return try reader.skipValue() }
            switch key {
            case "session":
                let session = try reader.string()
                if let buckets, !buckets(ShardKey.bucket(of: session)) { passedOver = true }
                id = session
            case "library": library = try reader.string()
            case "eventSeq": eventSeq = try reader.integer()
            case "checkmark": checkmark = try reader.bool()
            case "multistroke": multistroke = try reader.integer()
            case "seq": snapshot.seq = reader.null() ? nil : try reader.integer()
            case "orientation": snapshot.orientation = reader.null() ? nil : try reader.string()
            case "minimumSize": snapshot.minimumSize = reader.null() ? nil : try reader.double()
            case "minimumScore": snapshot.minimumScore = reader.null() ? nil : try reader.double()
            case "followTilt": snapshot.followTilt = reader.null() ? nil : try reader.bool()
            case "tilt": snapshot.tilt = reader.null() ? nil : try readTilt(&reader)
            case "gestures":
                guard !reader.null() else { return }
                var gestures = [String]()
                try reader.array { reader throws(ProtocolError) in gestures.append(try reader.string()) }
                snapshot.gestures = gestures
            case "gestureScores":
                guard !reader.null() else { return }
                var scores = [String: Double]()
                try reader.object { name, reader throws(ProtocolError) in scores[name] = try reader.double() }
                snapshot.gestureScores = scores
            case "learned":
                guard !reader.null() else { return }
                var learned = [GestureTemplate]()
                try reader.array { reader throws(ProtocolError) in learned.append(try readTemplate(&reader)) }
                snapshot.learned = learned
            default: try reader.skipValue()
            }
        }
        if passedOver { return nil }
        func missing(_ field: String) -> ProtocolError {
            reader.position = start
            return reader.error("the session has no \"\(field)\"")
        }
        guard let id else { throw missing("session") }
        guard let library else { throw missing("library") }
        guard let eventSeq else { throw missing("eventSeq") }
        guard let checkmark else { throw missing("checkmark") }
        guard let multistroke else { throw missing("multistroke") }
        (snapshot.session, snapshot.library, snapshot.eventSeq) = (id, library, eventSeq)
        (snapshot.checkmark, snapshot.multistroke) = (checkmark, multistroke)
        return snapshot
    }

    /// A session's tilt estimate: `{"degrees": D, "samples": N}`, D a whole number of degrees within ±45 and N a
    /// count of 1 to 3 (`TiltEstimate`).
    private static func readTilt(_ reader: inout JSONReader) throws(ProtocolError) -> TiltEstimate {
        let start = reader.position
        var degrees: Int?, samples: Int?
        try reader.object { key, reader throws(ProtocolError) in
            switch key {
            case "degrees": degrees = try reader.integer()
            case "samples": samples = try reader.integer()
            default: try reader.skipValue()
            }
        }
        let largest = Int(TiltEstimate.largest)
        guard let degrees, (-largest...largest).contains(degrees), let samples,
            (1...Int(TiltEstimate.warmUp)).contains(samples)
        else {
            reader.position = start
            throw reader.error(
                "the session's \"tilt\" needs \"degrees\" within ±\(largest) and \"samples\" from 1 to "
                    + "\(TiltEstimate.warmUp)")
        }
        return TiltEstimate(degrees: Int8(degrees), samples: UInt8(samples))
    }

    /// A learned template: `{"name": …, "points": [[x, y], …]}` or `{"name": …, "strokes": [[[x, y], …], …]}`.
    private static func readTemplate(_ reader: inout JSONReader) throws(ProtocolError) -> GestureTemplate {
        let start = reader.position
        var name: String?, points: [SIMD2<Double>]?, strokes: [[SIMD2<Double>]]?
        try reader.object { key, reader throws(ProtocolError) in
            switch key {
            case "name": name = try reader.string()
            case "points": points = try readPoints(&reader)
            case "strokes":
                var all = [[SIMD2<Double>]]()
                try reader.array { reader throws(ProtocolError) in all.append(try readPoints(&reader)) }
                strokes = all
            default: try reader.skipValue()
            }
        }
        func wrong(_ what: String) -> ProtocolError {
            reader.position = start
            return reader.error(what)
        }
        guard let name else { throw wrong("the learned template has no \"name\"") }
        switch (points, strokes) {
        case (let points?, nil): return GestureTemplate(name: name, points: points)
        case (nil, let strokes?) where !strokes.isEmpty: return GestureTemplate(name: name, strokes: strokes)
        case (nil, _?): throw wrong("the learned template's \"strokes\" is empty")
        default: throw wrong("a learned template has either \"points\" (one stroke) or \"strokes\" (several)")
        }
    }

    /// `[[x, y], …]`.
    private static func readPoints(_ reader: inout JSONReader) throws(ProtocolError) -> [SIMD2<Double>] {
        var points = [SIMD2<Double>]()
        try reader.array { reader throws(ProtocolError) in
            var pair = SIMD2<Double>(), count = 0
            try reader.array { reader throws(ProtocolError) in
                guard count < 2 else { throw reader.error("a point has more than two numbers; expected [x, y]") }
                pair[count] = try reader.double()
                count += 1
            }
            guard count == 2 else { throw reader.error("a point has \(count) numbers; expected [x, y]") }
            points.append(pair)
        }
        return points
    }
}
