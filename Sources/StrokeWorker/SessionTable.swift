import CCPUFeatures
import StrokeProtocol

/// The sessions of one lane, keyed by the session id's bytes, with lookups that allocate nothing.
///
/// Open addressing with linear probing over slots that hold `(hash, index)`; sessions live in a dense array
/// (removed ones are swapped with the last), so iterating for idle eviction is a linear scan.
struct SessionTable {
    private(set) var sessions: [Session] = []
    /// Each slot holds the session's index (-1 empty, -2 deleted) and hash side by side: one cache line read
    /// per probe.
    private var slots: [Slot]
    private var used = 0  // occupied + deleted slots

    private struct Slot {
        var hash: UInt64 = 0
        var index: Int32 = -1
    }

    init(capacity: Int = 1024) {
        var size = 16
        while size < capacity * 2 { size <<= 1 }
        slots = Array(repeating: Slot(), count: size)
    }

    var count: Int { sessions.count }

    /// Two secrets drawn per table and mixed into every hash: without them, ids chosen to land on the same slots
    /// would chain every lookup through all of them.
    private let seed = (UInt64.random(in: .min ... .max), UInt64.random(in: .min ... .max))
    /// Where a session's first stroke's storage reference lies within the session (`prefetchStrokeHeader`), kept here
    /// so that the hot path reads no lazily initialized global.
    private let firstStorageOffset =
        MemoryLayout<Session>.offset(of: \Session.strokes)! + OpenStrokes.firstStorageOffset

    /// The table hash of a session id.
    @inline(__always)
    func hash(_ key: UnsafeRawBufferPointer) -> UInt64 { hash(key, head: SessionKey.head(of: key)) }

    /// The table hash of a session id whose head (`SessionKey.head(of:)`) is given.
    ///
    /// Sixteen bytes at a time, each pair of words multiplied into 128 bits and folded, with a secret in every
    /// product, so that no word an id can choose cancels one out; then the length, which tells `x` from `x\0`.
    /// Three multiplications for an id of up to 32 bytes, against a dependent multiply per byte for the topic's
    /// FNV-1a (6% of the lane's time with single points, which a known session no longer computes). It is not a
    /// keyed pseudorandom function (as SipHash is): it keeps ids from aiming at slots without knowing the
    /// secrets, not a determined cryptanalyst.
    @inline(__always)
    func hash(_ key: UnsafeRawBufferPointer, head: SIMD4<UInt64>) -> UInt64 {
        var state = Self.fold(head[0] ^ seed.0, head[1] ^ seed.1)
        state = Self.fold(head[2] ^ seed.0, head[3] ^ state)
        if key.count > SessionKey.inlineCapacity { state = hashTail(key, state: state) }
        return Self.fold(state ^ seed.1, UInt64(key.count) ^ 0x9E37_79B9_7F4A_7C15)
    }

    /// Folds in the bytes of a long id past its head, sixteen at a time, zero-padded.
    private func hashTail(_ key: UnsafeRawBufferPointer, state start: UInt64) -> UInt64 {
        var state = start
        var offset = SessionKey.inlineCapacity
        while offset < key.count {
            var words = SIMD2<UInt64>()
            let chunk = min(16, key.count - offset)
            withUnsafeMutableBytes(of: &words) {
                $0.copyMemory(from: UnsafeRawBufferPointer(rebasing: key[offset..<offset + chunk]))
            }
            state = Self.fold(words[0] ^ seed.0, words[1] ^ state)
            offset += chunk
        }
        return state
    }

    /// The high and low halves of the 128-bit product, XORed.
    @inline(__always)
    private static func fold(_ a: UInt64, _ b: UInt64) -> UInt64 {
        let product = a.multipliedFullWidth(by: b)
        return product.high ^ product.low
    }

    /// The index of the session with `key`, if any.
    @inline(__always)
    func find(_ key: UnsafeRawBufferPointer, hash: UInt64) -> Int? {
        find(key, hash: hash, head: SessionKey.head(of: key))
    }

