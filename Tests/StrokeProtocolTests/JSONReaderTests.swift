import Testing

@testable import StrokeProtocol

@Suite("JSON reader")
struct JSONReaderTests {
    /// Reads `text` with `body`, or gives the error's message.
    static func read<T>(_ text: String, _ body: (inout JSONReader) throws(ProtocolError) -> T) -> Result<
        T, ProtocolError
    > {
        Array(text.utf8).withUnsafeBytes { raw in Result { () throws(ProtocolError) in try JSONReader.read(raw, body) }
        }
    }

    @Test("integers are exact over the whole range of their type, and anything else is refused with why")
    func integers() throws {
        #expect(
            try Self.read(" 18446744073709551615 ") { r throws(ProtocolError) in try r.integer(UInt64.self) }.get()
                == .max)
        #expect(
            try Self.read("-9223372036854775808") { r throws(ProtocolError) in try r.integer(Int64.self) }.get() == .min
        )
        #expect(try Self.read("-0") { r throws(ProtocolError) in try r.integer(UInt8.self) }.get() == 0)
        #expect(try Self.read("127") { r throws(ProtocolError) in try r.integer(Int8.self) }.get() == 127)
        let beyond = Self.read("18446744073709551616") { r throws(ProtocolError) in try r.integer(UInt64.self) }
        #expect(throws: ProtocolError.self, "beyond 64 bits") { try beyond.get() }
        for (text, message) in [
            ("128", "integer out of range -128...127"), ("-129", "integer out of range"), ("1e2", "an exponent"),
            ("1.0", "not a fraction"), ("00", "leading zero"), ("-", "expected an integer"),
            ("x", "expected an integer"),
            ("1 2", "trailing characters"),
        ] {
            let result = Self.read(text) { r throws(ProtocolError) in try r.integer(Int8.self) }
            #expect(throws: ProtocolError.self) { try result.get() }
            if case .failure(let error) = result {
                #expect(error.message.contains(message), "\(text): \(error.message)")
            }
        }
    }

    @Test("objects and arrays are walked key by key and element by element; what is not read is skipped")
    func containers() throws {
        let text = #"{"a": [1, 2.5, -3e1], "skip": {"deep": [null, true, "x"]}, "b": "\u00e9\n", "c": null, "d": {}}"#
        let result = Self.read(text) { reader throws(ProtocolError) in
            var numbers = [Double](), keys = [String](), b = "", cIsNull = false
            try reader.object { key, reader throws(ProtocolError) in
                keys.append(key)
                switch key {
                case "a": try reader.array { reader throws(ProtocolError) in numbers.append(try reader.double()) }
                case "b": b = try reader.string()
                case "c": cIsNull = reader.null()
                case "d": try reader.object { _, _ throws(ProtocolError) in Issue.record("d is empty") }
                default: try reader.skipValue()
                }
            }
            return (numbers, keys, b, cIsNull)
        }
        let (numbers, keys, b, cIsNull) = try result.get()
        #expect(numbers == [1, 2.5, -30] && keys == ["a", "skip", "b", "c", "d"] && b == "é\n" && cIsNull)
        let unread = Self.read(#"{"a": 1}"#) { reader throws(ProtocolError) in
            try reader.object { _, _ throws(ProtocolError) in }
        }
        #expect(throws: ProtocolError.self, "a value left unread is an error, not skipped") { try unread.get() }
    }
}
