import Dispatch
import StrokeProtocol
import StrokeRecognition
import Synchronization

/// Batches of events and recognition requests handed, in order, from a lane to its publisher thread.
///
/// Double-buffered: the lane fills one batch while the publisher works through the other, and they meet once
/// per batch (a lock and, when the publisher sleeps, a wake-up), not once per event. A batch's buffers are
/// recycled, so the steady state allocates nothing. The lane waits only when the publisher has not taken the
/// previous batch and the current one is full: backpressure, as a slow socket would give.
final class EventPipe: Sendable {
    /// A finished stroke waiting for recognition: where its session id and points are in the batch, the event's
    /// numbering, and its recognizer's place in the registry (plain values: nothing here is reference-counted, so
    /// the lane and the thread that recognizes share no reference count).
    struct Request {
        var points: Range<Int>
        var eventSequence: UInt64
        var sequence: UInt32?
        var stroke: UInt32?
        var pointer: UInt16
        var slot: LibraryRegistry.Slot
        /// The session's learned templates: their index in the batch's `learned`, or -1 (most sessions).
        var learned: Int32 = -1
        /// The session's choice of gestures: its index in the batch's `choices`, or -1 (most sessions).
        var choice: Int32 = -1
        /// For a gesture of several strokes: its strokes, at this index in the batch's `gestures`, or -1.
        var gesture: Int32 = -1
        /// `RecognitionRequest.checkmarkFired`.
        var checkmarkFired: Bool? = nil
        /// Whether the session's tilt is followed: the request had a `tiltFeedback`, the batch's.
        var followsTilt = false
        /// `RecognitionRequest.minimumScore`.
        var minimumScore: Double? = nil
        /// `RecognitionRequest.turn`.
        var turn: Int8 = 0
        /// The session's scores of gestures of their own: their index in the batch's `gestureScores`, or -1 (most
        /// sessions).
        var gestureScores: Int32 = -1
    }

    /// One event (`request == nil`: `bytes[start..<topicEnd]` is the topic, `bytes[topicEnd..<end]` the payload)
    /// or one recognition request (`bytes[start..<topicEnd]` is the session id).
    struct Entry {
        var start: Int
        var topicEnd: Int
        var end: Int
        var request: Request?
    }

    /// Events and requests, in order.
    struct Batch {
        var bytes: [UInt8] = []
        var points: [SIMD2<Double>] = []
        var entries: [Entry] = []
        /// The learned templates of the requests that have them (references, as `choices`: the only ones a batch holds).
        var learned: [LearnedTemplates] = []
        /// The choices of gestures of the requests that have them.
        var choices: [GestureChoice] = []
        /// The strokes of the requests for gestures of several strokes.
        var gestures: [GestureStrokes] = []
        /// The scores of gestures of their own of the requests whose sessions set some.
        var gestureScores: [[String: Double]] = []
        /// Where the rotations of the matches of requests that follow their session's tilt go: their lane's (one
        /// lane fills a batch), kept when the batch is emptied.
        var tiltFeedback: TiltFeedback?

        mutating func removeAll() {
            bytes.removeAll(keepingCapacity: true)
            points.removeAll(keepingCapacity: true)
            entries.removeAll(keepingCapacity: true)
            if !learned.isEmpty { learned.removeAll(keepingCapacity: true) }
            if !choices.isEmpty { choices.removeAll(keepingCapacity: true) }
            if !gestures.isEmpty { gestures.removeAll(keepingCapacity: true) }
            if !gestureScores.isEmpty { gestureScores.removeAll(keepingCapacity: true) }
        }
    }

    private struct State {
        var pending: Batch?
        /// Emptied batches, with their capacity, for the lane to fill next. Up to `spareLimit`: with one slot, a
        /// batch recycled while another waited there was freed, and the lane then grew a new one from nothing
        /// (its 256-KB point buffer by `mmap` and page faults, 5% of a busy lane's time).
        var spares: [Batch] = []
        var finished = false
        /// Set under the lock by a side that is about to wait, so that the other side signals only then (a
        /// semaphore signalled on every hand-over would pile up counts that later waits spin through).
        var publisherWaiting = false
        var laneWaiting = false
    }

    /// Most emptied batches kept: the lane's, the one waiting and the one being worked through are all the
    /// pipe ever needs at once.
    static let spareLimit = 3

    private let state = Mutex(State())
    /// Signalled when a batch is handed over or the lane finishes, if the publisher waits.
    private let handedOver = DispatchSemaphore(value: 0)
    /// Signalled when the publisher takes a batch, if the lane waits.
    private let taken = DispatchSemaphore(value: 0)

    // MARK: - Lane side

    /// Hands `batch` over if the publisher has taken the previous one; then `batch` is a recycled empty batch.
    func offer(_ batch: inout Batch) -> Bool {
        offer(&batch, waitIfBusy: false)
    }

    /// Hands `batch` over, waiting for the publisher if it has not taken the previous one.
    func hand(_ batch: inout Batch) {
        while !offer(&batch, waitIfBusy: true) { taken.wait() }
    }

    /// Hands over if the slot is free; else, with `waitIfBusy`, asks to be signalled when it frees.
    private func offer(_ batch: inout Batch, waitIfBusy: Bool) -> Bool {
        let (accepted, wake) = state.withLock { state -> (Bool, Bool) in
            guard state.pending == nil else {
                if waitIfBusy { state.laneWaiting = true }
                return (false, false)
            }
            var next = state.spares.popLast() ?? Batch()
            swap(&next, &batch)
            state.pending = next
            defer { state.publisherWaiting = false }
            return (true, state.publisherWaiting)
        }
        if wake { handedOver.signal() }
        return accepted
    }

    /// Tells the publisher that nothing more will come.
    func finish() {
        let wake = state.withLock { state -> Bool in
            state.finished = true
            defer { state.publisherWaiting = false }
            return state.publisherWaiting
        }
        if wake { handedOver.signal() }
    }

    // MARK: - Publisher side

    /// The next batch, if one is waiting; `finished` when the lane is done and nothing is left.
    func take() -> (batch: Batch?, finished: Bool) {
        let (batch, finished, wake) = state.withLock { state -> (Batch?, Bool, Bool) in
            let batch = state.pending.take()
            let wake = batch != nil && state.laneWaiting
            if wake { state.laneWaiting = false }
            return (batch, state.finished, wake)
        }
        if wake { taken.signal() }
        return (batch, finished && batch == nil)
    }

    /// Waits until a batch is handed over or the lane finishes, or `milliseconds` pass; returns at once if one
    /// is already there.
    func waitForWork(milliseconds: Int) {
        let idle = state.withLock { state -> Bool in
            guard state.pending == nil, !state.finished else { return false }
            state.publisherWaiting = true
            return true
        }
        guard idle else { return }
        if handedOver.wait(timeout: .now() + .milliseconds(milliseconds)) == .timedOut {
            // No hand-over came: stop asking for a signal (one that races in stays counted and ends the next
            // wait early, which is harmless).
            state.withLock { $0.publisherWaiting = false }
        }
    }

    /// Returns a processed batch's buffers for reuse.
    func recycle(_ batch: consuming Batch) {
        var emptied = batch
        emptied.removeAll()
        state.withLock { state in
            if state.spares.count < Self.spareLimit { state.spares.append(emptied) }
        }
    }
}
