/// Writes compact JSON into a reusable byte buffer, without `Foundation` and without allocating once warm.
public struct JSONWriter: Sendable {
    /// The bytes written so far.
    public private(set) var bytes: [UInt8] = []
    private var needsComma = false

    /// Creates a writer with some capacity.
    public init(capacity: Int = 512) { bytes.reserveCapacity(capacity) }

    /// Clears the buffer, keeping its capacity.
    public mutating func reset() {
        bytes.removeAll(keepingCapacity: true)
        needsComma = false
    }

    /// `{`
    public mutating func beginObject() {
        separator()
        bytes.append(UInt8(ascii: "{"))
        needsComma = false
    }

    /// `}`
    public mutating func endObject() {
        bytes.append(UInt8(ascii: "}"))
        needsComma = true
    }

    /// `[`
    public mutating func beginArray() {
        separator()
        bytes.append(UInt8(ascii: "["))
        needsComma = false
    }

    /// `]`
    public mutating func endArray() {
        bytes.append(UInt8(ascii: "]"))
        needsComma = true
    }

    /// `"key":`
    public mutating func key(_ key: StaticString) {
        separator()
        bytes.append(UInt8(ascii: "\""))
        bytes.append(contentsOf: UnsafeBufferPointer(start: key.utf8Start, count: key.utf8CodeUnitCount))
        bytes.append(contentsOf: [UInt8(ascii: "\""), UInt8(ascii: ":")])
        needsComma = false
    }

    /// `"key":` for a key known only at run time.
    public mutating func keyDynamic(_ key: String) {
        string(key)
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
    }

    /// A string value from raw UTF-8, escaped.
    public mutating func string(_ raw: UnsafeRawBufferPointer) {
        separator()
        bytes.append(UInt8(ascii: "\""))
        for byte in raw {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                bytes.append(UInt8(ascii: "\\"))
                bytes.append(byte)
            case 0..<0x20:
                let hex: [UInt8] = Array("0123456789abcdef".utf8)
                bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), 0x30, 0x30])
                bytes.append(hex[Int(byte >> 4)])
                bytes.append(hex[Int(byte & 0xF)])
            default:
                bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
        needsComma = true
    }

    /// A string value.
    public mutating func string(_ value: String) {
        var value = value
        value.withUTF8 { string(UnsafeRawBufferPointer($0)) }
    }

    /// An integer value.
    public mutating func integer<T: BinaryInteger>(_ value: T) {
        separator()
        appendDigits(value)
        needsComma = true
    }

    /// A number with at most `decimals` digits after the point (trailing zeros dropped); `null` if not finite.
    public mutating func number(_ value: Double, decimals: Int = 6) {
        separator()
        needsComma = true
        guard value.isFinite else {
            bytes.append(contentsOf: Array("null".utf8))
            return
        }
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        let scaled = (abs(value) * scale).rounded()
        guard scaled < 9e18 else {
            bytes.append(contentsOf: Array("\(value)".utf8))
            return
        }
        var units = UInt64(scaled)
        if value < 0 && units != 0 { bytes.append(UInt8(ascii: "-")) }
        let divisor = UInt64(scale)
        appendDigits(units / divisor)
        units %= divisor
        guard units != 0 else { return }
        bytes.append(UInt8(ascii: "."))
        var digits = decimals
        while units % 10 == 0 {
            units /= 10
            digits -= 1
        }
        var power: UInt64 = 1
        for _ in 1..<max(digits, 1) { power *= 10 }
        while power > 0 {
            bytes.append(UInt8(ascii: "0") + UInt8(units / power % 10))
            power /= 10
        }
    }

    /// `true` or `false`.
    public mutating func bool(_ value: Bool) {
        separator()
        bytes.append(contentsOf: value ? Array("true".utf8) : Array("false".utf8))
        needsComma = true
    }

    /// `null`
    public mutating func null() {
        separator()
        bytes.append(contentsOf: [0x6E, 0x75, 0x6C, 0x6C])
        needsComma = true
    }

    private mutating func separator() {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
    }

    private mutating func appendDigits<T: BinaryInteger>(_ value: T) {
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        var magnitude = UInt64(value.magnitude)
        if magnitude == 0 {
            bytes.append(UInt8(ascii: "0"))
            return
        }
        var power: UInt64 = 1
        while magnitude / power >= 10 { power *= 10 }
        while power > 0 {
            bytes.append(UInt8(ascii: "0") + UInt8(magnitude / power % 10))
            magnitude %= power
            power /= 10
        }
    }
}
