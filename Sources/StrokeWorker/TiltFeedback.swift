import StrokeRecognition
import Synchronization

/// The rotations of a lane's matches that tell its sessions' tilts, handed back from the thread that recognized
/// them (the lane itself, its recognition helper or its publisher) to the lane, which owns the sessions and keeps
/// their estimates (`TiltEstimate`, `WorkerConfiguration.checkmarkFollowsTilt`).
///
/// The recognizing thread posts a match's sample at once (the lane, recognizing a stroke itself) or a batch's
/// samples together (`post(contentsOf:)`), and never waits but for the lock; the lane takes all of them at once,
/// when `pending` says there are some, by swapping buffers. A sample is a session's id and a rotation, so a session
/// that ended in between is simply not found.
final class TiltFeedback: Sendable {
    /// One match's rotation, for one session.
    struct Sample: Sendable {
        var session: SessionKey
        var degrees: Float

        /// The rotation `degrees` of a match of the session `session` (its id's bytes).
        init(session: UnsafeRawBufferPointer, degrees: Double) {
            self.session = SessionKey(session)
            self.degrees = Float(degrees)
        }
    }

    private let samples = Mutex<[Sample]>([])
    private let count = Atomic<Int>(0)

    /// Creates an empty feedback.
    init() {}

    // MARK: - The recognizing thread's side

    /// Posts the rotation of one match.
    func post(_ sample: Sample) {
        samples.withLock { $0.append(sample) }
        count.add(1, ordering: .releasing)
    }

    /// Posts the rotations of several matches, in one lock: for a thread that recognizes a batch of strokes. Its
    /// lock and counter, which the lane reads before every message, moved between the cores once a match (1.6%
    /// of the recognition helper's time and 0.8% of the lane's, `scripts/perf-worker.py`, binary-32 at 1,000
    /// sessions).
    func post(contentsOf batch: [Sample]) {
        guard !batch.isEmpty else { return }
        samples.withLock { $0.append(contentsOf: batch) }
        count.add(batch.count, ordering: .releasing)
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
