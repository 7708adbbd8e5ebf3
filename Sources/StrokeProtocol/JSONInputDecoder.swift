/// Decodes the JSON form of input messages (see `Protocol/README.md`).
enum JSONInputDecoder {
    static func decode(_ bytes: UnsafeRawBufferPointer, into message: inout InputMessage, maximumPoints: Int)
        throws(ProtocolError)
    {
        var scanner = JSONScanner(bytes)
        try scanner.expect(UInt8(ascii: "{"))
        var kind: InputMessage.Kind?
        var sawSequence = false
        var sawStroke = false
        // The options' fields are only noted here, and read by `decodeOptions` in a second pass over an options
        // message: their locals cost every message, and options messages are rare (`make profile`: 3,407
        // instructions a JSON point this way, 3,528 with the eight options' locals here, 3,487 with six).
        var sawOptions = false
        var sawLast = false
        if !scanner.consume(UInt8(ascii: "}")) {
            repeat {
                let (key, _) = try scanner.stringRange()
                try scanner.expect(UInt8(ascii: ":"))
                if scanner.equals(key, "type") {
                    kind = try decodeKind(&scanner)
                } else if scanner.equals(key, "seq") {
                    message.sequence = UInt32(try integer(&scanner, field: "seq", maximum: Double(UInt32.max)))
                    sawSequence = true
                } else if scanner.equals(key, "stroke") {
                    message.stroke = UInt32(try integer(&scanner, field: "stroke", maximum: Double(UInt32.max)))
                    sawStroke = true
                } else if scanner.equals(key, "pointer") {
                    message.pointer = UInt16(try integer(&scanner, field: "pointer", maximum: Double(UInt16.max)))
                } else if scanner.equals(key, "points") {
                    try decodePoints(&scanner, into: &message.points, maximum: maximumPoints)
                } else if scanner.equals(key, "v") {
                    let version = try integer(&scanner, field: "v", maximum: 255)
                    guard version == 1 else {
                        throw ProtocolError(.unsupportedVersion, "protocol version \(version) is not supported (1 is)")
                    }
                } else if isOption(key, in: scanner) {
                    try scanner.skipValue(depth: 1)
                    sawOptions = true
                } else if scanner.equals(key, "last") {
                    message.last = try flag(&scanner, field: "last")
                    sawLast = true
                } else if scanner.equals(key, "learn") {
                    guard scanner.peek() == UInt8(ascii: "\"") else { throw mismatch(&scanner, "learn", "a string") }
                    let name = try scanner.string()
                    guard LearnedName.isValid(name) else { throw invalid("learn", Self.nameRule) }
                    message.learn = name
                } else {
                    try scanner.skipValue(depth: 1)  // unknown fields are ignored, for forward compatibility
                }
            } while scanner.consume(UInt8(ascii: ","))
            try scanner.expect(UInt8(ascii: "}"))
        }
        try scanner.expectEnd()
        guard let kind else { throw ProtocolError(.invalidField, "missing field \"type\"") }
        if !sawSequence {
            guard kind == .ping else { throw ProtocolError(.invalidField, "missing field \"seq\"") }
            message.hasSequence = false
        }
        message.kind = kind
        switch kind {
        case .begin, .points, .end, .cancel:
            guard sawStroke else { throw ProtocolError(.invalidField, "\(kind.name) needs field \"stroke\"") }
            if kind == .points && message.points.isEmpty {
                throw ProtocolError(.invalidField, "points needs a non-empty \"points\" array")
            }
        case .options:
            guard sawOptions else {
                throw ProtocolError(
                    .invalidField,
                    "options needs \"library\", \"orientation\", \"checkmark\", \"followTilt\", \"tilt\","
                        + " \"forget\", \"multistroke\", \"gestures\", \"minimumSize\", \"minimumScore\" or"
                        + " \"gestureScores\"")
            }
            message.options = try decodeOptions(bytes)
        case .close, .ping: break
        }
        if message.learn != nil && kind != .end {
            throw ProtocolError(.invalidField, "\"learn\" is a field of end messages, not of \(kind.name)")
        }
        if sawLast && kind != .end {
            throw ProtocolError(.invalidField, "\"last\" is a field of end messages, not of \(kind.name)")
        }
    }

    /// The fields of an `options` message's options.
    private static let optionKeys: [StaticString] = [
        "library", "orientation", "checkmark", "followTilt", "forget", "multistroke", "minimumSize", "minimumScore",
        "gestures", "gestureScores", "tilt",
    ]

    /// Whether `key` names an option.
    private static func isOption(_ key: Range<Int>, in scanner: JSONScanner) -> Bool {
        optionKeys.contains { scanner.equals(key, $0) }
    }