    /// The index of the session with `key`, whose head (`SessionKey.head(of:)`) is given, if any.
    @inline(__always)
    func find(_ key: UnsafeRawBufferPointer, hash: UInt64, head: SIMD4<UInt64>) -> Int? {
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: hash) & mask
        while true {
            let entry = slots[slot]
            if entry.index == -1 { return nil }
            if entry.index >= 0 && entry.hash == hash {
                let candidate = Int(entry.index)
                if sessions[candidate].key.equals(key, head: head) { return candidate }
            }
            slot = (slot + 1) & mask
        }
    }

    /// Adds a session (the key must not be present) and returns its index.
    mutating func insert(_ session: Session) -> Int {
        if (used + 1) * 4 > slots.count * 3 {
            rehash(to: sessions.count * 4 > slots.count ? slots.count * 2 : slots.count)
        }
        let index = sessions.count
        sessions.append(session)
        place(index: index, hash: session.hash)
        used += 1
        return index
    }

    /// Removes the session at `index`; the last session moves into its place.
    mutating func remove(at index: Int) {
        let removedHash = sessions[index].hash
        let lastIndex = sessions.count - 1
        setSlot(ofIndex: index, hash: removedHash, to: -2)
        if index != lastIndex {
            let movedHash = sessions[lastIndex].hash
            setSlot(ofIndex: lastIndex, hash: movedHash, to: Int32(index))
            sessions.swapAt(index, lastIndex)
        }
        sessions.removeLast()
    }

    /// Access to a session in place.
    @inline(__always)
    subscript(index: Int) -> Session {
        get { sessions[index] }
        _modify { yield &sessions[index] }
    }

    /// The first four bytes of the topic session `index` began under (`Session.shardKey`), read in place.
    @inline(__always)
    func shardKey(at index: Int) -> UInt32 { sessions[index].shardKey }

    private mutating func setSlot(ofIndex index: Int, hash: UInt64, to value: Int32) {
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: hash) & mask
        while slots[slot].index != Int32(index) { slot = (slot + 1) & mask }
        slots[slot].index = value
    }

    private mutating func place(index: Int, hash: UInt64) {
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: hash) & mask
        while slots[slot].index >= 0 { slot = (slot + 1) & mask }
        slots[slot] = Slot(hash: hash, index: Int32(index))
    }

    private mutating func rehash(to size: Int) {
        slots = Array(repeating: Slot(), count: size)
        for (index, session) in sessions.enumerated() { place(index: index, hash: session.hash) }
        used = sessions.count
    }

    // MARK: - Prefetching

    /// Slots of a probe that `prepare` reads ahead, from the home slot on (16 bytes each: the home slot's line and
    /// at most the next, the two lines `prefetchSlot` asks for). At 10,000 sessions (load 0.61) 70% of the
    /// sessions sit in their home slot and 94% within three slots of it
    /// (`stroke-bench --only processor`, single points); reading the home slot alone left 30% of the messages
    /// without their session fetched ahead.
    static let prefetchProbe = 4

    /// Asks for the first `prefetchProbe` slots of the probe of `hash` to be fetched: the first pass of `prepare`.
    @inline(__always)
    func prefetchSlot(hash: UInt64) {
        slots.withUnsafeBufferPointer {
            let mask = $0.count - 1
            let home = Int(truncatingIfNeeded: hash) & mask
            stroke_prefetch($0.baseAddress! + home)
            stroke_prefetch($0.baseAddress! + ((home + Self.prefetchProbe - 1) & mask))
        }
    }

    /// Reads the first `prefetchProbe` slots of the probe of `hash` (fetched by `prefetchSlot`) and, if one holds a
    /// session with that hash, asks for the session to be fetched; returns its index, or -1 (no session, or it
    /// sits further along the probe).
    @inline(__always)
    func prefetchSession(hash: UInt64) -> Int32 {
        let index = slots.withUnsafeBufferPointer { slots -> Int32 in
            let mask = slots.count - 1
            var slot = Int(truncatingIfNeeded: hash) & mask
            for _ in 0..<Self.prefetchProbe {
                let entry = slots[slot]
                if entry.index == -1 { return -1 }
                if entry.index >= 0, entry.hash == hash { return entry.index }
                slot = (slot + 1) & mask
            }
            return -1
        }
        guard index >= 0, Int(index) < sessions.count else { return -1 }
        sessions.withUnsafeBufferPointer { sessions in
            let start = UnsafeRawPointer(sessions.baseAddress! + Int(index))
            stroke_prefetch(start)
            stroke_prefetch(start + MemoryLayout<Session>.size - 1)
        }
        return index
    }

    /// Asks for the storage header of session `index`'s first open stroke (from `prefetchSession`) to be fetched.
    @inline(__always)
    func prefetchStrokeHeader(at index: Int32) {
        sessions.withUnsafeBufferPointer { sessions in
            OpenStrokes.prefetchFirstHeader(
                storageAt: UnsafeRawPointer(sessions.baseAddress! + Int(index)) + firstStorageOffset)
        }
    }

    /// Once that header has arrived, asks for where the stroke's next points and resampled points go.
    ///
    /// The storage is reached through its reference's bits, as `prefetchStrokeHeader` reaches it, and used
    /// without being retained: reading the session's strokes retained and released the storage and the array of
    /// further strokes, four atomic operations per message, each of which waited for the line just asked for
    /// (1,868 → 1,757 instructions per single point at 10,000 sessions, `scripts/profile.sh binary-1 10000`).
    @inline(__always)
    func prefetchStrokeTail(at index: Int32) {
        sessions.withUnsafeBufferPointer { sessions in
            OpenStrokes.prefetchFirstTail(
                storageAt: UnsafeRawPointer(sessions.baseAddress! + Int(index)) + firstStorageOffset)
        }
    }
}
