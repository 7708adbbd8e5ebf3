/// The per-session input sequence state machine: every transition returns what to do with the message.
///
/// Producers number a session's messages 1, 2, 3, …. The first message the worker sees for a session sets the
/// baseline (and is a reset if it is not 1: the worker has no state for what came before). After that a message
/// is the next one, comes after a gap, starts the numbering over (1 after a larger number: the producer restarted),
/// or is a duplicate or late and is dropped.
///
/// After a gap, a message numbered between the gap's start and its end (up to 255 past the start) is late, as any
/// smaller number is; but when the message after it is the next number, the number that made the gap was out of
/// line (a corrupted or stray number), and the numbering goes on from there. Otherwise a single stray number would
/// make every later message of the session late. One message arriving after the next (a swap) stays late: only
/// two numbers in a row decide.
public struct SequenceTracker: Sendable, Hashable {
    /// What to do with a message.
    public enum Action: Sendable, Hashable {
        /// The next message: process it.
        case accept
        /// The first message of a session the worker has no state for, numbered `sequence` > 1: report that the
        /// inputs before it are lost, then process it.
        case acceptAfterReset(sequence: UInt32)
        /// `missing` messages never arrived: report the gap, then process this one.
        case acceptAfterGap(expected: UInt32, missing: UInt32)
        /// The same number as the last message: drop it.
        case rejectDuplicate
        /// A number below the last message's: drop it.
        case rejectLate(last: UInt32)
        /// Number 1 after `last` > 1: the producer started over (a restarted process numbers from 1 again).
        /// Report it, drop what the session held, and process the message as a new session's first.
        case restart(last: UInt32)
        /// After a gap, the message after a late one that continued the numbering from before it, numbered next to
        /// that one: `stray` was out of line, and the `missing` messages its gap reported were not lost (the late
        /// one was dropped). Report it, then process this one and go on from it.
        case acceptAfterStray(stray: UInt32, missing: UInt32)
        /// The first message of a session restored from the worker's last checkpoint after a crash
        /// (`SequenceTracker.afterCheckpoint()`), numbered `sequence`: the worker kept the session's options and
        /// learned gestures but not its numbering, nor the strokes in flight. Report that, then process it (from 1:
        /// as a producer that started over).
        case acceptAfterCheckpoint(sequence: UInt32)
    }

    // `beforeGap` first: with `last`'s optional and a byte after it the tracker takes 10 bytes, and a session
    // still 112.

    /// After a gap, the last number before it; 0 otherwise (a session numbered from 0 that loses messages right
    /// after its first is not checked for a stray number). Before the first message (`last` nil), 1 marks a
    /// session restored from a checkpoint (`afterCheckpoint()`).
    private var beforeGap: UInt32 = 0
    /// The last accepted sequence number, or `nil` before the first message.
    public private(set) var last: UInt32?
    /// After a gap, how far past its start the late message that continued the numbering from before it was
    /// numbered; 0 before such a message.
    private var continuedBy: UInt8 = 0

    /// Creates a tracker for a new session.
    public init() {}

    /// Creates a tracker that takes `last + 1` as the next message, as for a session restored from a state file
    /// (`SessionSnapshot`).
    public init(resumingAfter last: UInt32) { self.last = last }

    /// A tracker for a session restored without its numbering (`SessionSnapshot.seq` nil, as in a checkpoint):
    /// whatever its first message is numbered, it is `acceptAfterCheckpoint`, since the numbering it had was not
    /// kept.
    public static func afterCheckpoint() -> SequenceTracker {
        var tracker = SequenceTracker()
        tracker.beforeGap = 1
        return tracker
    }

    /// Takes the sequence number of an incoming message.
    ///
    /// Inlined into the per-message path: out of line, the call cost 18 instructions a message (`make profile`).
    @inline(__always)
    public mutating func receive(_ sequence: UInt32) -> Action {
        guard let last else {
            self.last = sequence
            if beforeGap != 0 {
                beforeGap = 0
                return .acceptAfterCheckpoint(sequence: sequence)
            }
            return sequence <= 1 ? .accept : .acceptAfterReset(sequence: sequence)
        }
        if sequence == last &+ 1 && sequence != 0 {
            self.last = sequence
            beforeGap = 0
            return .accept
        }
        if beforeGap != 0 && sequence > beforeGap && sequence < last {
            if continuedBy == 0 && sequence &- beforeGap <= UInt32(UInt8.max) {
                continuedBy = UInt8(sequence &- beforeGap)
                return .rejectLate(last: last)
            }
            if continuedBy != 0 && sequence == beforeGap &+ UInt32(continuedBy) &+ 1 {
                let gapStart = beforeGap
                (beforeGap, continuedBy) = (0, 0)
                self.last = sequence
                return .acceptAfterStray(stray: last, missing: last &- gapStart &- 1)
            }
        }
        beforeGap = 0
        if sequence == last { return .rejectDuplicate }
        if sequence == 1 {
            self.last = sequence
            return .restart(last: last)
        }
        if sequence < last { return .rejectLate(last: last) }
        self.last = sequence
        (beforeGap, continuedBy) = (last, 0)
        return .acceptAfterGap(expected: last &+ 1, missing: sequence - last - 1)
    }
}
