import Dispatch
import Synchronization

/// Encoded events handed back from a recognition helper to its lane, in the order the strokes were handed over.
///
/// The helper appends each result as soon as it is encoded and never waits; the lane takes all that is there
/// at once by swapping buffers, and waits only when it needs results that are not there yet. The lane says how
/// many it waits for, and the helper signals once, when they are all there: waking the lane for every result
/// cost a busy lane and its helper a context switch and a `futex` call per stroke (about 9% of the lane's time
/// and 11% of the helper's). The helper signals only a lane that said it waits, so semaphore counts never pile
/// up.
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

    private struct State {
        var buffer = Buffer()
        var laneWaiting = false
        /// While `laneWaiting`: how many events the buffer must hold before the lane is woken.
        var wanted = 1
    }

    private let state = Mutex(State())
    /// Signalled when a result is appended, if the lane waits.
    private let appended = DispatchSemaphore(value: 0)

    // MARK: - Helper side

    /// Appends one event.
    func append(topic: UnsafeRawBufferPointer, payload: UnsafeRawBufferPointer) {
        let wake = state.withLock { state -> Bool in
            state.buffer.bytes.append(contentsOf: topic)
            let topicEnd = state.buffer.bytes.count
            state.buffer.bytes.append(contentsOf: payload)
            state.buffer.events.append((topicEnd, state.buffer.bytes.count))
            guard state.laneWaiting, state.buffer.events.count >= state.wanted else { return false }
            state.laneWaiting = false
            return true
        }
        if wake { appended.signal() }
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
            state.laneWaiting = true
            state.wanted = count
            return true
        }
        guard short else { return }
        if appended.wait(timeout: .now() + .milliseconds(milliseconds)) == .timedOut {
            // A signal that races in stays counted and ends the next wait early, which is harmless.
            state.withLock { $0.laneWaiting = false }
        }
    }
}
