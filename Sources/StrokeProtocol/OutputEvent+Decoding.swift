extension OutputEvent {
    /// Decodes an event's JSON payload (the second frame of `[topic, payload]`).
    ///
    /// - Throws: `ProtocolError` (`malformed_json` with the byte position, `unsupported_version`, `invalid_field`
    ///   naming the field) when the payload is not an event of protocol v1.
    public init(decoding payload: UnsafeRawBufferPointer) throws(ProtocolError) {
        var version: Int?
        let event = try JSONReader.read(payload) { (reader: inout JSONReader) throws(ProtocolError) -> OutputEvent in
            var event = OutputEvent(kind: Kind(rawValue: ""))
            try reader.object { (key: String, reader: inout JSONReader) throws(ProtocolError) in
                switch key {
                case "v": version = try reader.integer(Int.self)
                case "event": event.kind = Kind(rawValue: try reader.string())
                default: try event.read(key, from: &reader)
                }
            }
            return event
        }
        guard version == 1 else {
            throw ProtocolError(.unsupportedVersion, "v: \(version.map(String.init) ?? "missing"), expected 1")
        }
        guard !event.kind.rawValue.isEmpty else { throw ProtocolError(.invalidField, "event: missing") }
        self = event
    }

    /// Decodes an event's JSON payload held in `bytes`.
    public init(decoding bytes: [UInt8]) throws(ProtocolError) {
        let decoded = bytes.withUnsafeBytes { buffer in
            Result { () throws(ProtocolError) in try OutputEvent(decoding: buffer) }
        }
        self = try decoded.get()
    }

    // MARK: - Fields

    /// Reads the value of `key` into its field; skips keys this version does not know.
    private mutating func read(_ key: String, from reader: inout JSONReader) throws(ProtocolError) {
        switch key {
        case "session": session = reader.null() ? nil : try reader.string()
        case "eventSeq": eventSeq = try reader.integer(Int.self)
        case "seq": seq = reader.null() ? nil : try reader.integer(Int.self)
        case "stroke": stroke = try reader.integer(Int.self)
        case "pointer": pointer = try reader.integer(Int.self)
        case "name": name = try reader.string()
        case "score": score = try reader.double()
        case "candidates":
            try reader.array { (reader: inout JSONReader) throws(ProtocolError) in
                candidates.append(try Self.candidate(&reader))
            }
        case "unchosen": unchosen = try Self.candidate(&reader)
        case "nearest": nearest = try Self.candidate(&reader)
        case "points": points = try reader.integer(Int.self)
        case "library": library = try reader.string()
        case "learned": learned = try reader.bool()
        case "backward": backward = try reader.bool()
        case "rotation": rotation = try reader.double()
        case "strokes":
            try reader.array { (reader: inout JSONReader) throws(ProtocolError) in
                strokes.append(try reader.integer(Int.self))
            }
        case "bounds":
            var values = [Double]()
            try reader.array { (reader: inout JSONReader) throws(ProtocolError) in values.append(try reader.double()) }
            guard values.count == 4 else {
                throw ProtocolError(.invalidField, "bounds: \(values.count) numbers, expected [minX, minY, maxX, maxY]")
            }
            bounds = StrokeBounds(minX: values[0], minY: values[1], maxX: values[2], maxY: values[3])
        case "reason": reason = try reader.string()
        case "tilt": tilt = try reader.integer(Int.self)
        case "code": code = try reader.string()
        case "message": message = try reader.string()
        case "restored": restored = try reader.bool()
        case "pointIndex": pointIndex = try reader.integer(Int.self)
        case "t": time = try reader.double()
        case "templates": templates = try reader.integer(Int.self)
        case "shard": shard = try reader.string()
        case "known": known = try reader.bool()
        case "counters":
            try reader.object { (name: String, reader: inout JSONReader) throws(ProtocolError) in
                counters[name] = try reader.integer(Int.self)
            }
        default: try reader.skipValue()
        }
    }

    /// A candidate object: `name` and `score`, with `learned` and `backward` when true.
    private static func candidate(_ reader: inout JSONReader) throws(ProtocolError) -> Candidate {
        var name: String?
        var score: Double?
        var candidate = Candidate(name: "", score: 0)
        try reader.object { (key: String, reader: inout JSONReader) throws(ProtocolError) in
            switch key {
            case "name": name = try reader.string()
            case "score": score = try reader.double()
            case "learned": candidate.learned = try reader.bool()
            case "backward": candidate.backward = try reader.bool()
            default: try reader.skipValue()
            }
        }
        guard let name, let score else { throw reader.error("a candidate with a name and a score") }
        candidate.name = name
        candidate.score = score
        return candidate
    }
}
