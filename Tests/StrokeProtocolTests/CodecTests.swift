import Foundation
import Testing

@testable import StrokeProtocol

@Suite("Input codecs")
struct CodecTests {
    private func decode(_ bytes: [UInt8]) throws(ProtocolError) -> InputMessage {
        try InputDecoder().decode(bytes)
    }

    @Test("the binary vectors in Protocol/vectors/binary.json")
    func binaryVectors() throws {
        let vectors = try ProtocolVectors.load("binary.json")["vectors"] as! [[String: Any]]
        for vector in vectors {
            let bytes = ProtocolVectors.bytes(hex: vector["hex"] as! String)
            if let code = vector["error"] as? String {
                do {
                    _ = try decode(bytes)
                    Issue.record("\(vector["description"]!): expected \(code)")
                } catch {
                    #expect(error.code.rawValue == code, "\(vector["description"]!)")
                }
                continue
            }
            let expected = vector["decoded"] as! [String: Any]
            let message = try decode(bytes)
            #expect(message.kind.name == expected["type"] as! String)
            #expect(Int(message.sequence) == expected["seq"] as! Int)
            #expect(Int(message.stroke) == expected["stroke"] as! Int)
            #expect(Int(message.pointer) == expected["pointer"] as! Int)
            #expect(message.last == (expected["last"] as? Bool ?? false), "\(vector["description"]!)")
            let points = expected["points"] as! [[Double]]
            #expect(message.points.count == points.count)
            for (actual, wanted) in zip(message.points, points) {
                #expect([actual.x, actual.y, actual.t] == Array(wanted.prefix(3)))
                if wanted.count == 4 { #expect(Double(actual.pressure!) == wanted[3]) }
            }
            // Encoding the decoded message gives the same bytes back.
            #expect(BinaryCodec.encode(message) == bytes)
        }
    }

    @Test("too many points in one message")
    func tooManyPoints() {
        let decoder = InputDecoder(maximumPointsPerMessage: 2)
        let json = Array(#"{"type":"points","seq":1,"stroke":1,"points":[[1,2,3],[1,2,3],[1,2,3]]}"#.utf8)
        #expect(throws: ProtocolError.self) { try decoder.decode(json) }
        let binary = BinaryCodec.encode(
            InputMessage(
                kind: .points, sequence: 1, stroke: 1, points: Array(repeating: WirePoint(x: 1, y: 1, t: 1), count: 3)))
        #expect(throws: ProtocolError.self) { try decoder.decode(binary) }
    }

    @Test(
        "a non-finite value in any field of any binary point names that point, and the message keeps no points",
        arguments: [5, 12]  // appended one at a time, and copied in bulk
    )
    func binaryNonFinite(count: Int) throws {
        let points = (0..<count).map { WirePoint(x: Double($0), y: 2, t: 10 * Double($0), pressure: 0.5) }
        let withPressure = BinaryCodec.encode(InputMessage(kind: .points, sequence: 1, stroke: 1, points: points))
        var plain = points
        for index in plain.indices { plain[index].pressure = nil }
        let withoutPressure = BinaryCodec.encode(InputMessage(kind: .points, sequence: 1, stroke: 1, points: plain))
        // (bytes, stride, field offset within a point, value width)
        let cases: [([UInt8], Int, Int, Int)] = [
            (withoutPressure, 16, 0, 4), (withoutPressure, 16, 4, 4), (withoutPressure, 16, 8, 8),
            (withPressure, 20, 8, 8), (withPressure, 20, 16, 4),
        ]
        let decoder = InputDecoder()
        var message = InputMessage()
        /// Decodes into `message`, the same value every time; the error, if any.
        func decode(_ bytes: [UInt8]) -> ProtocolError? {
            bytes.withUnsafeBytes { raw -> ProtocolError? in
                do {
                    try decoder.decode(raw, into: &message)
                    return nil
                } catch {
                    return error as? ProtocolError
                }
            }
        }
        let broken = count - 2
        for (bytes, stride, field, width) in cases {
            var changed = bytes
            let start = BinaryCodec.headerSize + broken * stride + field
            let nan: [UInt8] = width == 4 ? [0x00, 0x00, 0xC0, 0x7F] : [0, 0, 0, 0, 0, 0, 0xF8, 0x7F]
            changed.replaceSubrange(start..<(start + width), with: nan)
            let error = decode(changed)
            #expect(error?.code == .nonFinite, "stride \(stride), field \(field)")
            #expect(error?.message.contains("point \(broken) ") == true, "\(String(describing: error))")
            #expect(message.points.isEmpty)
            // The same message value decodes the intact bytes afterwards.
            #expect(decode(bytes) == nil)
            #expect(message.points.map(\.x) == points.map(\.x))
            #expect(message.points.map(\.t) == points.map(\.t))
            #expect(message.points.map(\.pressure) == (stride == 20 ? points.map(\.pressure) : plain.map(\.pressure)))
        }
    }

    @Test("one message value decoded again and again holds only the latest message's points, in either form")
    func reusedMessage() throws {
        func points(_ count: Int, from start: Int) -> [WirePoint] {
            (0..<count).map { WirePoint(x: Double(start + $0), y: 1, t: Double($0)) }
        }
        // Counts that take both ways of clearing (a few points, many) and of decoding (appended, copied in bulk).
        let sizes = [12, 1, 3, 0, 40, 4, 5, 2, 9]
        let decoder = InputDecoder()
        var message = InputMessage()
        for (step, count) in sizes.enumerated() {
            let expected = points(count, from: 100 * step)
            let sent = InputMessage(
                kind: count == 0 ? .end : .points, sequence: UInt32(step + 1), stroke: 1, points: expected)
            var writer = JSONWriter()
            JSONInputEncoder.encode(sent, into: &writer)
            for bytes in [BinaryCodec.encode(sent), writer.bytes] {
                try bytes.withUnsafeBytes { raw in try decoder.decode(raw, into: &message) }
                #expect(message.points == expected, "step \(step), \(count) points")
                #expect(message.sequence == UInt32(step + 1))
            }
        }
        // A repeated "points" field replaces the earlier one.
        let twice = Array(#"{"type":"points","seq":1,"stroke":1,"points":[[1,2,3],[4,5,6]],"points":[[7,8,9]]}"#.utf8)
        #expect(try decoder.decode(twice).points == [WirePoint(x: 7, y: 8, t: 9)])
    }

    @Test("JSON encoding round-trips through the decoder")
    func roundTrip() throws {
        let messages = [
            InputMessage(
                kind: .begin, sequence: 1, stroke: 3, pointer: 4,
                points: [WirePoint(x: 1.5, y: -2, t: 1e12, pressure: 0.25)]),
            InputMessage(
                kind: .options, sequence: 2,
                options: SessionOptions(library: "a\"b", orientation: "sensitive", checkmark: true)),
            InputMessage(kind: .close, sequence: 3),
            InputMessage(kind: .options, sequence: 4, options: SessionOptions(multistroke: 600)),
            InputMessage(kind: .end, sequence: 5, stroke: 2, last: true),
            InputMessage(
                kind: .options, sequence: 6,
                options: SessionOptions(gestures: .only(["circle", "x\"y", "é", "circle"]))),
            InputMessage(kind: .options, sequence: 7, options: SessionOptions(checkmark: false, gestures: .all)),
            InputMessage(kind: .options, sequence: 8, options: SessionOptions(minimumSize: 20)),
            InputMessage(kind: .options, sequence: 9, options: SessionOptions(minimumSize: 0.015625)),
            InputMessage(kind: .options, sequence: 10, options: SessionOptions(minimumSize: 0)),
            InputMessage(kind: .options, sequence: 11, options: SessionOptions(followTilt: false)),
            InputMessage(kind: .options, sequence: 12, options: SessionOptions(checkmark: true, followTilt: true)),
            InputMessage(kind: .options, sequence: 13, options: SessionOptions(minimumScore: 0.65)),
            InputMessage(kind: .options, sequence: 14, options: SessionOptions(minimumScore: 0)),
            InputMessage(kind: .options, sequence: 15, options: SessionOptions(minimumScore: 1)),
            InputMessage(
                kind: .options, sequence: 16, options: SessionOptions(gestureScores: ["fire": 0.8, "ice \"❄\"": 0.65])),
            InputMessage(kind: .options, sequence: 17, options: SessionOptions(gestureScores: [:])),
            InputMessage(kind: .options, sequence: 18, options: SessionOptions(tilt: -45)),
            InputMessage(kind: .options, sequence: 19, options: SessionOptions(followTilt: true, tilt: 12)),
        ]
        for message in messages {
            #expect(try decode(JSONInputEncoder.encode(message)) == message)
        }
    }

    @Test("the last stroke of a gesture, in either form; the binary flag belongs to end messages")
    func lastStroke() throws {
        let end = InputMessage(kind: .end, sequence: 9, stroke: 4, points: [WirePoint(x: 1, y: 2, t: 3)], last: true)
        let binary = BinaryCodec.encode(end)
        #expect(binary[3] == 2)
        #expect(try decode(binary) == end)
        #expect(try decode(Array(#"{"type":"end","seq":9,"stroke":4,"last":false}"#.utf8)).last == false)
        var begin = binary
        begin[2] = InputMessage.Kind.begin.rawValue
        do {
            _ = try decode(begin)
            Issue.record("a begin with the last-stroke flag was accepted")
        } catch {
            #expect(error.code == .malformedBinary)
            #expect(error.message.contains("belongs to end"))
        }
        var unknown = binary
        unknown[3] = 4
        #expect(throws: ProtocolError.self) { try decode(unknown) }
    }
}
