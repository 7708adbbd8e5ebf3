import StrokeRecognition

/// A stroke being drawn: its points so far and its checkmark detector, both in `storage`.
struct OpenStroke {
    var id: UInt32
    var pointer: UInt16
    /// Whether the checkmark detector runs for this stroke (the session's option).
    var detecting: Bool
    /// Set when the stroke passed the per-stroke point limit: its points are dropped and it ends without a match.
    var overflowed = false
    /// Points and detector in one allocation (pooled with the stroke). The detector is kept even when not
    /// detecting, so that the hot loop never tests an optional.
    var storage: StrokeStorage

    /// A stroke whose detector starts as `detector` (a fresh state: copies share its tuning object).
    init(id: UInt32, pointer: UInt16, detecting: Bool, detector: CheckmarkDetector.State) {
        self.id = id
        self.pointer = pointer
        self.detecting = detecting
        self.storage = StrokeStorage.make(pointCapacity: StrokeStorage.initialPointCapacity, detector: detector)
    }

    /// Points received so far (kept).
    var pointCount: Int { storage.pointCount }
}

/// The open strokes of a session, in the order they began: the first inline, the others (multi-touch) in an
/// array.
///
/// A session usually draws one stroke at a time. Inline, that stroke sits beside the session's other state, so a
/// message reaches it without following a pointer into another allocation: at 10,000 sessions, one cache miss
/// fewer per message. Idle sessions pay its 16 bytes and no allocation.
struct OpenStrokes {
    private var first: OpenStroke?
    /// Strokes after the first; empty whenever `first` is nil.
    private var rest: [OpenStroke] = []

    init() {}

    /// Number of open strokes.
    var count: Int { first == nil ? 0 : 1 + rest.count }

    /// The position of the stroke `id`, if it is open (a plain loop: strokes are not copied to be compared).
    @inline(__always)
    func index(of id: UInt32) -> Int? {
        guard let firstID = first?.id else { return nil }
        if firstID == id { return 0 }
        var index = 0
        while index < rest.count {
            if rest[index].id == id { return index + 1 }
            index += 1
        }
        return nil
    }

    /// The stroke at `index` (0 is the oldest).
    subscript(index: Int) -> OpenStroke {
        @inline(__always) _read {
            if index == 0 { yield first! } else { yield rest[index - 1] }
        }
    }

    /// Whether the stroke at `index` passed the per-stroke point limit, read in place: the subscript's `_read`
    /// coroutine was called, not inlined, for every message that reads this.
    @inline(__always)
    func overflowed(at index: Int) -> Bool { index == 0 ? first!.overflowed : rest[index - 1].overflowed }

    /// Calls `body` with the stroke at `index`, in place.
    ///
    /// A method rather than a `_modify` accessor: measured, the accessor was not inlined, and its coroutine frame
    /// took a `malloc` for every message.
    @inline(__always)
    mutating func withStroke<Result>(at index: Int, _ body: (inout OpenStroke) -> Result) -> Result {
        if index == 0 { body(&first!) } else { body(&rest[index - 1]) }
    }

    /// Asks for the lines the first stroke's next message writes to be fetched, given where its storage's
    /// reference lies (`firstStorageOffset`; the header must be in the cache: `prefetchFirstHeader` first). The
    /// storage is used through its reference's bits, not retained: it stays alive in the session that holds it,
    /// which nothing changes before the prefetch returns.
    @inline(__always)
    static func prefetchFirstTail(storageAt reference: UnsafeRawPointer) {
        guard let object = UnsafeRawPointer(bitPattern: reference.load(as: UInt.self)) else { return }
        Unmanaged<StrokeStorage>.fromOpaque(object)._withUnsafeGuaranteedRef { $0.prefetchTail() }
    }

    /// Where the first stroke's storage reference lies within an `OpenStrokes` (an optional's payload starts its
    /// storage, and the reference's null bits are its `nil`).
    static var firstStorageOffset: Int {
        MemoryLayout<OpenStrokes>.offset(of: \OpenStrokes.first)! + MemoryLayout<OpenStroke>.offset(of: \.storage)!
    }

    /// Asks for the header of the first stroke's storage, if there is one, to be fetched, given where its
    /// reference lies (`firstStorageOffset`). The reference is read as bits: taken as a reference, it is retained,
    /// and the retain's write to the object's header waits for the very line being asked for (3% of the lane's
    /// time at 10,000 sessions). A prefetch never faults: bits that were not a reference would cost a useless
    /// fetch, nothing more.
    @inline(__always)
    static func prefetchFirstHeader(storageAt reference: UnsafeRawPointer) {
        guard let object = UnsafeRawPointer(bitPattern: reference.load(as: UInt.self)) else { return }
        StrokeStorage.prefetchHeader(at: object)
    }

