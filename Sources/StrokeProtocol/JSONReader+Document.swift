// MARK: - Files people write

extension JSONReader {
    /// The first place where `bytes` stop being one JSON document of the strictness a file that people edit
    /// needs, or nil where they are one: RFC 8259's grammar (no comma after the last element or member, no
    /// comments), every number within a double's range, no key twice in one object, nesting at most 32 deep. A
    /// UTF-8 byte order mark at the start is passed over, as Foundation's `JSONDecoder` passes over it.
    ///
    /// For the files read with `JSONDecoder` (template libraries, the checkmark tuning, strokes files), which
    /// takes a comma after the last element and, of a key given twice, the first value, where Python's `json`
    /// refuses the comma and takes the last value: one file would mean two things. Checked before decoding, the
    /// file means one thing or is refused, with its line and column.
    public static func documentError(in bytes: UnsafeRawBufferPointer) -> SyntaxError? {
        var scanner = JSONScanner(bytes)
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { scanner.index = 3 }
        do {
            try scanner.checkDocumentValue(depth: 0)
            try scanner.expectEnd()
            return nil
        } catch {
            return locate(error, at: scanner.index, in: bytes)
        }
    }

    /// `failure`, which the scanner raised at byte `index` of `bytes`, said at its line and column.
    static func locate(_ failure: ProtocolError, at index: Int, in bytes: UnsafeRawBufferPointer) -> SyntaxError {
        let offset = min(index, bytes.count)
        // The scanner's message ends with " at byte N", which the line and column replace.
        let suffix = " at byte \(index)"
        var expected =
            failure.message.hasSuffix(suffix) ? String(failure.message.dropLast(suffix.count)) : failure.message
        if offset == bytes.count { expected = "the text ends early: \(expected)" }
        let (line, column) = position(of: offset, in: bytes)
        return SyntaxError(expected: expected, offset: offset, line: line, column: column)
    }

    /// The line and column (both from 1, the column counted in bytes) of byte `offset` of `bytes`: the place a
    /// message about JSON text names.
    public static func position(of offset: Int, in bytes: UnsafeRawBufferPointer) -> (line: Int, column: Int) {
        let before = UnsafeRawBufferPointer(rebasing: bytes[..<min(offset, bytes.count)])
        let lineStart = (before.lastIndex(of: UInt8(ascii: "\n")) ?? -1) + 1
        return (before.reduce(1) { $1 == UInt8(ascii: "\n") ? $0 + 1 : $0 }, offset - lineStart + 1)
    }

    /// The byte ranges of the numbers of `bytes`, a JSON text, in order; digits inside a string are not a number.
    public static func numberRanges(in bytes: UnsafeRawBufferPointer) -> [Range<Int>] {
        var ranges = [Range<Int>]()
        var index = 0
        var inString = false
        while index < bytes.count {
            let byte = bytes[index]
            if inString {
                if byte == UInt8(ascii: "\\") {
                    index += 2
                    continue
                }
                if byte == UInt8(ascii: "\"") { inString = false }
                index += 1
            } else if byte == UInt8(ascii: "\"") {
                inString = true
                index += 1
            } else if byte == UInt8(ascii: "-") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) {
                let start = index
                while index < bytes.count, "0123456789.eE+-".utf8.contains(bytes[index]) { index += 1 }
                ranges.append(start..<index)
            } else {
                index += 1
            }
        }
        return ranges
    }
}

extension JSONScanner {
    /// Checks one value as `JSONReader.documentError(in:)` describes; on a key given twice, fails with the index
    /// at that key.
    mutating func checkDocumentValue(depth: Int) throws(ProtocolError) {
        guard depth < Self.maximumDepth else { throw fail("nesting deeper than \(Self.maximumDepth)") }
        switch peek() {
        case UInt8(ascii: "\""): _ = try string()
        case UInt8(ascii: "{"):
            index += 1
            if consume(UInt8(ascii: "}")) { return }
            var keys = Set<String>()
            repeat {
                _ = peek()
                let start = index
                let key = try string()
                guard keys.insert(key).inserted else {
                    index = start
                    throw fail("the key \"\(key)\" a second time in one object")
                }
                try expect(UInt8(ascii: ":"))
                try checkDocumentValue(depth: depth + 1)
            } while try documentComma(before: UInt8(ascii: "}"), "member")
            try expect(UInt8(ascii: "}"))
        case UInt8(ascii: "["):
            index += 1
            if consume(UInt8(ascii: "]")) { return }
            repeat {
                try checkDocumentValue(depth: depth + 1)
            } while try documentComma(before: UInt8(ascii: "]"), "element")
            try expect(UInt8(ascii: "]"))
        default:
            // The rest as a skipped value reads it: literals, and numbers within a double's range.
            try skipValue(depth: depth, finite: true)
        }
    }

    /// Consumes the comma between two members or elements, if it is next; fails at a comma that `closing`, the
    /// container's end, follows (`what`: the kind of item, for the message).
    private mutating func documentComma(before closing: UInt8, _ what: String) throws(ProtocolError) -> Bool {
        guard consume(UInt8(ascii: ",")) else { return false }
        guard peek() != closing else { throw fail("a comma after the last \(what)") }
        return true
    }
}
