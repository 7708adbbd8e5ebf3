/// Writes compact JSON into a reusable byte buffer, without `Foundation` and without allocating once warm.
public struct JSONWriter: Sendable {
    /// The bytes written so far.
    public private(set) var bytes: [UInt8] = []
    private var needsComma = false
    /// Scratch for writes whose bound is over `stackBound`, grown as needed and kept.
    private var large: [UInt8] = []

    /// Creates a writer with some capacity.
    public init(capacity: Int = 512) { bytes.reserveCapacity(capacity) }

    /// Clears the buffer, keeping its capacity.
    public mutating func reset() {
        bytes.removeAll(keepingCapacity: true)
        needsComma = false
    }

    /// `{`
    public mutating func beginObject() { write(bound: JSONCursor.punctuationBound) { $0.beginObject() } }

    /// `}`
    public mutating func endObject() { write(bound: JSONCursor.punctuationBound) { $0.endObject() } }

    /// `[`
    public mutating func beginArray() { write(bound: JSONCursor.punctuationBound) { $0.beginArray() } }

    /// `]`
    public mutating func endArray() { write(bound: JSONCursor.punctuationBound) { $0.endArray() } }

    /// `"key":`
    public mutating func key(_ key: StaticString) {
        write(bound: JSONCursor.keyBound(key.utf8CodeUnitCount)) { $0.key(key) }
    }

    /// `"key":` for a key known only at run time.
    public mutating func keyDynamic(_ key: String) {
        write(bound: JSONCursor.stringBound(key.utf8.count) + 1) { cursor in
            cursor.string(key)
            cursor.colon()
        }
    }

    /// A string value from raw UTF-8, escaped.
    public mutating func string(_ raw: UnsafeRawBufferPointer) {
        write(bound: JSONCursor.stringBound(raw.count)) { $0.string(raw) }
    }

    /// A string value.
    public mutating func string(_ value: String) {
        write(bound: JSONCursor.stringBound(value.utf8.count)) { $0.string(value) }
    }

    /// An integer value.
    public mutating func integer<T: BinaryInteger>(_ value: T) {
        write(bound: JSONCursor.integerBound) { $0.integer(value) }
    }

    /// An object of numbers, its keys sorted, each value as `number(_:decimals:)` writes it.
    public mutating func numbers(_ values: [String: Double], decimals: Int = 6) {
        beginObject()
        for key in values.keys.sorted() {
            keyDynamic(key)
            number(values[key]!, decimals: decimals)
        }
        endObject()
    }

    /// A number with at most `decimals` (0...18) digits after the point (trailing zeros dropped); `null` if not
    /// finite.
    public mutating func number(_ value: Double, decimals: Int = 6) {
        write(bound: JSONCursor.numberBound) { $0.number(value, decimals: decimals) }
    }

    /// A number that reads back as exactly `value`: the fewest digits that do (as Swift's `description`); `null`
    /// if not finite. For data kept and read again (a state file), where `number(_:decimals:)` would round.
    public mutating func exactNumber(_ value: Double) {
        write(bound: JSONCursor.numberBound) { $0.exactNumber(value) }
    }

    /// `true` or `false`.
    public mutating func bool(_ value: Bool) { write(bound: JSONCursor.punctuationBound) { $0.bool(value) } }

    /// `null`
    public mutating func null() { write(bound: JSONCursor.punctuationBound) { $0.null() } }

    // MARK: - Writing in one piece

    /// Runs `body` with a cursor over a scratch buffer of `bound` bytes and appends what it wrote in one piece.
    /// `bound` must cover everything `body` writes: add up the bounds that `JSONCursor`'s methods document.
    ///
    /// The scratch is on the stack up to `stackBound` bytes; above, the writer's own buffer, kept between calls
    /// (`withUnsafeTemporaryAllocation` would call `malloc` for every large event off the main thread).
    @inline(__always)
    mutating func write(bound: Int, _ body: (inout JSONCursor) -> Void) {
        let comma = needsComma
        func run(_ scratch: UnsafeMutablePointer<UInt8>) -> (count: Int, needsComma: Bool) {
            var cursor = JSONCursor(base: scratch, capacity: bound, needsComma: comma)
            body(&cursor)
            return (cursor.count, cursor.needsComma)
        }
        if bound <= Self.stackBound {
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: bound) { scratch in
                let (count, comma) = run(scratch.baseAddress!)
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: scratch[..<count]))
                needsComma = comma
            }
        } else {
            // Taken out of `self` for the call, so that nothing else in `self` is touched while it is borrowed.
            var scratch = large
            large = []
            if scratch.count < bound { scratch = [UInt8](repeating: 0, count: max(bound, 2 * scratch.count)) }
            let (count, comma) = scratch.withUnsafeMutableBufferPointer { run($0.baseAddress!) }
            scratch.withUnsafeBufferPointer { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: $0[..<count])) }
            needsComma = comma
            large = scratch
        }
    }

    /// The largest scratch taken on the stack: what `withUnsafeTemporaryAllocation` keeps there on any thread.
    static let stackBound = 1024
}