    /// Adds a stroke after the open ones.
    mutating func append(_ stroke: consuming OpenStroke) {
        if first == nil { first = stroke } else { rest.append(stroke) }
    }

    /// Removes and returns the stroke at `index`; the others keep their order.
    mutating func remove(at index: Int) -> OpenStroke {
        guard index == 0 else { return rest.remove(at: index - 1) }
        let removed = first.take()!
        if !rest.isEmpty { first = rest.removeFirst() }
        return removed
    }
}

/// The state of one session, owned by exactly one lane thread and updated in place.
///
/// The fields are declared so that the small ones fill the room the 8-byte ones leave (112 bytes a session, not
/// 128).
struct Session {
    /// The session id's bytes (the input topic without its shard key).
    var key: SessionKey
    var hash: UInt64
    /// Last event sequence number published (events are numbered from 1).
    var eventSequence: UInt64 = 0
    /// Lane clock (seconds) of the last message.
    var lastActive: UInt32
    /// Index of the session's library in the registry, in 16 bits (a worker loads at most
    /// `WorkerConfiguration.maximumLibraries`), beside `multistroke`: the state stays 112 bytes.
    private var libraryIndex: UInt16 = 0
    /// Milliseconds its gesture waits for a next stroke; 0: every stroke is a gesture of its own.
    var multistroke: UInt16
    /// The first four bytes of the topic the session began under (`<shard key>/`), which `ShardKey.check` passed:
    /// a later topic that starts with them and names this session needs no other check.
    var shardKey: UInt32
    var sequence = SequenceTracker()
    /// The orientation override, the checkmark and tilt-following options and the tilt estimate's sample count, in
    /// one byte (`Flags`), so that the estimate's degrees fit beside it and the state stays 112 bytes.
    private var flags: UInt8
    /// The tilt estimate's whole degrees (`tilt`).
    private var tiltDegrees: Int8 = 0
    /// Open strokes; usually zero or one.
    var strokes = OpenStrokes()

    init(
        key: SessionKey, hash: UInt64, shardKey: UInt32, now: UInt32, checkmark: Bool, followsTilt: Bool,
        multistroke: UInt16 = 0
    ) {
        self.key = key
        self.hash = hash
        self.shardKey = shardKey
        self.lastActive = now
        self.flags = (checkmark ? Flags.checkmark : 0) | (followsTilt ? Flags.followsTilt : 0)
        self.multistroke = multistroke
    }

    /// The bits of `flags`.
    private enum Flags {
        /// The orientation is overridden (`invariant` is not nil)…
        static let orientationSet: UInt8 = 1
        /// …to invariant.
        static let invariant: UInt8 = 2
        static let checkmark: UInt8 = 4
        /// The tilt estimate's sample count (0...3) in bits 3 and 4.
        static let tiltSampleShift: UInt8 = 3
        static let tiltSamples: UInt8 = 3 << tiltSampleShift
        static let followsTilt: UInt8 = 32
    }

    /// Orientation override: nil = the library's own.
    var invariant: Bool? {
        get { flags & Flags.orientationSet == 0 ? nil : flags & Flags.invariant != 0 }
        set {
            flags &= ~(Flags.orientationSet | Flags.invariant)
            if let newValue { flags |= Flags.orientationSet | (newValue ? Flags.invariant : 0) }
        }
    }

    /// Whether the checkmark detector runs for the session's new strokes.
    var checkmark: Bool {
        get { flags & Flags.checkmark != 0 }
        set { flags = newValue ? flags | Flags.checkmark : flags & ~Flags.checkmark }
    }

    /// Whether the checkmark detector follows the session's tilt: its matches feed `tilt`, which turns its new
    /// strokes back (`WorkerConfiguration.checkmarkFollowsTilt`, or the session's `followTilt` option).
    var followsTilt: Bool {
        get { flags & Flags.followsTilt != 0 }
        set { flags = newValue ? flags | Flags.followsTilt : flags & ~Flags.followsTilt }
    }

    /// How far the session's hand turns what it draws, from its matches (read only where `followsTilt`).
    var tilt: TiltEstimate {
        get { TiltEstimate(degrees: tiltDegrees, samples: (flags & Flags.tiltSamples) >> Flags.tiltSampleShift) }
        set {
            tiltDegrees = newValue.degrees
            flags = flags & ~Flags.tiltSamples | (newValue.samples << Flags.tiltSampleShift) & Flags.tiltSamples
        }
    }

    /// Index of the session's library in the registry.
    var library: Int32 {
        get { Int32(libraryIndex) }
        set { libraryIndex = UInt16(newValue) }
    }
}
