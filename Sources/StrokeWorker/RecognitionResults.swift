import Dispatch
import Synchronization
import ZeroMQ

/// Encoded events handed back from a recognition helper to its lane, in the order the strokes were handed over.
///
/// The helper appends each result as soon as it is encoded and never waits; the lane takes all that is there
/// at once by swapping buffers, and waits only when it needs results that are not there yet. The lane says how
/// many it waits for, and the helper signals once, when they are all there: waking the lane for every result
/// cost a busy lane and its helper a context switch and a `futex` call per stroke (about 9% of the lane's time
/// and 11% of the helper's). The helper signals only a lane that said it waits, so semaphore counts never pile
/// up. A lane waits in one of two ways: blocked (`wait(for:milliseconds:)`, when its queue is full or it stops),
/// or in its poll, still reading input (`notify(when:)`, when its input ran dry): then `ready` wakes it.
final class RecognitionResults: Sendable {
    /// Events: topic and payload bytes back to back, and where each one's topic and payload end.
    struct Buffer {
        var bytes: [UInt8] = []
        var events: [(topicEnd: Int, end: Int)] = []

        mutating func removeAll() {
            bytes.removeAll(keepingCapacity: true)
            events.removeAll(keepingCapacity: true)
        }
    }

    /// How the lane waits for results, if it does.
    private enum Waiting {
        case no
        /// In `wait(for:milliseconds:)`, on `appended`.
        case blocked
        /// In its poll, on `ready`.
        case polling
    }

    private struct State {
        var buffer = Buffer()
        var laneWaiting = Waiting.no
        /// While the lane waits: how many events the buffer must hold before it is woken.
        var wanted = 1
    }

    private let state = Mutex(State())
    /// Signalled when the results a blocked lane waits for are there.
    private let appended = DispatchSemaphore(value: 0)
    /// Signalled when the results a polling lane asked for (`notify(when:)`) are there; the lane's poll waits on
    /// it beside its sockets.
    let ready: ZMQPollSignal

    /// Creates an empty buffer of results.
    ///
    /// - Throws: `ZMQError` when the signal's descriptors cannot be created.
    init() throws(ZMQError) {
        ready = try ZMQPollSignal()
    }

    // MARK: - Helper side

    /// Appends one event.
    func append(topic: UnsafeRawBufferPointer, payload: UnsafeRawBufferPointer) {
        let wake = state.withLock { state -> Waiting in
            state.buffer.bytes.append(contentsOf: topic)
            let topicEnd = state.buffer.bytes.count
            state.buffer.bytes.append(contentsOf: payload)
            state.buffer.events.append((topicEnd, state.buffer.bytes.count))
            guard state.laneWaiting != .no, state.buffer.events.count >= state.wanted else { return .no }
            defer { state.laneWaiting = .no }
            return state.laneWaiting
        }
        switch wake {
        case .no: break
        case .blocked: appended.signal()
        case .polling: ready.signal()
        }
    }

    // MARK: - Lane side

    /// Empties `buffer` and swaps it for the events appended since the last take.
    func take(into buffer: inout Buffer) {
        buffer.removeAll()
        state.withLock { swap(&$0.buffer, &buffer) }
    }

    /// Waits until `count` events are there to take or `milliseconds` pass; returns at once if they already
    /// are.
    func wait(for count: Int, milliseconds: Int) {
        let short = state.withLock { state -> Bool in
            guard state.buffer.events.count < count else { return false }
            state.laneWaiting = .blocked
            state.wanted = count
            return true
        }
        guard short else { return }
        if appended.wait(timeout: .now() + .milliseconds(milliseconds)) == .timedOut {
            // A signal that races in stays counted and ends the next wait early, which is harmless.
            state.withLock { $0.laneWaiting = .no }
        }
    }

    /// Asks for `ready` to be signalled once `count` events are there to take; returns true, asking nothing, if
    /// they already are. The lane asks again before each poll, for what it still misses then.
    func notify(when count: Int) -> Bool {
        state.withLock { state -> Bool in
            guard state.buffer.events.count < count else { return true }
            state.laneWaiting = .polling
            state.wanted = count
            return false
        }
    }
}
