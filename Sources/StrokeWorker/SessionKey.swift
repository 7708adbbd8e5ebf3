/// A session id's bytes, held inline when short (most ids), so that looking a session up reads no other memory.
///
/// Ids of up to 32 bytes live in four machine words, copied in with one `memcpy` and compared with one XOR each;
/// longer ones (up to the protocol's 128) also keep their bytes on the heap. (A `SIMD32<UInt8>` built byte by
/// byte through its subscript compiled to a store and reload of the whole vector per byte: half of the lane's
/// per-message work at 10,000 sessions.)
struct SessionKey {
    static let inlineCapacity = 32

    /// The first 32 bytes, zero-padded.
    private var head = SIMD4<UInt64>()
    private var count: Int32
    /// The whole id, only when it is longer than `inlineCapacity`.
    private var long: [UInt8]?

    init(_ bytes: UnsafeRawBufferPointer) {
        count = Int32(bytes.count)
        head = Self.head(of: bytes)
        long = bytes.count > Self.inlineCapacity ? Array(bytes) : nil
    }

    /// The first 32 bytes of `bytes`, zero-padded.
    @inline(__always)
    static func head(of bytes: UnsafeRawBufferPointer) -> SIMD4<UInt64> {
        if bytes.count >= inlineCapacity {
            return bytes.loadUnaligned(as: SIMD4<UInt64>.self)
        }
        var head = SIMD4<UInt64>()
        if let base = bytes.baseAddress {
            Swift.withUnsafeMutableBytes(of: &head) { $0.baseAddress!.copyMemory(from: base, byteCount: bytes.count) }
        }
        return head
    }

    /// Whether this key is `bytes`, whose head (from `head(of:)`) is given.
    @inline(__always)
    func equals(_ bytes: UnsafeRawBufferPointer, head other: SIMD4<UInt64>) -> Bool {
        let difference = head ^ other
        guard Int(count) == bytes.count, difference[0] | difference[1] | difference[2] | difference[3] == 0 else {
            return false
        }
        guard let long else { return true }
        return long.withUnsafeBytes { $0.elementsEqual(bytes) }
    }

    /// Calls `body` with the id's bytes.
    func withUnsafeBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        if let long { return try long.withUnsafeBytes(body) }
        return try Swift.withUnsafeBytes(of: head) { try body(UnsafeRawBufferPointer(rebasing: $0[0..<Int(count)])) }
    }
}

// MARK: - Hashable

extension SessionKey: Hashable {
    /// Whether two keys hold the same id.
    static func == (a: SessionKey, b: SessionKey) -> Bool {
        b.withUnsafeBytes { a.equals($0, head: SessionKey.head(of: $0)) }
    }

    /// Hashes the id's bytes.
    func hash(into hasher: inout Hasher) {
        withUnsafeBytes { hasher.combine(bytes: $0) }
    }
}
