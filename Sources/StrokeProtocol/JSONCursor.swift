/// Writes compact JSON into memory that the caller provides and has sized: `JSONWriter.write(bound:_:)` runs
/// one over a scratch buffer on the stack and appends what it wrote to the writer's bytes in one piece.
///
/// Appending to an array byte by byte checks its uniqueness and capacity for every byte, a runtime call each:
/// a match event took 430 ns that way. Each method's doc comment says the most bytes it writes, from which the
/// caller computes the bound; debug builds check every write against it.
struct JSONCursor {
    private let base: UnsafeMutablePointer<UInt8>
    private let capacity: Int
    /// Bytes written so far.
    private(set) var count = 0
    /// Whether the next value needs a comma before it.
    var needsComma: Bool

    init(base: UnsafeMutablePointer<UInt8>, capacity: Int, needsComma: Bool) {
        self.base = base
        self.capacity = capacity
        self.needsComma = needsComma
    }

    // MARK: - Bounds

    /// The most bytes `string` writes for `byteCount` bytes of UTF-8: every byte escaped as `\u00XX`, a comma and
    /// the quotes.
    static func stringBound(_ byteCount: Int) -> Int { 6 * byteCount + 3 }
    /// The most bytes `key` writes for a key of `byteCount` bytes (keys are never escaped).
    static func keyBound(_ byteCount: Int) -> Int { byteCount + 4 }
    /// The most bytes `integer` writes: a comma, a sign and 20 digits.
    static let integerBound = 22
    /// The most bytes `number` writes: a comma, a sign, 19 digits, the point and at most 18 decimals, or a
    /// comma and a `Double`'s description (at most 24 bytes).
    static let numberBound = 40
    /// The most bytes `beginObject`, `endObject`, `beginArray`, `endArray`, `bool` and `null` write.
    static let punctuationBound = 6

    // MARK: - Values

    /// `{` (2 bytes at most)
    mutating func beginObject() {
        separator()
        put(UInt8(ascii: "{"))
        needsComma = false
    }

    /// `}` (1 byte)
    mutating func endObject() {
        put(UInt8(ascii: "}"))
        needsComma = true
    }

    /// `[` (2 bytes at most)
    mutating func beginArray() {
        separator()
        put(UInt8(ascii: "["))
        needsComma = false
    }

    /// `]` (1 byte)
    mutating func endArray() {
        put(UInt8(ascii: "]"))
        needsComma = true
    }

    /// `"key":` (`keyBound(key.utf8CodeUnitCount)` bytes at most). Inlined, so that each key's length is a
    /// constant where it is written and its copy is a few moves instead of a call to `memcpy`.
    @inline(__always)
    mutating func key(_ key: StaticString) {
        separator()
        put(UInt8(ascii: "\""))
        put(UnsafeRawPointer(key.utf8Start), count: key.utf8CodeUnitCount)
        put(UInt8(ascii: "\""))
        put(UInt8(ascii: ":"))
        needsComma = false
    }

    /// A string value from raw UTF-8, escaped (`stringBound(raw.count)` bytes at most). The bytes up to the first
    /// word of eight that holds one to escape are passed over a word at a time (a session id as a UUID, 36 bytes, in
    /// 4 words and 4 bytes), the rest a byte at a time.
    mutating func string(_ raw: UnsafeRawBufferPointer) {
        separator()
        put(UInt8(ascii: "\""))
        var index = 0
        while raw.count - index >= 8,
            !Self.needsEscape(raw.baseAddress!.loadUnaligned(fromByteOffset: index, as: UInt64.self))
        {
            index += 8
        }
        var clean = 0  // the start of the bytes not yet copied, which need no escape
        for index in index..<raw.count {
            let byte = raw[index]
            guard byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte < 0x20 else { continue }
            put(raw.baseAddress! + clean, count: index - clean)
            clean = index + 1
            put(UInt8(ascii: "\\"))
            if byte < 0x20 {
                let hex: StaticString = "0123456789abcdef"
                put(UInt8(ascii: "u"))
                put(UInt8(ascii: "0"))
                put(UInt8(ascii: "0"))
                put(hex.utf8Start[Int(byte >> 4)])
                put(hex.utf8Start[Int(byte & 0xF)])
            } else {
                put(byte)
            }
        }
        if raw.count > clean { put(raw.baseAddress! + clean, count: raw.count - clean) }
        put(UInt8(ascii: "\""))
        needsComma = true
    }

