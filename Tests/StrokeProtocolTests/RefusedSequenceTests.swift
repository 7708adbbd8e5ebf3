import Testing

@testable import StrokeProtocol

@Suite("The number of a refused message")
struct RefusedSequenceTests {
    private func sequence(_ bytes: [UInt8]) -> UInt32? {
        bytes.withUnsafeBytes { InputDecoder.sequence(ofRefused: $0) }
    }

    private func sequence(_ text: String) -> UInt32? { sequence(Array(text.utf8)) }

    /// A binary header: version, type, flags and `seq`, then the stroke, pointer and count fields (zero).
    private func header(version: UInt8 = 1, type: UInt8 = 2, flags: UInt8 = 0, seq: UInt32) -> [UInt8] {
        [BinaryCodec.magic, version, type, flags] + withUnsafeBytes(of: seq.littleEndian, Array.init)
            + [UInt8](repeating: 0, count: 8)
    }

    @Test("a JSON object refused for its content keeps its seq; the last one counts, as in decoding")
    func json() throws {
        let refused = [
            #"{"type":"points","seq":2,"stroke":1,"points":[[1e999,2,3]]}"#,
            #"{"type":"jump","seq":3}"#,
            #"{"seq":4,"type":7}"#,
            #"{"type":"begin","seq":5,"stroke":"1"}"#,
            #"{"v":1,"type":"options","seq":6}"#,
            #"{"seq":1,"type":"begin","seq":7,"stroke":-1}"#,
            #"{"type":"points","seq":8.0,"stroke":1,"points":[]}"#,
        ]
        for text in refused {
            #expect(throws: ProtocolError.self) { try InputDecoder().decode(Array(text.utf8)) }
        }
        #expect(refused.map(sequence) == [2, 3, 4, 5, 6, 7, 8])
    }

    @Test("no seq where it cannot be trusted: malformed, of the wrong type, another version, a ping")
    func unreadable() {
        let unreadable = [
            "",
            "hello",
            "[1,2,3]",
            "{}",
            #"{"type":"begin","seq":2,"stroke":1"#,
            #"{"type":"begin","seq":2,"stroke":1} x"#,
            #"{"type":"begin","seq":"2","stroke":1}"#,
            #"{"type":"begin","seq":-2,"stroke":1}"#,
            #"{"type":"begin","seq":4294967296,"stroke":1}"#,
            #"{"type":"begin","seq":2.5,"stroke":1}"#,
            #"{"type":"begin","stroke":1}"#,
            #"{"v":2,"type":"begin","seq":2,"stroke":1}"#,
            #"{"type":"begin","seq":2,"v":"1","stroke":1}"#,
            #"{"type":"ping","seq":2,"learn":"zed"}"#,
            #"{"seq":2,"type":"ping","learn":"zed"}"#,
            #"{"type":"begin","seq":2,"stroke":1,"x":"#
                + String(repeating: "[", count: 40) + String(repeating: "]", count: 40) + "}",
        ]
        for text in unreadable {
            #expect(sequence(text) == nil, "\(text)")
        }
    }

    @Test("a binary message of version 1 keeps the seq of its header, whatever else is wrong")
    func binary() {
        #expect(sequence(header(flags: 4, seq: 9)) == 9)
        #expect(sequence(header(type: 6, seq: 10)) == 10)
        #expect(sequence(header(seq: 11) + [1, 2, 3]) == 11)
        #expect(sequence(Array(header(seq: 0xDEAD_BEEF).prefix(8))) == 0xDEAD_BEEF)
        #expect(sequence(Array(header(seq: 12).prefix(7))) == nil)
        #expect(sequence(header(version: 2, seq: 13)) == nil)
        #expect(sequence([BinaryCodec.magic]) == nil)
    }
}
