/// The per-session input sequence state machine: every transition returns what to do with the message.
///
/// Producers number a session's messages 1, 2, 3, …. The first message the worker sees for a session sets the
/// baseline (and is a reset if it is not 1: the worker has no state for what came before). After that a message
/// is the next one, comes after a gap, starts the numbering over (1 after a larger number: the producer restarted),
/// or is a duplicate or late and is dropped.
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
    }

    /// The last accepted sequence number, or `nil` before the first message.
    public private(set) var last: UInt32?

    /// Creates a tracker for a new session.
    public init() {}

    /// Takes the sequence number of an incoming message.
    ///
    /// Inlined into the per-message path: out of line, the call cost 18 instructions a message (`make profile`).
    @inline(__always)
    public mutating func receive(_ sequence: UInt32) -> Action {
        guard let last else {
            self.last = sequence
            return sequence <= 1 ? .accept : .acceptAfterReset(sequence: sequence)
        }
        if sequence == last &+ 1 && sequence != 0 {
            self.last = sequence
            return .accept
        }
        if sequence == last { return .rejectDuplicate }
        if sequence == 1 {
            self.last = sequence
            return .restart(last: last)
        }
        if sequence < last { return .rejectLate(last: last) }
        self.last = sequence
        return .acceptAfterGap(expected: last &+ 1, missing: sequence - last - 1)
    }
}
