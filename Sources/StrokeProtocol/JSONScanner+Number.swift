#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension JSONScanner {
    // MARK: - Numbers

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

    /// A number that starts right here, takes the fast path of `number()` and is followed at once by
    /// `terminator`, which is consumed too; the same value as `number()`. `nil`, with the position unchanged, for
    /// anything else (whitespace, a leading zero, an exponent, too many digits, another delimiter), which the
    /// caller then reads with `number()`.
    ///
    /// One pass, with the checks of a fraction and its digits only where there is one: most coordinates and times
    /// are integers (`make profile`, JSON messages of 32 integer points: 23,034 → 21,311 instructions each).
    @inline(__always)
    mutating func plainNumber(followedBy terminator: UInt8) -> Double? {
        let count = bytes.count
        var i = index
        let negative = i < count && bytes[i] == UInt8(ascii: "-")
        if negative { i += 1 }
        let integerStart = i
        var mantissa: UInt64 = 0
        i = digits(from: i, to: count, into: &mantissa)
        let integerDigits = i - integerStart
        guard integerDigits > 0, integerDigits == 1 || bytes[integerStart] != UInt8(ascii: "0"), i < count else {
            return nil
        }
        if bytes[i] == terminator {
            // An integer: exact as a double below 2^53.
            guard integerDigits <= 19, mantissa <= 1 << 53 else { return nil }
            index = i + 1
            let magnitude = Double(mantissa)
            return negative ? -magnitude : magnitude
        }
        guard bytes[i] == UInt8(ascii: ".") else { return nil }
        i += 1
        let fractionStart = i
        i = digits(from: i, to: count, into: &mantissa)
        let fractionDigits = i - fractionStart
        guard fractionDigits > 0, i < count, bytes[i] == terminator, integerDigits + fractionDigits <= 19,
            mantissa <= 1 << 53, fractionDigits <= 22
        else { return nil }
        index = i + 1
        return Self.exact(mantissa, exponent: -fractionDigits, negative: negative)
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
        i = digits(from: i, to: count, into: &mantissa)
        decimal.integerEnd = i
        if i > decimal.integerStart && i < count && bytes[i] == UInt8(ascii: ".") {
            decimal.hasPoint = true
            i += 1
            let fractionStart = i
            i = digits(from: i, to: count, into: &mantissa)
            decimal.fractionDigits = i - fractionStart
        }
        decimal.mantissa = mantissa
        decimal.end = i
        return decimal
    }

    /// Reads the run of decimal digits from `start` (up to `end`, the byte count) into `mantissa` (times ten plus
    /// each digit, wrapping: callers check the digit count); returns where the run ends.
    @inline(__always)
    private func digits(from start: Int, to end: Int, into mantissa: inout UInt64) -> Int {
        var i = start
        while i < end, case let d = bytes[i] &- UInt8(ascii: "0"), d < 10 {
            mantissa = mantissa &* 10 &+ UInt64(d)
            i += 1
        }
        return i
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
}
