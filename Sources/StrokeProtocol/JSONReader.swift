/// Reads a JSON document of a shape the caller knows, value by value in one pass over its bytes: for files the
/// worker reads whole (its state file), where `JSONDecoder` builds every value twice.
///
/// As strict as the protocol's own scanner: malformed JSON fails with its byte position, and values skipped
/// (`skipValue()`) may nest at most 32 deep. Numbers are read correctly rounded, integers exactly.
public struct JSONReader {
    private var scanner: JSONScanner

    private init(_ bytes: UnsafeRawBufferPointer) { scanner = JSONScanner(bytes) }

    /// Runs `body` with a reader at the start of `bytes`, then fails unless only whitespace is left after what
    /// it read.
    public static func read<T>(
        _ bytes: UnsafeRawBufferPointer, _ body: (inout JSONReader) throws(ProtocolError) -> T
    ) throws(ProtocolError) -> T {
        var reader = JSONReader(bytes)
        let value = try body(&reader)
        try reader.scanner.expectEnd()
        return value
    }

    /// The byte offset of the next value; set it back to one read before to read that value again.
    public var position: Int {
        get { scanner.index }
        set { scanner.index = newValue }
    }

    /// An error at the current position: `what` was expected or is wrong there.
    public func error(_ what: String) -> ProtocolError { scanner.fail(what) }

    // MARK: - Containers

    /// Reads an object, calling `body` with each key and the reader at its value, which `body` must read or skip.
    public mutating func object(_ body: (String, inout JSONReader) throws(ProtocolError) -> Void) throws(ProtocolError)
    {
        try scanner.expect(UInt8(ascii: "{"))
        if scanner.consume(UInt8(ascii: "}")) { return }
        repeat {
            let key = try scanner.string()
            try scanner.expect(UInt8(ascii: ":"))
            try body(key, &self)
        } while scanner.consume(UInt8(ascii: ","))
        try scanner.expect(UInt8(ascii: "}"))
    }

    /// Reads an array, calling `body` with the reader at each element, which `body` must read or skip.
    public mutating func array(_ body: (inout JSONReader) throws(ProtocolError) -> Void) throws(ProtocolError) {
        try scanner.expect(UInt8(ascii: "["))
        if scanner.consume(UInt8(ascii: "]")) { return }
        repeat { try body(&self) } while scanner.consume(UInt8(ascii: ","))
        try scanner.expect(UInt8(ascii: "]"))
    }

    // MARK: - Values

    /// A string, its escapes decoded.
    public mutating func string() throws(ProtocolError) -> String { try scanner.string() }

    /// A number, correctly rounded.
    public mutating func double() throws(ProtocolError) -> Double { try scanner.number() }

    /// `true` or `false`.
    public mutating func bool() throws(ProtocolError) -> Bool { try scanner.bool() }

    /// An integer of type `T`, exactly: no fraction, no exponent, within `T`'s range.
    public mutating func integer<T: FixedWidthInteger>(_ type: T.Type = T.self) throws(ProtocolError) -> T {
        let (negative, parsed) = try integerParts()
        guard let magnitude = parsed else { throw error("integer out of range \(T.min)...\(T.max)") }
        if !negative, let value = T(exactly: magnitude) { return value }
        // -magnitude, where it fits: two's complement of the magnitude, cut to T's width.
        if negative, magnitude == 0 || (T.isSigned && magnitude <= UInt64(T.min.magnitude)) {
            return T(truncatingIfNeeded: 0 &- magnitude)
        }
        throw error("integer out of range \(T.min)...\(T.max)")
    }

    /// The sign and magnitude of an integer, nil beyond 64 bits (not generic, so that it is compiled once, here).
    private mutating func integerParts() throws(ProtocolError) -> (negative: Bool, magnitude: UInt64?) {
        scanner.skipWhitespace()
        let bytes = scanner.bytes
        var index = scanner.index
        let negative = index < bytes.count && bytes[index] == UInt8(ascii: "-")
        if negative { index += 1 }
        let digitsStart = index
        var magnitude: UInt64 = 0
        var overflow = false
        while index < bytes.count, case let digit = bytes[index] &- UInt8(ascii: "0"), digit < 10 {
            let (times10, o1) = magnitude.multipliedReportingOverflow(by: 10)
            let (next, o2) = times10.addingReportingOverflow(UInt64(digit))
            overflow = overflow || o1 || o2
            magnitude = next
            index += 1
        }
        scanner.index = index
        guard index > digitsStart else { throw error("expected an integer") }
        guard bytes[digitsStart] != UInt8(ascii: "0") || index == digitsStart + 1 else { throw error("leading zero") }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") || bytes[index] | 0x20 == UInt8(ascii: "e") {
            throw error("expected an integer, not a fraction or an exponent")
        }
        return (negative, overflow ? nil : magnitude)
    }

    /// Consumes `null` and returns true if it is next; otherwise reads nothing and returns false.
    public mutating func null() -> Bool { scanner.literal("null") }

    /// Skips any value.
    public mutating func skipValue() throws(ProtocolError) { try scanner.skipValue() }
}

// MARK: - Syntax

extension JSONReader {
    /// Where JSON text went wrong: what the reader expected there and at which byte, line and column.
    public struct SyntaxError: Error, Sendable, Hashable, CustomStringConvertible {
        /// What was expected or wrong there, as the reader says it (`expected ','`, `trailing characters`).
        public var expected: String
        /// The byte offset, from 0.
        public var offset: Int
        /// The line, from 1.
        public var line: Int
        /// The column, from 1, counted in bytes.
        public var column: Int

        /// `expected ',' at line 3, column 7 (byte 41)`.
        public var description: String { "\(expected) at line \(line), column \(column) (byte \(offset))" }
    }

    /// The first place where `bytes` stop being one JSON value (within the reader's nesting limit of 32, and with
    /// every number within a double's range, as Foundation reads them), or nil where they are one: for files that
    /// another reader refused without saying where (Foundation's `JSONDecoder` says only "The given data was not
    /// valid JSON"), so that a person can find the place.
    public static func syntaxError(in bytes: UnsafeRawBufferPointer) -> SyntaxError? {
        var reader = JSONReader(bytes)
        let failure: ProtocolError
        do {
            try reader.scanner.skipValue(finite: true)
            try reader.scanner.expectEnd()
            return nil
        } catch {
            failure = error
        }
        return locate(failure, at: reader.scanner.index, in: bytes)
    }
}
