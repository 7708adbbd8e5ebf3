/// A session id's bytes, held inline when short (most ids), so that looking a session up reads no other memory.
///
/// Ids of up to 32 bytes live in four machine words, put together from a few loads and compared with one XOR each;
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
    ///
    /// A shorter id's words are put together in registers, each from at most two loads that stay within the id.
    /// Copied into a zeroed vector on the stack and read back, as they were, the id's bytes went in by a call to
    /// `memcpy` and came out 16 at a time: a load that the stores before it cannot forward to, which waits until
    /// they reach the cache (`perf annotate` of the single-point worker: 39% of `SessionTable.prepare`'s samples,
    /// on that load).
    @inline(__always)
    static func head(of bytes: UnsafeRawBufferPointer) -> SIMD4<UInt64> {
        if bytes.count >= inlineCapacity {
            return bytes.loadUnaligned(as: SIMD4<UInt64>.self)
        }
        guard let base = bytes.baseAddress else { return SIMD4() }
        #if _endian(little)
            let count = bytes.count
            return SIMD4(
                word(base, count: count), word(base + 8, count: count - 8), word(base + 16, count: count - 16),
                word(base + 24, count: count - 24))
        #else
            var head = SIMD4<UInt64>()
            Swift.withUnsafeMutableBytes(of: &head) { $0.baseAddress!.copyMemory(from: base, byteCount: bytes.count) }
            return head
        #endif
    }

    /// The 8 bytes at `base` as a little-endian word, of which only the first `count` are read (none at 0 or less)
    /// and the others are zero. Two loads of 4 (or 2) bytes that overlap cover the 5 to 7 (or 2 and 3) there are.
    @inline(__always)
    private static func word(_ base: UnsafeRawPointer, count: Int) -> UInt64 {
        if count >= 8 { return base.loadUnaligned(as: UInt64.self) }
        if count >= 4 {
            let low = UInt64(base.loadUnaligned(as: UInt32.self))
            let high = UInt64(base.loadUnaligned(fromByteOffset: count - 4, as: UInt32.self))
            return low | high << (8 * UInt64(count - 4))
        }
        if count >= 2 {
            let low = UInt64(base.loadUnaligned(as: UInt16.self))
            let high = UInt64(base.loadUnaligned(fromByteOffset: count - 2, as: UInt16.self))
            return low | high << (8 * UInt64(count - 2))
        }
        return count == 1 ? UInt64(base.load(as: UInt8.self)) : 0
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
