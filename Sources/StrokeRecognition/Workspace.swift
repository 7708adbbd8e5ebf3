#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Scratch memory for the matcher: one buffer per thread, kept between recognitions.
///
/// `withUnsafeTemporaryAllocation` keeps at most 1,024 bytes on the stack of a thread other than the main one and
/// takes anything larger from `malloc`; a recognition needs about 12 KB with the default tuning (its shortlist's
/// similarities and the DTW's lanes). Each thread that recognizes keeps a buffer of its own instead, grown as
/// needed and freed when the thread exits. A call made while its thread's buffer is in use gets memory of its own.
enum Workspace {
    /// Calls `body` with at least `byteCount` bytes, aligned to 64, valid until `body` returns.
    static func with<Result>(byteCount: Int, _ body: (UnsafeMutableRawPointer) -> Result) -> Result {
        let buffer = Buffer.current
        guard !buffer.inUse else {
            let memory = UnsafeMutableRawPointer.allocate(byteCount: byteCount, alignment: Buffer.alignment)
            defer { memory.deallocate() }
            return body(memory)
        }
        buffer.reserve(byteCount)
        buffer.inUse = true
        defer { buffer.inUse = false }
        return body(buffer.base!)
    }

    /// A thread's buffer, owned through its thread-specific slot.
    private final class Buffer {
        static let alignment = 64
        var base: UnsafeMutableRawPointer?
        var capacity = 0
        var inUse = false

        deinit { base?.deallocate() }

        /// Grows the buffer (at least doubling) to hold `byteCount` bytes; the contents are not kept.
        func reserve(_ byteCount: Int) {
            guard capacity < byteCount else { return }
            base?.deallocate()
            capacity = max(byteCount, 2 * capacity, 4096)
            base = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: Self.alignment)
        }

        /// The calling thread's buffer, created on first use.
        static var current: Buffer {
            if let raw = pthread_getspecific(key) { return Unmanaged<Buffer>.fromOpaque(raw).takeUnretainedValue() }
            let buffer = Buffer()
            pthread_setspecific(key, Unmanaged.passRetained(buffer).toOpaque())
            return buffer
        }

        /// The thread-specific slot; its destructor releases a thread's buffer when the thread exits.
        private static let key: pthread_key_t = {
            var key = pthread_key_t()
            let status = pthread_key_create(&key) { raw in
                #if canImport(Darwin)
                    Unmanaged<Buffer>.fromOpaque(raw).release()
                #else
                    if let raw { Unmanaged<Buffer>.fromOpaque(raw).release() }
                #endif
            }
            precondition(status == 0, "pthread_key_create failed: \(status)")
            return key
        }()
    }
}
