// MARK: - The number of a refused message

extension InputDecoder {
    /// The `seq` of a payload that `decode(_:into:)` refused, where the refusal left it readable and it belongs to
    /// the session's numbering (Protocol/README.md, section 5); nil for anything else.
    ///
    /// Readable are a binary message of version 1 with the 8 bytes up to its `seq`, and a well-formed JSON object
    /// with a valid `seq`, no `v` but 1, whose `type` is not `ping` (a ping is outside the numbering). Only for
    /// refused messages: it reads the payload again.
    public static func sequence(ofRefused payload: UnsafeRawBufferPointer) -> UInt32? {
        guard let first = payload.first else { return nil }
        if first == BinaryCodec.magic {
            guard payload.count >= 8, payload[1] == BinaryCodec.version else { return nil }
            return UInt32(littleEndian: payload.loadUnaligned(fromByteOffset: 4, as: UInt32.self))
        }
        return JSONInputDecoder.sequence(ofRefused: payload)
    }
}

extension JSONInputDecoder {
    /// The `seq` of a JSON message `decode` refused (`InputDecoder.sequence(ofRefused:)`): the last one, as in
    /// `decode`.
    static func sequence(ofRefused bytes: UnsafeRawBufferPointer) -> UInt32? {
        var scanner = JSONScanner(bytes)
        var sequence: UInt32?
        do throws(ProtocolError) {
            try scanner.expect(UInt8(ascii: "{"))
            if scanner.consume(UInt8(ascii: "}")) { return nil }
            repeat {
                let (key, _) = try scanner.stringRange()
                try scanner.expect(UInt8(ascii: ":"))
                if scanner.equals(key, "seq") {
                    sequence = UInt32(try integer(&scanner, field: "seq", maximum: Double(UInt32.max)))
                } else if scanner.equals(key, "v") {
                    guard try integer(&scanner, field: "v", maximum: 255) == 1 else { return nil }
                } else if scanner.equals(key, "type"), scanner.peek() == UInt8(ascii: "\"") {
                    let (type, _) = try scanner.stringRange()
                    if scanner.equals(type, "ping") { return nil }
                } else {
                    try scanner.skipValue(depth: 1)
                }
            } while scanner.consume(UInt8(ascii: ","))
            try scanner.expect(UInt8(ascii: "}"))
            try scanner.expectEnd()
        } catch {
            return nil
        }
        return sequence
    }
}