    /// The options of an options message, read in a second pass over it (the first checked its JSON and noted that
    /// it has some); each value is checked here.
    @inline(never)
    private static func decodeOptions(_ bytes: UnsafeRawBufferPointer) throws(ProtocolError) -> SessionOptions {
        var scanner = JSONScanner(bytes)
        var options = SessionOptions()
        try scanner.expect(UInt8(ascii: "{"))
        repeat {
            let (key, _) = try scanner.stringRange()
            try scanner.expect(UInt8(ascii: ":"))
            if scanner.equals(key, "library") {
                guard scanner.peek() == UInt8(ascii: "\"") else { throw mismatch(&scanner, "library", "a string") }
                options.library = try scanner.string()
            } else if scanner.equals(key, "orientation") {
                guard scanner.peek() == UInt8(ascii: "\"") else {
                    throw mismatch(&scanner, "orientation", "a string")
                }
                let value = try scanner.string()
                guard value == "sensitive" || value == "invariant" else {
                    throw invalid("orientation", "\"sensitive\" or \"invariant\"")
                }
                options.orientation = value
            } else if scanner.equals(key, "checkmark") {
                options.checkmark = try flag(&scanner, field: "checkmark")
            } else if scanner.equals(key, "followTilt") {
                options.followTilt = try flag(&scanner, field: "followTilt")
            } else if scanner.equals(key, "tilt") {
                let largest = SessionOptions.maximumTilt
                options.tilt = try signedInteger(&scanner, field: "tilt", in: -largest...largest)
            } else if scanner.equals(key, "forget") {
                guard scanner.peek() == UInt8(ascii: "\"") else { throw mismatch(&scanner, "forget", "a string") }
                let name = try scanner.string()
                guard name == LearnedName.all || LearnedName.isValid(name) else {
                    throw invalid("forget", Self.nameRule + " or \"*\"")
                }
                options.forget = name
            } else if scanner.equals(key, "multistroke") {
                options.multistroke = Int(
                    try integer(&scanner, field: "multistroke", maximum: Double(SessionOptions.maximumMultistrokeGap)))
            } else if scanner.equals(key, "minimumSize") {
                options.minimumSize = try size(&scanner, field: "minimumSize")
            } else if scanner.equals(key, "minimumScore") {
                let score = try size(&scanner, field: "minimumScore")
                guard score <= 1 else { throw invalid("minimumScore", "a number from 0 to 1") }
                options.minimumScore = score
            } else if scanner.equals(key, "gestures") {
                options.gestures = try decodeGestures(&scanner)
            } else if scanner.equals(key, "gestureScores") {
                options.gestureScores = try decodeGestureScores(&scanner)
            } else {
                try scanner.skipValue(depth: 1)
            }
        } while scanner.consume(UInt8(ascii: ","))
        return options
    }

    /// `true` or `false`.
    private static func flag(_ scanner: inout JSONScanner, field: String) throws(ProtocolError) -> Bool {
        guard let next = scanner.peek(), next == UInt8(ascii: "t") || next == UInt8(ascii: "f") else {
            throw mismatch(&scanner, field, "true or false")
        }
        return try scanner.bool()
    }

    /// What a learned gesture's name must be, for error messages.
    private static let nameRule =
        "a name of 1 to \(LearnedName.maximumBytes) UTF-8 bytes without control characters, other than \"*\""

    /// `"*"` or an array of 1 to `SessionOptions.Gestures.maximumCount` gesture names.
    private static func decodeGestures(_ scanner: inout JSONScanner) throws(ProtocolError) -> SessionOptions.Gestures {
        let expected =
            "\"*\" or an array of 1 to \(SessionOptions.Gestures.maximumCount) gesture names (\(Self.nameRule))"
        if scanner.peek() == UInt8(ascii: "\"") {
            guard try scanner.string() == LearnedName.all else { throw invalid("gestures", expected) }
            return .all
        }
        guard scanner.peek() == UInt8(ascii: "[") else { throw mismatch(&scanner, "gestures", expected) }
        scanner.index += 1
        var names: [String] = []
        if !scanner.consume(UInt8(ascii: "]")) {
            repeat {
                guard scanner.peek() == UInt8(ascii: "\"") else { throw mismatch(&scanner, "gestures", expected) }
                let name = try scanner.string()
                guard LearnedName.isValid(name), names.count < SessionOptions.Gestures.maximumCount else {
                    throw invalid("gestures", expected)
                }
                names.append(name)
            } while scanner.consume(UInt8(ascii: ","))
            try scanner.expect(UInt8(ascii: "]"))
        }
        guard !names.isEmpty else { throw invalid("gestures", expected) }
        return .only(names)
    }