    /// Whether any of the eight bytes of `word` needs an escape in a JSON string: a quote, a backslash or a
    /// control character. Each test is the "has a zero byte" (or "has a byte below n") bit trick, which is exact
    /// about whether there is one.
    @inline(__always)
    static func needsEscape(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let quote = word ^ (ones &* 0x22)
        let backslash = word ^ (ones &* 0x5C)
        let control = (word &- ones &* 0x20) & ~word
        let quoteZero = (quote &- ones) & ~quote
        let backslashZero = (backslash &- ones) & ~backslash
        return (control | quoteZero | backslashZero) & (ones &* 0x80) != 0
    }

    /// A string value that needs no escape, such as an event's name, copied as it is (`stringBound` of its length
    /// at most).
    @inline(__always)
    mutating func plainString(_ value: StaticString) {
        assert(
            UnsafeRawBufferPointer(start: value.utf8Start, count: value.utf8CodeUnitCount).allSatisfy {
                $0 >= 0x20 && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\")
            }, "JSONCursor: \(value) needs an escape")
        separator()
        put(UInt8(ascii: "\""))
        put(UnsafeRawPointer(value.utf8Start), count: value.utf8CodeUnitCount)
        put(UInt8(ascii: "\""))
        needsComma = true
    }

    /// A string value, escaped (`stringBound(value.utf8.count)` bytes at most).
    mutating func string(_ value: String) {
        let done: Void? = value.utf8.withContiguousStorageIfAvailable { string(UnsafeRawBufferPointer($0)) }
        if done == nil { Array(value.utf8).withUnsafeBytes { string($0) } }
    }

    /// An integer value (`integerBound` bytes at most).
    mutating func integer<T: BinaryInteger>(_ value: T) {
        separator()
        digits(value)
        needsComma = true
    }

    /// A number with at most `decimals` (0...18) digits after the point, trailing zeros dropped; `null` if not
    /// finite (`numberBound` bytes at most).
    ///
    /// The events' 4 decimals (scores, bounds) and 1 (rotations) are written with their power of ten a constant,
    /// which turns the two divisions by it into multiplications.
    mutating func number(_ value: Double, decimals: Int) {
        switch decimals {
        case 4: number(value, decimals: 4, divisor: 10_000)
        case 1: number(value, decimals: 1, divisor: 10)
        default:
            var divisor: UInt64 = 1
            for _ in 0..<decimals { divisor &*= 10 }
            number(value, decimals: decimals, divisor: divisor)
        }
    }

    /// `number(_:decimals:)`, with `divisor` = 10^`decimals`.
    @inline(__always)
    private mutating func number(_ value: Double, decimals: Int, divisor: UInt64) {
        separator()
        needsComma = true
        guard value.isFinite else {
            put("null")
            return
        }
        // A power of ten up to 10^18 is exact as a `Double`, as the product of `decimals` tens is.
        let scaled = abs(value) * Double(divisor)
        // From 2^53 on every `Double` is an integer, so the bound holds before rounding exactly where it holds
        // after.
        guard scaled < 9e18 else {
            var text = "\(value)"
            text.withUTF8 { put(UnsafeRawPointer($0.baseAddress!), count: $0.count) }
            return
        }
        // Rounded half away from zero, as `rounded()` rounds, without its call into libm: the truncation is
        // exact, and so is what it leaves (the two are within a factor of two, or the truncation is 0).
        var units = UInt64(scaled)
        if scaled - Double(units) >= 0.5 { units += 1 }
        if value < 0 && units != 0 { put(UInt8(ascii: "-")) }
        digits(units / divisor)
        var fraction = units % divisor
        guard fraction != 0 else { return }
        put(UInt8(ascii: "."))
        var length = decimals
        while fraction % 10 == 0 {
            fraction /= 10
            length -= 1
        }
        // `fraction < 10^length`: written with its leading zeros.
        reserve(length)
        write(fraction, length: length)
        count += length
    }

