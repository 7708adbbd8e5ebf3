import Foundation
import Testing

@testable import StrokeProtocol

/// The JSON scanner's string reading, eight bytes at a time, against a plain byte-by-byte reading.
@Suite("JSON scanner")
struct JSONScannerTests {
    /// What a byte-by-byte scan of the string starting at `bytes[1]` finds: its raw range and whether it has
    /// escapes, or nil where it is unterminated or holds a control character.
    static func reference(_ bytes: [UInt8]) -> (range: Range<Int>, escaped: Bool)? {
        var index = 1
        var escaped = false
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "\""): return (1..<index, escaped)
            case UInt8(ascii: "\\"):
                escaped = true
                index += 2
            case 0..<0x20: return nil
            default: index += 1
            }
        }
        return nil
    }

    static func scan(_ bytes: [UInt8]) -> (range: Range<Int>, escaped: Bool)? {
        bytes.withUnsafeBytes { raw in
            var scanner = JSONScanner(raw)
            return try? scanner.stringRange()
        }
    }

    @Test("every length up to 40, with a quote, a backslash, a control character or UTF-8 at every position")
    func matchesByteByByte() {
        let fillers: [UInt8] = [UInt8(ascii: "a"), UInt8(ascii: "/"), 0x20, 0x21, 0x7F, 0x80, 0xC3, 0xFF]
        let specials: [UInt8] = [UInt8(ascii: "\""), UInt8(ascii: "\\"), 0x00, 0x01, 0x0A, 0x1F, 0xE2]
        var compared = 0
        for length in 0...40 {
            for filler in fillers {
                let body = [UInt8](repeating: filler, count: length)
                for tail: [UInt8] in [[UInt8(ascii: "\"")], [], [UInt8(ascii: "\""), UInt8(ascii: ",")]] {
                    let plain = [UInt8(ascii: "\"")] + body + tail
                    #expect(Self.scan(plain)?.range == Self.reference(plain)?.range, "length \(length)")
                    compared += 1
                    for position in 0..<max(length, 1) where length > 0 {
                        for special in specials {
                            var bytes = plain
                            bytes[1 + position] = special
                            let found = Self.scan(bytes)
                            let expected = Self.reference(bytes)
                            #expect(found?.range == expected?.range, "\(bytes)")
                            #expect(found?.escaped == expected?.escaped, "\(bytes)")
                            compared += 1
                        }
                    }
                }
            }
        }
        #expect(compared > 10_000)
    }

    /// The escaped JSON string a byte-by-byte writer makes of `raw`.
    static func escapedReference(_ raw: [UInt8]) -> [UInt8] {
        var out = [UInt8(ascii: "\"")]
        for byte in raw {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): out += [UInt8(ascii: "\\"), byte]
            case 0..<0x20: out += Array(String(format: "\\u%04x", Int(byte)).utf8)
            default: out.append(byte)
            }
        }
        return out + [UInt8(ascii: "\"")]
    }

    @Test("the writer escapes like a byte-by-byte writer: every length up to 40, a special byte at every position")
    func writerEscapesByteByByte() {
        let fillers: [UInt8] = [UInt8(ascii: "a"), 0x20, 0x7F, 0x80, 0xC3, 0xFF]
        let specials: [UInt8] = [UInt8(ascii: "\""), UInt8(ascii: "\\"), 0x00, 0x01, 0x0A, 0x1F, 0xE2]
        var writer = JSONWriter()
        var compared = 0
        func check(_ raw: [UInt8]) {
            writer.reset()
            raw.withUnsafeBytes { writer.string($0) }
            #expect(writer.bytes == Self.escapedReference(raw), "\(raw)")
            compared += 1
        }
        for length in 0...40 {
            for filler in fillers {
                let plain = [UInt8](repeating: filler, count: length)
                check(plain)
                for position in 0..<length {
                    for special in specials {
                        var raw = plain
                        raw[position] = special
                        check(raw)
                        // A second special byte later in the string, within the same word or past it.
                        for gap in [1, 7, 9] where position + gap < length {
                            raw[position + gap] = UInt8(ascii: "\"")
                            check(raw)
                        }
                    }
                }
            }
        }
        #expect(compared > 10_000)
    }

    @Test("the marks of special bytes: the lowest is always a true one")
    func specialBytesLowestMark() {
        // A zero byte followed by 0x01 and 0x20 makes the subtractions borrow into bytes that are not special.
        let bytes: [UInt8] = [0x41, 0x00, 0x01, 0x20, 0x41, 0x41, 0x41, 0x41]
        let word = bytes.withUnsafeBytes { UInt64(littleEndian: $0.loadUnaligned(as: UInt64.self)) }
        let marks = JSONScanner.specialBytes(word)
        #expect(marks.trailingZeroBitCount / 8 == 1)
        #expect(JSONScanner.specialBytes(0x4141_4141_4141_4141) == 0)
        #expect(JSONScanner.specialBytes(0xFFEE_C3A9_8080_7F7E) == 0, "UTF-8 and DEL are ordinary")
    }
}