    /// An object of at most `SessionOptions.maximumGestureScores` gesture names, each once, to scores in `0...1`.
    private static func decodeGestureScores(_ scanner: inout JSONScanner) throws(ProtocolError) -> [String: Double] {
        let expected =
            "an object of at most \(SessionOptions.maximumGestureScores) gesture names (\(Self.nameRule)), each once, "
            + "to scores from 0 to 1"
        guard scanner.peek() == UInt8(ascii: "{") else { throw mismatch(&scanner, "gestureScores", expected) }
        scanner.index += 1
        var scores: [String: Double] = [:]
        if !scanner.consume(UInt8(ascii: "}")) {
            repeat {
                guard scanner.peek() == UInt8(ascii: "\"") else { throw mismatch(&scanner, "gestureScores", expected) }
                let name = try scanner.string()
                try scanner.expect(UInt8(ascii: ":"))
                let score = try size(&scanner, field: "gestureScores")
                guard LearnedName.isValid(name), scores[name] == nil, score <= 1,
                    scores.count < SessionOptions.maximumGestureScores
                else { throw invalid("gestureScores", expected) }
                scores[name] = score
            } while scanner.consume(UInt8(ascii: ","))
            try scanner.expect(UInt8(ascii: "}"))
        }
        return scores
    }

    private static func invalid(_ field: String, _ expected: String) -> ProtocolError {
        ProtocolError(.invalidField, "field \"\(field)\" must be \(expected)")
    }

    /// A value of the wrong type: `invalid_field` if it is well-formed JSON, else `malformed_json`.
    private static func mismatch(_ scanner: inout JSONScanner, _ field: String, _ expected: String) -> ProtocolError {
        do {
            try scanner.skipValue(depth: 1)
        } catch {
            return error
        }
        return invalid(field, expected)
    }

    private static func decodeKind(_ scanner: inout JSONScanner) throws(ProtocolError) -> InputMessage.Kind {
        guard scanner.peek() == UInt8(ascii: "\"") else { throw mismatch(&scanner, "type", "a string") }
        let (range, _) = try scanner.stringRange()
        if scanner.equals(range, "points") { return .points }
        if scanner.equals(range, "begin") { return .begin }
        if scanner.equals(range, "end") { return .end }
        if scanner.equals(range, "cancel") { return .cancel }
        if scanner.equals(range, "close") { return .close }
        if scanner.equals(range, "options") { return .options }
        if scanner.equals(range, "ping") { return .ping }
        let name = String(decoding: UnsafeRawBufferPointer(rebasing: scanner.bytes[range]).prefix(40), as: UTF8.self)
        throw ProtocolError(.unknownType, "unknown message type \"\(name)\"")
    }

    /// A size in the producer's coordinates: a finite number, 0 or more.
    private static func size(_ scanner: inout JSONScanner, field: String) throws(ProtocolError) -> Double {
        guard let next = scanner.peek(), next == UInt8(ascii: "-") || (next >= 0x30 && next <= 0x39) else {
            throw mismatch(&scanner, field, "a number")
        }
        let value = try scanner.number()
        guard value >= 0, value.isFinite else { throw invalid(field, "a finite number, 0 or more") }
        return value
    }

    static func integer(_ scanner: inout JSONScanner, field: String, maximum: Double) throws(ProtocolError)
        -> Int
    {
        guard let next = scanner.peek(), next == UInt8(ascii: "-") || (next >= 0x30 && next <= 0x39) else {
            throw mismatch(&scanner, field, "a number")
        }
        let value = try scanner.number()
        guard value >= 0, value <= maximum, value.rounded() == value else {
            throw invalid(field, "an integer in 0...\(Int(maximum))")
        }
        return Int(value)
    }

    /// An integer of an option that may be negative, within `range`.
    private static func signedInteger(_ scanner: inout JSONScanner, field: String, in range: ClosedRange<Int>)
        throws(ProtocolError) -> Int
    {
        guard let next = scanner.peek(), next == UInt8(ascii: "-") || (next >= 0x30 && next <= 0x39) else {
            throw mismatch(&scanner, field, "a number")
        }
        let value = try scanner.number()
        guard value >= Double(range.lowerBound), value <= Double(range.upperBound), value.rounded() == value else {
            throw invalid(field, "an integer in \(range.lowerBound)...\(range.upperBound)")
        }
        return Int(value)
    }

    /// A finite number; `field` names it in errors only (it is not built unless needed: this runs per
    /// coordinate).
    private static func coordinate(_ scanner: inout JSONScanner, field: @autoclosure () -> String)
        throws(ProtocolError) -> Double
    {
        guard let next = scanner.peek(), next == UInt8(ascii: "-") || (next >= 0x30 && next <= 0x39) else {
            throw mismatch(&scanner, field(), "a number")
        }
        let value = try scanner.number()
        guard value.isFinite else { throw ProtocolError(.nonFinite, "field \"\(field())\" is not finite") }
        return value
    }

