import Foundation
import StrokeProtocol
import StrokeRecognition
import StrokeWorker

/// The frames a producer sends: `[topic, payload]` per message, precomputed so that sending costs nothing but
/// the send.
struct Traffic {
    enum Encoding: String, Codable, CaseIterable {
        case binary
        case json
    }

    var topics: [[UInt8]] = []
    var payloads: [[UInt8]] = []
    /// Index of every `end` message, with its session and stroke.
    var ends: [Int] = []
    var pointCount = 0
    /// The session of every message, and the messages that begin a stroke: where `split` may cut.
    var sessionOf: [Int32] = []
    var begins: [Bool] = []

    var count: Int { topics.count }

    /// The frames copied into one allocation, for the processor section to hand over in batches.
    func frameCopies() -> FrameCopies {
        FrameCopies(zip(topics, payloads).map { (topic: $0, payload: $1) })
    }

    /// `sessions` sessions drawing the given strokes side by side: round-robin one message per session; each
    /// session draws stroke after stroke. Stops after `messages` messages at a stroke boundary of each session.
    /// With `checkmark` false, each session first sends an `options` message (JSON, whatever the encoding) that
    /// turns its checkmark detector off.
    static func make(
        strokes: [[StrokePoint]], sessions: Int, pointsPerMessage: Int, encoding: Encoding, messages: Int,
        prefix: String, checkmark: Bool = true
    ) -> Traffic {
        var traffic = Traffic()
        traffic.topics.reserveCapacity(messages + sessions * 4)
        traffic.payloads.reserveCapacity(messages + sessions * 4)
        var writer = JSONWriter()
        var buffer = [UInt8]()
        // Per-session cursors: which stroke, which point, next seq, stroke id.
        var strokeIndex = (0..<sessions).map { $0 % strokes.count }
        var pointIndex = [Int](repeating: 0, count: sessions)
        var sequence = [UInt32](repeating: 1, count: sessions)
        var strokeID = [UInt32](repeating: 1, count: sessions)
        let topics = (0..<sessions).map { Array(ShardKey.topic(for: "\(prefix)\($0)").utf8) }
        if !checkmark {
            for session in 0..<sessions {
                let options = InputMessage(
                    kind: .options, sequence: sequence[session], options: SessionOptions(checkmark: false))
                JSONInputEncoder.encode(options, into: &writer)
                traffic.topics.append(topics[session])
                traffic.sessionOf.append(Int32(session))
                traffic.begins.append(false)
                traffic.payloads.append(writer.bytes)
                sequence[session] += 1
            }
        }
        var active = Set(0..<sessions)
        while !active.isEmpty {
            for session in 0..<sessions where active.contains(session) {
                let points = strokes[strokeIndex[session]]
                var message = InputMessage()
                message.sequence = sequence[session]
                message.stroke = strokeID[session]
                let start = pointIndex[session]
                if start == 0 {
                    message.kind = .begin
                    message.points = [wire(points[0])]
                    pointIndex[session] = 1
                } else if start < points.count {
                    message.kind = .points
                    let end = min(points.count, start + pointsPerMessage)
                    message.points = points[start..<end].map(wire)
                    pointIndex[session] = end
                } else {
                    message.kind = .end
                    traffic.ends.append(traffic.count)
                    pointIndex[session] = 0
                    strokeID[session] += 1
                    strokeIndex[session] = (strokeIndex[session] + sessions) % strokes.count
                    if traffic.count >= messages { active.remove(session) }
                }
                traffic.pointCount += message.points.count
                sequence[session] += 1
                switch encoding {
                case .binary: BinaryCodec.encode(message, into: &buffer)
                case .json:
                    JSONInputEncoder.encode(message, into: &writer)
                    buffer = writer.bytes
                }
                traffic.topics.append(topics[session])
                traffic.sessionOf.append(Int32(session))
                traffic.begins.append(message.kind == .begin)
                traffic.payloads.append(buffer)
            }
        }
        return traffic
    }

    /// The traffic cut into `parts` pieces of about the same number of messages, to be sent one after the
    /// other. A stroke is never cut: each message goes to the piece in which its stroke began, so a piece ends
    /// with the rest of the strokes begun in it, and a peer that keeps sessions sees every stroke whole, in order,
    /// from one producer. The pieces' `pointCount` is left at 0 (only the latency section cuts traffic).
    func split(into parts: Int) -> [Traffic] {
        var pieces = [Traffic](repeating: Traffic(), count: parts)
        var pieceOfSession = [Int](repeating: 0, count: Int(sessionOf.max() ?? 0) + 1)
        var isEnd = [Bool](repeating: false, count: count)
        for index in ends { isEnd[index] = true }
        for index in 0..<count {
            let session = Int(sessionOf[index])
            if begins[index] { pieceOfSession[session] = min(parts - 1, index * parts / max(count, 1)) }
            let part = pieceOfSession[session]
            if isEnd[index] { pieces[part].ends.append(pieces[part].count) }
            pieces[part].topics.append(topics[index])
            pieces[part].payloads.append(payloads[index])
            pieces[part].sessionOf.append(sessionOf[index])
            pieces[part].begins.append(begins[index])
        }
        return pieces
    }

    private static func wire(_ point: StrokePoint) -> WirePoint {
        WirePoint(x: point.x, y: point.y, t: point.time)
    }

    /// Strokes of the data set, or synthetic ones like them (65 points, check-like and curvy) without it.
    static func strokes(dataset: String?) -> [[StrokePoint]] {
        if let dataset, let logs = try? DatasetCache.logs(at: dataset), !logs.isEmpty {
            return logs.map(\.points)
        }
        return (0..<160).map { k in
            (0..<65).map { i in
                let u = Double(i) / 64
                let wobble = sin(Double(k) * 0.7 + u * 9) * 6
                return StrokePoint(
                    x: 100 + 200 * u + wobble, y: 200 - 150 * abs(u - 0.3) * Double(1 + k % 3), time: Double(i) * 14)
            }
        }
    }
}
