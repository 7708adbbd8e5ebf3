import Foundation
import StrokeRecognition
import Synchronization
import ZeroMQ

/// What the reader of the producers' connections (a lane, or the input forwarder of a worker of several lanes, or a
/// proxy's) hands the connection watch, so that the watch can tell a connection that never finishes a message from
/// a busy one (`UnfinishedMessageTracker`): the connections of the messages its `MessageSampler` noted, and whether
/// it found its input empty, since the watch last took them.
///
/// The reader hands them over once per turn of its loop (`collect(from:)`): a lock only when it noted a connection
/// (about once in `MessageSampler.meanGap` bytes read), a relaxed atomic load when it found its input empty (and a
/// store when the watch has taken the flag since), nothing otherwise.
final class UnfinishedMessageGuard: Sendable {
    /// Unexplained bytes past which a connection is cut (`UnfinishedMessageTracker.limit`).
    let limit: UInt64
    private let noted = Mutex<Set<Int32>>([])
    private let emptied = Atomic<Bool>(false)

    /// A guard whose watch cuts a connection past `limit` unexplained bytes.
    init(limit: UInt64) {
        self.limit = limit
    }

    /// A guard for a reader whose socket disconnects a producer at a frame of `disconnectingMessageBytes`.
    convenience init(disconnectingMessageBytes: Int64) {
        self.init(limit: UnfinishedMessageTracker.limit(disconnectingMessageBytes: disconnectingMessageBytes))
    }

    /// The reader's side, once per turn: takes what `sampler` noted and whether it found its input empty.
    @inline(__always)
    func collect(from sampler: inout MessageSampler) {
        if !sampler.noted.isEmpty { hand(&sampler.noted) }
        if sampler.emptied {
            sampler.emptied = false
            if !emptied.load(ordering: .relaxed) { emptied.store(true, ordering: .relaxed) }
        }
    }

    @inline(never)
    private func hand(_ descriptors: inout [Int32]) {
        noted.withLock { $0.formUnion(descriptors) }
        descriptors.removeAll(keepingCapacity: true)
    }

    /// The watch's side, once per check: the connections noted and whether the input was found empty since the last
    /// call.
    func take() -> (noted: Set<Int32>, emptied: Bool) {
        // The flag first: a connection noted after it was read is taken now or at the next check, never lost.
        let wasEmptied = emptied.exchange(false, ordering: .acquiringAndReleasing)
        let descriptors = noted.withLock { noted in
            defer { noted.removeAll(keepingCapacity: true) }
            return noted
        }
        return (descriptors, wasEmptied)
    }
}

/// The reader's half of `UnfinishedMessageGuard`: notes the connection of a message at random, each byte read with
/// the same chance, about once in `meanGap` bytes, so that a connection is noted about once for every `meanGap` of
/// its bytes whatever the others send and however messages interleave.
///
/// Owned by the reader's thread. Per message it costs a subtraction and a branch; the connection is looked up
/// (`ZMQ_SRCFD`, a lookup in the message's metadata) only for the message noted.
struct MessageSampler {
    /// The mean number of bytes read between two notes.
    static let meanGap = 65_536

    /// Connections noted since the last hand-over, by descriptor.
    fileprivate(set) var noted: [Int32] = []
    /// Whether the reader found its input empty since the last hand-over.
    var emptied = false
    private var remaining: Int
    private var generator: SeededGenerator

    /// A sampler whose gaps come from `seed`.
    init(seed: UInt64 = UInt64.random(in: .min ... .max)) {
        generator = SeededGenerator(seed: seed)
        remaining = 0
        remaining = nextGap()
    }

    /// Counts a message of `bytes` (all its frames) read; `descriptor` gives its connection, asked only when the
    /// message is noted.
    @inline(__always)
    mutating func read(bytes: Int, descriptor: () -> Int32) {
        remaining &-= bytes
        if remaining < 0 { note(descriptor()) }
    }

    @inline(never)
    private mutating func note(_ descriptor: Int32) {
        // A message of inproc, or of a connection libzmq does not name, is noted for none.
        if descriptor >= 0, noted.last != descriptor { noted.append(descriptor) }
        remaining = nextGap()
    }

    /// Bytes to the next note: exponentially distributed, so that where the next note falls does not depend on
    /// where the last one did.
    private mutating func nextGap() -> Int {
        // 53 random bits make a uniform number in (0, 1].
        let uniform = Double((generator.next() >> 11) + 1) / Double(1 << 53)
        return Int(-log(uniform) * Double(Self.meanGap))
    }
}
