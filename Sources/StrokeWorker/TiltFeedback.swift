import StrokeRecognition
import Synchronization

/// The rotations of a lane's matches that tell its sessions' tilts, handed back from the thread that recognized
/// them (the lane itself, its recognition helper or its publisher) to the lane, which owns the sessions and keeps
/// their estimates (`TiltEstimate`, `WorkerConfiguration.checkmarkFollowsTilt`).
///
/// The recognizing thread posts one sample per match and never waits but for the lock; the lane takes all of them
/// at once, when `pending` says there are some, by swapping buffers. A sample is a session's id and a rotation, so
/// a session that ended in between is simply not found.
final class TiltFeedback: Sendable {
    /// One match's rotation, for one session.
    struct Sample: Sendable {
        var session: SessionKey
        var degrees: Float
    }

    private let samples = Mutex<[Sample]>([])
    private let count = Atomic<Int>(0)

    /// Creates an empty feedback.
    init() {}

    // MARK: - The recognizing thread's side

    /// Posts the rotation of a match of the session `session` (its id's bytes).
    func post(session: UnsafeRawBufferPointer, degrees: Double) {
        let sample = Sample(session: SessionKey(session), degrees: Float(degrees))
        samples.withLock { $0.append(sample) }
        count.add(1, ordering: .releasing)
    }

    // MARK: - The lane's side

    /// Whether samples wait to be taken (one relaxed load: the lane asks before every message).
    var pending: Bool { count.load(ordering: .relaxed) > 0 }

    /// Empties `buffer` and swaps it for the samples posted since the last take.
    func take(into buffer: inout [Sample]) {
        buffer.removeAll(keepingCapacity: true)
        samples.withLock { swap(&$0, &buffer) }
        count.subtract(buffer.count, ordering: .relaxed)
    }
}
