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

    @Test("where text stops being JSON: what was expected there, at which line, column and byte; nothing for JSON")
    func syntaxErrors() {
        func error(_ text: String) -> JSONReader.SyntaxError? {
            Array(text.utf8).withUnsafeBytes { JSONReader.syntaxError(in: $0) }
        }
        for valid in ["{}", " [1, 2.5, \"x\", null, true, {\"a\": [[]]}] \n", "0"] {
            #expect(error(valid) == nil, "\(valid)")
        }
        #expect(
            error("{\n  \"a\": 1,\n  \"b\" 2\n}")
                == JSONReader.SyntaxError(expected: "expected ':'", offset: 18, line: 3, column: 7))
        #expect(error("[1, 2] x")?.description == "trailing characters at line 1, column 8 (byte 7)")
        #expect(error("[1, 2")?.description == "the text ends early: expected ']' at line 1, column 6 (byte 5)")
        #expect(error("")?.description == "the text ends early: expected a value at line 1, column 1 (byte 0)")
        #expect(error(" \n ")?.expected == "the text ends early: expected a value")
        // A byte no value starts with is "expected a value"; "expected a number" is for a number's own faults.
        #expect(error("[1, @]")?.description == "expected a value at line 1, column 5 (byte 4)")
        #expect(error(#"{"a": }"#)?.expected == "expected a value")
        #expect(error("[-]")?.expected == "expected a number")
        #expect(error("[1, -1e999]")?.description == "a number beyond a double's range at line 1, column 5 (byte 4)")
        let leadingZero = error("[\n01]")
        #expect(leadingZero?.expected == "leading zero" && leadingZero?.line == 2 && leadingZero?.column == 3)
        #expect(
            error(String(repeating: "[", count: 40) + String(repeating: "]", count: 40))?.expected.contains("nesting")
                == true)
    }

    @Test("a file's text: no comma after the last item, no key twice in an object, a byte order mark passed over")
    func documentErrors() {
        func error(_ text: String) -> JSONReader.SyntaxError? {
            Array(text.utf8).withUnsafeBytes { JSONReader.documentError(in: $0) }
        }
        let valid = [
            "{}", "[]", " [1, 2.5, \"x\", null, true, false, {\"a\": [[]], \"b\": {}}] \n", "0", "\"\\u00e9\"",
            "\u{FEFF}{\"a\": 1}", #"{"a": {"a": 1}, "b": [{"a": 1}, {"a": 2}]}"#,
        ]
        for text in valid {
            #expect(error(text) == nil, "\(text)")
        }
        // A comma after the last element or member, at any depth.
        #expect(error("[1, 2,]")?.description == "a comma after the last element at line 1, column 7 (byte 6)")
        #expect(
            error("{\n  \"a\": [1],\n}")
                == JSONReader.SyntaxError(expected: "a comma after the last member", offset: 14, line: 3, column: 1))
        #expect(error(#"{"a": [{"b": [1, 2, ]}]}"#)?.expected == "a comma after the last element")
        #expect(error("[1,,2]")?.offset == 3)
        // A key twice in one object, however it is written, among few keys or many; the same key in two objects
        // is fine.
        #expect(
            error("{\"name\": 1,\n \"name\": 2}")?.description
                == "the key \"name\" a second time in one object at line 2, column 2 (byte 13)")
        #expect(error(#"{"a": 1, "\u0061": 2}"#)?.expected == #"the key "a" a second time in one object"#)
        let keys = (0..<40).map { "\"k\($0)\": \($0)" }
        #expect(error("{" + keys.joined(separator: ", ") + "}") == nil)
        for repeated in [3, 15, 16, 17, 39] {
            let text = "{" + (keys + ["\"k\(repeated)\": 0"]).joined(separator: ", ") + "}"
            #expect(error(text)?.expected == "the key \"k\(repeated)\" a second time in one object", "k\(repeated)")
        }
        // The rest as `syntaxError(in:)` has it: numbers within a double's range, nesting, what follows, escapes.
        #expect(error("[1, -1e999]")?.expected == "a number beyond a double's range")
        #expect(
            error(String(repeating: "[", count: 40) + String(repeating: "]", count: 40))?.expected.contains("nesting")
                == true)
        #expect(error("{} x")?.expected == "trailing characters")
        #expect(error(#"["\x"]"#)?.expected == "bad escape")
        #expect(error("\u{FEFF}")?.expected == "the text ends early: expected a value")
        #expect(error(#"{"a": [1, x]}"#)?.expected == "expected a value")
    }

    @Test("the numbers of a JSON text are found outside its strings, escaped quotes and all")
    func numberRanges() {
        let text = #"{"a\"1": [-1.5e3, 2], "b": "3 \\", "c": 40}"#
        let bytes = Array(text.utf8)
        let numbers = bytes.withUnsafeBytes { JSONReader.numberRanges(in: $0) }.map {
            String(decoding: bytes[$0], as: UTF8.self)
        }
        #expect(numbers == ["-1.5e3", "2", "40"])
    }
}
