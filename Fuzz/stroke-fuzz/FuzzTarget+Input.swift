import StrokeProtocol

// MARK: - Input messages

extension FuzzTarget {
    /// Decodes `bytes` as an input payload. One that decodes is written again as JSON (and, when it came as
    /// binary, as binary) and must decode to the same message: to the bit from binary, to the encoder's rounding
    /// from JSON (points to 3 decimals, pressure to 4, thresholds and sizes to 6).
    static func input(_ bytes: UnsafeRawBufferPointer) {
        let decoder = InputDecoder()
        var message = InputMessage()
        do {
            try decoder.decode(bytes, into: &message)
        } catch {
            return
        }
        let json = JSONInputEncoder.encode(message)
        let again: InputMessage
        do {
            again = try decoder.decode(json)
        } catch {
            fail("\(message) decoded, but its JSON \(String(decoding: json, as: UTF8.self)) does not: \(error)")
        }
        if let difference = difference(message, again) {
            fail("\(message) written as JSON reads back as \(again): \(difference)")
        }
        guard bytes.first == BinaryCodec.magic else { return }
        let binary = BinaryCodec.encode(message)
        do {
            let fromBinary = try decoder.decode(binary)
            if fromBinary != message { fail("\(message) written as binary reads back as \(fromBinary)") }
        } catch {
            fail("\(message) decoded from binary, but its binary form does not: \(error)")
        }
    }

    /// What differs between `message` and `again`, read back from its JSON, beyond the encoder's rounding; nil
    /// when nothing does.
    private static func difference(_ message: InputMessage, _ again: InputMessage) -> String? {
        var first = message
        var second = again
        guard first.points.count == second.points.count else { return "point count" }
        for (a, b) in zip(first.points, second.points) {
            guard close(a.x, b.x, decimals: 3), close(a.y, b.y, decimals: 3), close(a.t, b.t, decimals: 3) else {
                return "point \(a) against \(b)"
            }
            guard (a.pressure == nil) == (b.pressure == nil) else { return "pressure" }
            if let p = a.pressure, let q = b.pressure,
                !close(Double(p), Double(q), decimals: 4, slack: Double(q.ulp) / 2)
            {
                return "pressure \(p) against \(q)"
            }
        }
        first.points = []
        second.points = []
        // The binary header has a stroke and a pointer for every kind; the JSON form writes them only for the kinds
        // that carry them, and the others' are not read.
        if ![.begin, .points, .end, .cancel].contains(first.kind) {
            (first.stroke, first.pointer, second.stroke, second.pointer) = (0, 0, 0, 0)
        }
        guard var options = first.options, let otherOptions = second.options else {
            return first == second ? nil : "fields"
        }
        if let size = options.minimumSize, let other = otherOptions.minimumSize, close(size, other, decimals: 6) {
            options.minimumSize = other
        }
        if let score = options.minimumScore, let other = otherOptions.minimumScore, close(score, other, decimals: 6) {
            options.minimumScore = other
        }
        if let scores = options.gestureScores, let others = otherOptions.gestureScores, scores.count == others.count,
            scores.allSatisfy({ entry in others[entry.key].map { close(entry.value, $0, decimals: 6) } ?? false })
        {
            options.gestureScores = others
        }
        first.options = options
        return first == second ? nil : "fields or options"
    }

    /// Whether `b` is `a` written with `decimals` digits after the point and read back (`slack` more: a pressure
    /// is read back into a 32-bit float, which rounds the decimal by up to half its spacing there, about 3e-5 near
    /// 1,000).
    private static func close(_ a: Double, _ b: Double, decimals: Int, slack: Double = 0) -> Bool {
        guard a.isFinite, b.isFinite else { return a.isNaN ? b.isNaN : a == b }
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        return abs(a - b) <= 0.5 / scale * (1 + 1e-9) + abs(a) * 1e-15 + slack
    }
}
