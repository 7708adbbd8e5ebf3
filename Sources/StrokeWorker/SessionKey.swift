/// A session id's bytes, held inline when short (most ids), so that looking a session up reads no other memory.
///
/// Ids of up to 32 bytes live in a SIMD vector and compare in one vector comparison; longer ones (up to the
/// protocol's 128) also keep their bytes on the heap.
struct SessionKey {
    static let inlineCapacity = 32

    /// The first 32 bytes, zero-padded.
    private var head = SIMD32<UInt8>()
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
    static func head(of bytes: UnsafeRawBufferPointer) -> SIMD32<UInt8> {
        if bytes.count >= inlineCapacity {
            return bytes.loadUnaligned(as: SIMD32<UInt8>.self)
        }
        var head = SIMD32<UInt8>()
        for index in 0..<bytes.count { head[index] = bytes[index] }
        return head
    }

    /// Whether this key is `bytes`, whose head (from `head(of:)`) is given.
    @inline(__always)
    func equals(_ bytes: UnsafeRawBufferPointer, head other: SIMD32<UInt8>) -> Bool {
        guard Int(count) == bytes.count, head == other else { return false }
        guard let long else { return true }
        return long.withUnsafeBytes { $0.elementsEqual(bytes) }
    }

    /// Calls `body` with the id's bytes.
    func withUnsafeBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        if let long { return try long.withUnsafeBytes(body) }
        return try Swift.withUnsafeBytes(of: head) { try body(UnsafeRawBufferPointer(rebasing: $0[0..<Int(count)])) }
    }
}