    /// A pressure as the 32-bit float it is kept in: one past that range (a finite JSON number, `1e39`) would be
    /// infinite there, which the binary form cannot carry either.
    private static func pressure(_ value: Double, field: @autoclosure () -> String) throws(ProtocolError) -> Float {
        let pressure = Float(value)
        guard pressure.isFinite else {
            throw ProtocolError(.nonFinite, "field \"\(field())\" is not finite as a 32-bit float")
        }
        return pressure
    }

    /// A point written `[x,y,t]` with no whitespace and finite numbers, the form encoders write, read with no
    /// per-value checks; `nil`, with the scanner where it was, for anything else, which the general path then
    /// reads (and reports errors of) as before.
    @inline(__always)
    private static func fastPoint(_ scanner: inout JSONScanner) -> WirePoint? {
        let start = scanner.index
        guard scanner.take(UInt8(ascii: "[")), let x = scanner.plainNumber(followedBy: UInt8(ascii: ",")),
            let y = scanner.plainNumber(followedBy: UInt8(ascii: ",")),
            let t = scanner.plainNumber(followedBy: UInt8(ascii: "]"))
        else {
            scanner.index = start
            return nil
        }
        return WirePoint(x: x, y: y, t: t)
    }

    /// `[[x, y, t], [x, y, t, pressure], …]` or `[{"x": …, "y": …, "t": …, "pressure": …}, …]`.
    private static func decodePoints(_ scanner: inout JSONScanner, into points: inout [WirePoint], maximum: Int)
        throws(ProtocolError)
    {
        guard scanner.peek() == UInt8(ascii: "[") else { throw mismatch(&scanner, "points", "an array") }
        scanner.index += 1
        // A repeated "points" replaces the earlier one. (Checked first: clearing an empty array still costs a call
        // of `replaceSubrange`, about 50 instructions.)
        if !points.isEmpty { points.removeAll(keepingCapacity: true) }
        if scanner.consume(UInt8(ascii: "]")) { return }
        repeat {
            guard points.count < maximum else {
                throw ProtocolError(.tooManyPoints, "a message carries at most \(maximum) points")
            }
            if let point = fastPoint(&scanner) {
                points.append(point)
                continue
            }
            var point = WirePoint(x: 0, y: 0, t: 0)
            if scanner.consume(UInt8(ascii: "[")) {
                var values = (0.0, 0.0, 0.0, 0.0)
                var count = 0
                if !scanner.consume(UInt8(ascii: "]")) {
                    repeat {
                        let value = try coordinate(&scanner, field: "points[\(points.count)][\(count)]")
                        switch count {
                        case 0: values.0 = value
                        case 1: values.1 = value
                        case 2: values.2 = value
                        case 3: values.3 = value
                        default: break
                        }
                        count += 1
                    } while scanner.consume(UInt8(ascii: ","))
                    try scanner.expect(UInt8(ascii: "]"))
                }
                guard count == 3 || count == 4 else {
                    throw invalid("points[\(points.count)]", "[x, y, t] or [x, y, t, pressure]")
                }
                point = WirePoint(
                    x: values.0, y: values.1, t: values.2,
                    pressure: count == 4 ? try pressure(values.3, field: "points[\(points.count)][3]") : nil)
            } else if scanner.consume(UInt8(ascii: "{")) {
                var seen = 0
                repeat {
                    let (key, _) = try scanner.stringRange()
                    try scanner.expect(UInt8(ascii: ":"))
                    if scanner.equals(key, "x") {
                        point.x = try coordinate(&scanner, field: "x")
                        seen |= 1
                    } else if scanner.equals(key, "y") {
                        point.y = try coordinate(&scanner, field: "y")
                        seen |= 2
                    } else if scanner.equals(key, "t") {
                        point.t = try coordinate(&scanner, field: "t")
                        seen |= 4
                    } else if scanner.equals(key, "pressure") {
                        point.pressure = try pressure(try coordinate(&scanner, field: "pressure"), field: "pressure")
                    } else {
                        try scanner.skipValue(depth: 3)
                    }
                } while scanner.consume(UInt8(ascii: ","))
                try scanner.expect(UInt8(ascii: "}"))
                guard seen == 7 else { throw invalid("points[\(points.count)]", "an object with x, y and t") }
            } else {
                throw invalid("points[\(points.count)]", "[x, y, t] or {\"x\", \"y\", \"t\"}")
            }
            points.append(point)
        } while scanner.consume(UInt8(ascii: ","))
        try scanner.expect(UInt8(ascii: "]"))
    }
}
