/// A small, allocation-free JSON scanner over raw bytes, for the few message shapes of the protocol.
///
/// It reads in place (no copies, no `Foundation`), rejects malformed input with a position, and bounds nesting
/// when it skips values it does not know.
struct JSONScanner {
    let bytes: UnsafeRawBufferPointer
    var index = 0
    static let maximumDepth = 32

    init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    func fail(_ what: String) -> ProtocolError {
        ProtocolError(.malformedJSON, "\(what) at byte \(index)")
    }

    @inline(__always)
    mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    @inline(__always)
    mutating func peek() -> UInt8? {
        skipWhitespace()
        return index < bytes.count ? bytes[index] : nil
    }

    @inline(__always)
    mutating func expect(_ byte: UInt8) throws(ProtocolError) {
        guard peek() == byte else { throw fail("expected '\(Character(UnicodeScalar(byte)))'") }
        index += 1
    }

    /// Consumes `byte` if it is next.
    @inline(__always)
    mutating func consume(_ byte: UInt8) -> Bool {
        guard peek() == byte else { return false }
        index += 1
        return true
    }

    /// Reads a string and returns the byte range of its raw contents (escapes not decoded) and whether it has any.
    ///
    /// Eight bytes at a time while none of them is a quote, a backslash or a control character
    /// (`specialBytes`), then byte by byte from the first that is.
    mutating func stringRange() throws(ProtocolError) -> (range: Range<Int>, escaped: Bool) {
        try expect(UInt8(ascii: "\""))
        let start = index
        var escaped = false
        while true {
            while index + 8 <= bytes.count {
                let word = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self))
                let special = Self.specialBytes(word)
                if special != 0 {
                    index += special.trailingZeroBitCount / 8
                    break
                }
                index += 8
            }
            guard index < bytes.count else { throw fail("unterminated string") }
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                index += 1
                return (start..<(index - 1), escaped)
            }
            if byte == UInt8(ascii: "\\") {
                escaped = true
                index += 2
                continue
            }
            if byte < 0x20 { throw fail("control character in string") }
            index += 1
        }
    }

    /// The high bit of each byte of `word` (little-endian: the lowest byte is the first in memory) that is a quote,
    /// a backslash or below 0x20; zero if there is none.
    ///
    /// Each test subtracts one per byte, so a borrow can mark a byte above (later than) a true match, never below
    /// it: the lowest mark is always a true one, which is all `stringRange` reads. Bytes from 0x80 (UTF-8
    /// sequences) are never marked.
    @inline(__always)
    static func specialBytes(_ word: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        let quotes = word ^ (ones &* UInt64(UInt8(ascii: "\"")))
        let backslashes = word ^ (ones &* UInt64(UInt8(ascii: "\\")))
        let isQuote = (quotes &- ones) & ~quotes
        let isBackslash = (backslashes &- ones) & ~backslashes
        let isControl = (word &- ones &* 0x20) & ~word
        return (isQuote | isBackslash | isControl) & highs
    }

    /// Whether the raw string at `range` equals `literal` (ASCII, no escapes).
    @inline(__always)
    func equals(_ range: Range<Int>, _ literal: StaticString) -> Bool {
        guard range.count == literal.utf8CodeUnitCount else { return false }
        let pointer = literal.utf8Start
        for k in 0..<range.count where bytes[range.lowerBound + k] != pointer[k] { return false }
        return true
    }

    /// Reads a string value, decoding escapes.
    mutating func string() throws(ProtocolError) -> String {
        let (range, escaped) = try stringRange()
        let raw = UnsafeRawBufferPointer(rebasing: bytes[range])
        guard escaped else {
            // ASCII needs no validation (nor `String(validating:)`'s generic metadata lookups, a third of the time of
            // a state file's short strings).
            if raw.allSatisfy({ $0 < 0x80 }) { return String(decoding: raw, as: UTF8.self) }
            guard let text = String(validating: raw, as: UTF8.self) else { throw fail("string is not UTF-8") }
            return text
        }
        var out = [UInt8]()
        var k = 0
        while k < raw.count {
            let byte = raw[k]
            k += 1
            guard byte == UInt8(ascii: "\\") else {
                out.append(byte)
                continue
            }
            guard k < raw.count else { throw fail("bad escape") }
            let code = raw[k]
            k += 1
            switch code {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(code)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "u"):
                func hex4() throws(ProtocolError) -> UInt32 {
                    guard k + 4 <= raw.count else { throw fail("bad \\u escape") }
                    var value: UInt32 = 0
                    for _ in 0..<4 {
                        guard let digit = Self.hex(raw[k]) else { throw fail("bad \\u escape") }
                        value = value << 4 | UInt32(digit)
                        k += 1
                    }
                    return value
                }
                var value = try hex4()
                // A character beyond the first 65,536 comes as two escapes, a surrogate pair (as Python's
                // `json.dumps` writes an emoji): high, then low.
                if (0xD800...0xDBFF).contains(value), k + 2 <= raw.count, raw[k] == UInt8(ascii: "\\"),
                    raw[k + 1] == UInt8(ascii: "u")
                {
                    k += 2
                    let low = try hex4()
                    guard (0xDC00...0xDFFF).contains(low) else { throw fail("\\u escape is a lone surrogate") }
                    value = 0x10000 + ((value - 0xD800) << 10) + (low - 0xDC00)
                }
                guard let scalar = UnicodeScalar(value) else { throw fail("\\u escape is a lone surrogate") }
                out.append(contentsOf: Array(String(Character(scalar)).utf8))
            default: throw fail("bad escape")
            }
        }
        guard let text = String(validating: out, as: UTF8.self) else { throw fail("string is not UTF-8") }
        return text
    }

    static func hex(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// Reads `true` or `false`.
    mutating func bool() throws(ProtocolError) -> Bool {
        if literal("true") { return true }
        if literal("false") { return false }
        throw fail("expected true or false")
    }

    mutating func literal(_ word: StaticString) -> Bool {
        skipWhitespace()
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count else { return false }
        for k in 0..<count where bytes[index + k] != word.utf8Start[k] { return false }
        index += count
        return true
    }

    /// Skips any value, nested at most `maximumDepth` deep; with `finite`, a number beyond a double's range (which
    /// JSON's grammar allows and Foundation's decoder refuses) is an error too.
    mutating func skipValue(depth: Int = 0, finite: Bool = false) throws(ProtocolError) {
        guard depth < Self.maximumDepth else { throw fail("nesting deeper than \(Self.maximumDepth)") }
        switch peek() {
        case UInt8(ascii: "\""): _ = try stringRange()
        case UInt8(ascii: "{"):
            index += 1
            if consume(UInt8(ascii: "}")) { return }
            repeat {
                _ = try stringRange()
                try expect(UInt8(ascii: ":"))
                try skipValue(depth: depth + 1, finite: finite)
            } while consume(UInt8(ascii: ","))
            try expect(UInt8(ascii: "}"))
        case UInt8(ascii: "["):
            index += 1
            if consume(UInt8(ascii: "]")) { return }
            repeat { try skipValue(depth: depth + 1, finite: finite) } while consume(UInt8(ascii: ","))
            try expect(UInt8(ascii: "]"))
        case UInt8(ascii: "t"), UInt8(ascii: "f"): _ = try bool()
        case UInt8(ascii: "n"):
            guard literal("null") else { throw fail("expected null") }
        case .some(UInt8(ascii: "-")), .some(UInt8(ascii: "0")...UInt8(ascii: "9")):
            let start = index
            guard try number().isFinite || !finite else {
                index = start
                throw fail("a number beyond a double's range")
            }
        default:
            // Nothing (the text ended) or a byte no value starts with: "expected a number" would mislead.
            throw fail("expected a value")
        }
    }

    /// Fails unless only whitespace is left.
    mutating func expectEnd() throws(ProtocolError) {
        guard peek() == nil else { throw fail("trailing characters") }
    }
}
