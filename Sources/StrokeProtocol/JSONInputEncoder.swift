/// Writes the JSON form of input messages (for clients, tools and tests).
public enum JSONInputEncoder {
    /// The message as a JSON object.
    public static func encode(_ message: InputMessage, into writer: inout JSONWriter) {
        writer.reset()
        writer.beginObject()
        writer.key("type")
        writer.string(message.kind.name)
        if message.hasSequence || message.kind != .ping {
            writer.key("seq")
            writer.integer(message.sequence)
        }
        switch message.kind {
        case .begin, .points, .end, .cancel:
            writer.key("stroke")
            writer.integer(message.stroke)
            if message.pointer != 0 {
                writer.key("pointer")
                writer.integer(message.pointer)
            }
        case .close, .options, .ping: break
        }
        if !message.points.isEmpty {
            writer.key("points")
            writer.beginArray()
            for point in message.points {
                writer.beginArray()
                writer.number(point.x, decimals: 3)
                writer.number(point.y, decimals: 3)
                writer.number(point.t, decimals: 3)
                if let pressure = point.pressure { writer.number(Double(pressure), decimals: 4) }
                writer.endArray()
            }
            writer.endArray()
        }
        if let options = message.options {
            if let library = options.library {
                writer.key("library")
                writer.string(library)
            }
            if let orientation = options.orientation {
                writer.key("orientation")
                writer.string(orientation)
            }
            if let checkmark = options.checkmark {
                writer.key("checkmark")
                writer.bool(checkmark)
            }
            if let followTilt = options.followTilt {
                writer.key("followTilt")
                writer.bool(followTilt)
            }
            if let tilt = options.tilt {
                writer.key("tilt")
                writer.integer(tilt)
            }
            if let forget = options.forget {
                writer.key("forget")
                writer.string(forget)
            }
            if let multistroke = options.multistroke {
                writer.key("multistroke")
                writer.integer(multistroke)
            }
            if let minimumSize = options.minimumSize {
                writer.key("minimumSize")
                writer.number(minimumSize)
            }
            if let minimumScore = options.minimumScore {
                writer.key("minimumScore")
                writer.number(minimumScore)
            }
            if let gestureScores = options.gestureScores {
                writer.key("gestureScores")
                writer.numbers(gestureScores)
            }
            switch options.gestures {
            case nil: break
            case .all:
                writer.key("gestures")
                writer.string(LearnedName.all)
            case .only(let names):
                writer.key("gestures")
                writer.beginArray()
                for name in names { writer.string(name) }
                writer.endArray()
            }
        }
        if let learn = message.learn {
            writer.key("learn")
            writer.string(learn)
        }
        if message.last {
            writer.key("last")
            writer.bool(true)
        }
        writer.endObject()
    }

    /// The message as JSON bytes.
    public static func encode(_ message: InputMessage) -> [UInt8] {
        var writer = JSONWriter()
        encode(message, into: &writer)
        return writer.bytes
    }
}
