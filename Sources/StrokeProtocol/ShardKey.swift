/// Shard keys and topics of wire protocol v1.
///
/// An input topic is `<shard key>/<session id>`: the shard key is the session id's bucket, FNV-1a (32-bit) of
/// its UTF-8 bytes modulo 4,096, written as three lowercase hexadecimal digits. Worker `i` of `N` subscribes to
/// every bucket `b` with `b mod N == i`, so the publisher filters out the other workers' sessions.
public enum ShardKey {
    /// Number of buckets.
    public static let bucketCount = 4096
    /// Length of the shard key in bytes.
    public static let length = 3
    /// Longest session id in bytes.
    public static let maximumSessionIDLength = 128

    /// FNV-1a, 32-bit, of `bytes`.
    @inlinable
    public static func fnv1a(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
        var hash: UInt32 = 0x811C_9DC5
        for byte in bytes {
            hash ^= UInt32(byte)
            hash &*= 0x0100_0193
        }
        return hash
    }

    /// The bucket (0–4095) of a session id.
    @inlinable
    public static func bucket(of sessionID: UnsafeRawBufferPointer) -> Int {
        Int(fnv1a(sessionID) % UInt32(bucketCount))
    }

    /// The bucket of a session id given as text.
    public static func bucket(of sessionID: String) -> Int {
        Array(sessionID.utf8).withUnsafeBytes { bucket(of: $0) }
    }

    /// The three-digit shard key of a bucket.
    public static func key(ofBucket bucket: Int) -> String {
        let digits = Array("0123456789abcdef")
        return String([digits[(bucket >> 8) & 0xF], digits[(bucket >> 4) & 0xF], digits[bucket & 0xF]])
    }

    /// The input topic of a session: `<shard key>/<session id>`.
    public static func topic(for sessionID: String) -> String {
        "\(key(ofBucket: bucket(of: sessionID)))/\(sessionID)"
    }

    /// The subscription prefixes of shard `index` of `count`: `["000/", …]`, or `[""]` (everything) for 1 shard.
    public static func subscriptionPrefixes(shard index: Int, of count: Int) -> [String] {
        precondition(count >= 1 && (0..<count).contains(index), "shard \(index)/\(count) is out of range")
        if count == 1 { return [""] }
        return stride(from: index, to: bucketCount, by: count).map { "\(key(ofBucket: $0))/" }
    }

    /// An input topic that passed `check(topic:)`.
    public struct CheckedTopic: Sendable, Hashable {
        /// The session id's byte range within the topic.
        public var sessionID: Range<Int>
        /// FNV-1a (32-bit) of the session id, whose low 12 bits are its bucket.
        public var hash: UInt32

        /// Creates a checked topic (`check(topic:)` does).
        @inlinable
        public init(sessionID: Range<Int>, hash: UInt32) {
            self.sessionID = sessionID
            self.hash = hash
        }
    }

    /// Splits and checks an input topic.
    ///
    /// - Returns: the session id's byte range within `topic`.
    /// - Throws: `.badTopic` when the topic is not `<3 hex digits>/<1–128 bytes of printable UTF-8>`, the session
    ///   id starts with `$` or the shard key is not the session id's bucket.
    @inlinable
    public static func sessionID(inTopic topic: UnsafeRawBufferPointer) throws(ProtocolError) -> Range<Int> {
        try check(topic: topic).sessionID
    }

    /// The session id's byte range in a topic shaped `<3 bytes>/<1–128 bytes>`, or nil for any other shape,
    /// without checking the shard key's digits, its bucket or the id's bytes: `check(topic:)` does, and refuses
    /// every topic this refuses.
    ///
    /// For a reader that has already checked a topic naming the same session under the same first four bytes.
    @inlinable
    public static func sessionIDRange(unchecked topic: UnsafeRawBufferPointer) -> Range<Int>? {
        guard topic.count > length + 1, topic.count - (length + 1) <= maximumSessionIDLength,
            topic[length] == UInt8(ascii: "/")
        else { return nil }
        return (length + 1)..<topic.count
    }

    /// Splits and checks an input topic, as `sessionID(inTopic:)`, and also returns the id's hash.
    ///
    /// - Throws: `.badTopic` as `sessionID(inTopic:)` does.
    @inlinable
    public static func check(topic: UnsafeRawBufferPointer) throws(ProtocolError) -> CheckedTopic {
        guard topic.count > length + 1, topic[length] == UInt8(ascii: "/") else {
            throw ProtocolError(
                .badTopic,
                "topic must be <3 hex digits>/<session id>, got \(topic.count) byte\(topic.count == 1 ? "" : "s")")
        }
        var claimed = 0
        for index in 0..<length {
            guard let digit = hexValue(topic[index]) else {
                throw ProtocolError(.badTopic, "shard key must be 3 lowercase hex digits")
            }
            claimed = claimed << 4 | digit
        }
        let range = (length + 1)..<topic.count
        guard range.count <= maximumSessionIDLength else {
            throw ProtocolError(.badTopic, "session id is \(range.count) bytes; at most \(maximumSessionIDLength)")
        }
        let id = UnsafeRawBufferPointer(rebasing: topic[range])
        // `$` starts the worker's own topics (`$system`): a session named so would publish among them.
        guard id[0] != UInt8(ascii: "$") else {
            throw ProtocolError(.badTopic, "session id must not start with $ (the worker's own topics)")
        }
        // One pass: the bucket's hash, control characters and whether any byte is non-ASCII (then, rarely, a
        // full UTF-8 validation).
        var hash: UInt32 = 0x811C_9DC5
        var control = false
        var union: UInt8 = 0
        for byte in id {
            hash ^= UInt32(byte)
            hash &*= 0x0100_0193
            control = control || byte < 0x20 || byte == 0x7F
            union |= byte
        }
        guard !control, union < 0x80 || String(validating: id, as: UTF8.self) != nil else {
            throw ProtocolError(.badTopic, "session id must be UTF-8 without control characters")
        }
        let actual = Int(hash % UInt32(bucketCount))
        guard actual == claimed else {
            throw ProtocolError(
                .badTopic,
                "shard key \(key(ofBucket: claimed)) does not match the session id (expected \(key(ofBucket: actual)))")
        }
        return CheckedTopic(sessionID: range, hash: hash)
    }

    @inlinable
    static func hexValue(_ byte: UInt8) -> Int? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return Int(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return Int(byte - UInt8(ascii: "a")) + 10
        default: return nil
        }
    }
}
