#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

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
    mutating func stringRange() throws(ProtocolError) -> (range: Range<Int>, escaped: Bool) {
        try expect(UInt8(ascii: "\""))
        let start = index
        var escaped = false
        while index < bytes.count {
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
        throw fail("unterminated string")
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
                guard k + 4 <= raw.count else { throw fail("bad \\u escape") }
                var value: UInt32 = 0
                for _ in 0..<4 {
                    guard let digit = Self.hex(raw[k]) else { throw fail("bad \\u escape") }
                    value = value << 4 | UInt32(digit)
                    k += 1
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

    /// 10^exponent for 0...22, all exactly representable; a switch of literals compiles to a constant table
    /// (a lazily initialized global would cost a `swift_once` check per number).
    @inline(__always)
    private static func power(_ exponent: Int) -> Double {
        switch exponent {
        case 0: 1e0
        case 1: 1e1
        case 2: 1e2
        case 3: 1e3
        case 4: 1e4
        case 5: 1e5
        case 6: 1e6
        case 7: 1e7
        case 8: 1e8
        case 9: 1e9
        case 10: 1e10
        case 11: 1e11
        case 12: 1e12
        case 13: 1e13
        case 14: 1e14
        case 15: 1e15
        case 16: 1e16
        case 17: 1e17
        case 18: 1e18
        case 19: 1e19
        case 20: 1e20
        case 21: 1e21
        default: 1e22
        }
    }

    /// Reads a number, correctly rounded: by one exact multiplication or division when the digits fit in 53 bits
    /// and the exponent is within ±22 (Clinger's fast path), else by `strtod`.
    mutating func number() throws(ProtocolError) -> Double {
        skipWhitespace()
        let start = index
        let count = bytes.count
        let decimal = self.decimal(at: start)
        let integerDigits = decimal.integerEnd - decimal.integerStart
        guard integerDigits > 0 else { throw failing(at: decimal.integerEnd, "expected a number") }
        if bytes[decimal.integerStart] == UInt8(ascii: "0") && integerDigits > 1 {
            throw failing(at: decimal.integerEnd, "leading zero")
        }
        if decimal.hasPoint && decimal.fractionDigits == 0 {
            throw failing(at: decimal.end, "expected digits after '.'")
        }
        var i = decimal.end
        var exponent = -decimal.fractionDigits
        if i < count && (bytes[i] | 0x20) == UInt8(ascii: "e") {
            i += 1
            var exponentNegative = false
            if i < count && (bytes[i] == UInt8(ascii: "-") || bytes[i] == UInt8(ascii: "+")) {
                exponentNegative = bytes[i] == UInt8(ascii: "-")
                i += 1
            }
            var value = 0
            let exponentStart = i
            while i < count, case let d = bytes[i] &- UInt8(ascii: "0"), d < 10 {
                if value < 100_000 { value = value * 10 + Int(d) }
                i += 1
            }
            guard i > exponentStart else { throw failing(at: i, "expected exponent digits") }
            exponent += exponentNegative ? -value : value
        }
        index = i
        if integerDigits + decimal.fractionDigits <= 19 && decimal.mantissa <= 1 << 53 && abs(exponent) <= 22 {
            return Self.exact(decimal.mantissa, exponent: exponent, negative: decimal.negative)
        }
        return slowNumber(start..<i)
    }

    /// Consumes `byte` if it is the very next byte (no whitespace skipped).
    @inline(__always)
    mutating func take(_ byte: UInt8) -> Bool {
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    /// A number that starts right here and takes the fast path of `number()`, with the same value; `nil`, with
    /// the position unchanged, for anything else (whitespace, a leading zero, an exponent, too many digits),
    /// which the caller then reads with `number()`.
    @inline(__always)
    mutating func plainNumber() -> Double? {
        let decimal = self.decimal(at: index)
        let integerDigits = decimal.integerEnd - decimal.integerStart
        guard integerDigits > 0, integerDigits == 1 || bytes[decimal.integerStart] != UInt8(ascii: "0"),
            !decimal.hasPoint || decimal.fractionDigits > 0,
            decimal.end >= bytes.count || (bytes[decimal.end] | 0x20) != UInt8(ascii: "e"),
            integerDigits + decimal.fractionDigits <= 19, decimal.mantissa <= 1 << 53, decimal.fractionDigits <= 22
        else { return nil }
        index = decimal.end
        return Self.exact(decimal.mantissa, exponent: -decimal.fractionDigits, negative: decimal.negative)
    }

    // MARK: - Number parts

    /// The sign, integer digits and fraction of a number, as `decimal(at:)` reads them.
    private struct Decimal {
        var negative = false
        /// Every digit, integer and fraction; at most 19 of them cannot overflow, and more take the slow path.
        var mantissa: UInt64 = 0
        var integerStart = 0
        var integerEnd = 0
        var hasPoint = false
        var fractionDigits = 0
        /// Where the digits end (an exponent may follow).
        var end = 0
    }

    /// Reads the sign, the integer digits and, if there are any, a point and fraction digits, from `start`.
    ///
    /// The position is kept in a local and not in `index`: there, every digit also stored it to memory (a third
    /// of the time of decoding a point).
    @inline(__always)
    private func decimal(at start: Int) -> Decimal {
        let count = bytes.count
        var decimal = Decimal()
        var i = start
        if i < count && bytes[i] == UInt8(ascii: "-") {
            decimal.negative = true
            i += 1
        }
        var mantissa: UInt64 = 0
        decimal.integerStart = i
        while i < count, case let d = bytes[i] &- UInt8(ascii: "0"), d < 10 {
            mantissa = mantissa &* 10 &+ UInt64(d)
            i += 1
        }
        decimal.integerEnd = i
        if i > decimal.integerStart && i < count && bytes[i] == UInt8(ascii: ".") {
            decimal.hasPoint = true
            i += 1
            let fractionStart = i
            while i < count, case let d = bytes[i] &- UInt8(ascii: "0"), d < 10 {
                mantissa = mantissa &* 10 &+ UInt64(d)
                i += 1
            }
            decimal.fractionDigits = i - fractionStart
        }
        decimal.mantissa = mantissa
        decimal.end = i
        return decimal
    }

    /// `mantissa × 10^exponent`, exact before one rounding: the mantissa fits in 53 bits and the power of ten
    /// (|exponent| ≤ 22) is exact. An integer is not multiplied by 10^0, which would change nothing.
    @inline(__always)
    private static func exact(_ mantissa: UInt64, exponent: Int, negative: Bool) -> Double {
        let magnitude =
            exponent == 0
            ? Double(mantissa)
            : exponent > 0 ? Double(mantissa) * power(exponent) : Double(mantissa) / power(-exponent)
        return negative ? -magnitude : magnitude
    }

    /// The error `fail` makes, at position `position`.
    private mutating func failing(at position: Int, _ what: String) -> ProtocolError {
        index = position
        return fail(what)
    }

    private func slowNumber(_ range: Range<Int>) -> Double {
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: range.count + 1) { buffer in
            for k in 0..<range.count { buffer[k] = CChar(bitPattern: bytes[range.lowerBound + k]) }
            buffer[range.count] = 0
            return strtod(buffer.baseAddress!, nil)
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

    /// Skips any value, nested at most `maximumDepth` deep.
    mutating func skipValue(depth: Int = 0) throws(ProtocolError) {
        guard depth < Self.maximumDepth else { throw fail("nesting deeper than \(Self.maximumDepth)") }
        switch peek() {
        case UInt8(ascii: "\""): _ = try stringRange()
        case UInt8(ascii: "{"):
            index += 1
            if consume(UInt8(ascii: "}")) { return }
            repeat {
                _ = try stringRange()
                try expect(UInt8(ascii: ":"))
                try skipValue(depth: depth + 1)
            } while consume(UInt8(ascii: ","))
            try expect(UInt8(ascii: "}"))
        case UInt8(ascii: "["):
            index += 1
            if consume(UInt8(ascii: "]")) { return }
            repeat { try skipValue(depth: depth + 1) } while consume(UInt8(ascii: ","))
            try expect(UInt8(ascii: "]"))
        case UInt8(ascii: "t"), UInt8(ascii: "f"): _ = try bool()
        case UInt8(ascii: "n"):
            guard literal("null") else { throw fail("expected null") }
        default: _ = try number()
        }
    }

    /// Fails unless only whitespace is left.
    mutating func expectEnd() throws(ProtocolError) {
        guard peek() == nil else { throw fail("trailing characters") }
    }
}
