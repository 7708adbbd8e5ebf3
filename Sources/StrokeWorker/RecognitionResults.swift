import Dispatch
import Synchronization

/// Encoded events handed back from a recognition helper to its lane, in the order the strokes were handed over.
///
/// The helper appends each result as soon as it is encoded and never waits; the lane takes all that is there
/// at once by swapping buffers, and waits only when it needs a result that is not there yet. The helper
/// signals only a lane that said it waits, so semaphore counts never pile up.
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
            defer { state.laneWaiting = false }
            return state.laneWaiting
        }
        if wake { appended.signal() }
    }

    // MARK: - Lane side

    /// Empties `buffer` and swaps it for the events appended since the last take.
    func take(into buffer: inout Buffer) {
        buffer.removeAll()
        state.withLock { swap(&$0.buffer, &buffer) }
    }

    /// Waits until an event is appended or `milliseconds` pass; returns at once if one is already there.
    func wait(milliseconds: Int) {
        let empty = state.withLock { state -> Bool in
            guard state.buffer.events.isEmpty else { return false }
            state.laneWaiting = true
            return true
        }
        guard empty else { return }
        if appended.wait(timeout: .now() + .milliseconds(milliseconds)) == .timedOut {
            // A signal that races in stays counted and ends the next wait early, which is harmless.
            state.withLock { $0.laneWaiting = false }
        }
    }
}