    /// A finite number in the fewest digits that read back as exactly `value` (Swift's `description`, which is
    /// JSON's syntax for finite values), or `null` (`numberBound` bytes at most).
    mutating func exactNumber(_ value: Double) {
        separator()
        needsComma = true
        guard value.isFinite else {
            put("null")
            return
        }
        var text = value.description
        text.withUTF8 { put(UnsafeRawPointer($0.baseAddress!), count: $0.count) }
    }

    /// `true` or `false` (6 bytes at most).
    mutating func bool(_ value: Bool) {
        separator()
        put(value ? "true" : "false")
        needsComma = true
    }

    /// `null` (5 bytes at most).
    mutating func null() {
        separator()
        put("null")
        needsComma = true
    }

    /// A `:` after a key written as a string (1 byte).
    mutating func colon() {
        put(UInt8(ascii: ":"))
        needsComma = false
    }

    // MARK: - Bytes

    private mutating func separator() {
        if needsComma { put(UInt8(ascii: ",")) }
    }

    /// The sign and decimal digits of `value`.
    @inline(__always)
    private mutating func digits<T: BinaryInteger>(_ value: T) {
        if value < 0 { put(UInt8(ascii: "-")) }
        digits(UInt64(value.magnitude))
    }

    /// The decimal digits of `magnitude`.
    private mutating func digits(_ magnitude: UInt64) {
        var length = 1
        var limit: UInt64 = 10
        while length < 20 && magnitude >= limit {
            length += 1
            limit &*= 10
        }
        reserve(length)
        write(magnitude, length: length)
        count += length
    }

    /// "00" to "99": digits are written two at a time, which halves the divisions.
    private static let digitPairs: StaticString = """
        0001020304050607080910111213141516171819\
        2021222324252627282930313233343536373839\
        4041424344454647484950515253545556575859\
        6061626364656667686970717273747576777879\
        8081828384858687888990919293949596979899
        """

    /// Writes the last `length` decimal digits of `value`, leading zeros included, at `count`, right to left
    /// (`count` is left as it was).
    @inline(__always)
    private func write(_ value: UInt64, length: Int) {
        let pairs = Self.digitPairs.utf8Start
        var value = value
        var position = count + length
        while position - count >= 2 {
            let pair = Int(truncatingIfNeeded: value % 100) &* 2
            value /= 100
            position -= 2
            base[position] = pairs[pair]
            base[position + 1] = pairs[pair + 1]
        }
        if position > count { base[count] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: value % 10) }
    }

    @inline(__always)
    private func reserve(_ byteCount: Int) {
        assert(count + byteCount <= capacity, "JSONCursor: the bound \(capacity) is too small")
    }

    @inline(__always)
    private mutating func put(_ byte: UInt8) {
        reserve(1)
        base[count] = byte
        count += 1
    }

    @inline(__always)
    private mutating func put(_ source: UnsafeRawPointer, count byteCount: Int) {
        reserve(byteCount)
        UnsafeMutableRawPointer(base + count).copyMemory(from: source, byteCount: byteCount)
        count += byteCount
    }

    @inline(__always)
    private mutating func put(_ literal: StaticString) {
        put(UnsafeRawPointer(literal.utf8Start), count: literal.utf8CodeUnitCount)
    }
}
