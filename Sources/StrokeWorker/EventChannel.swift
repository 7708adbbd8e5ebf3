import Dispatch
import StrokeProtocol
import Synchronization

/// Hands the events a reader thread receives to one async consumer, in order, holding at most `limit` of them:
/// when the consumer lags, the reader waits for room instead of reading on (libzmq's queue fills next).
///
/// The state is a struct whose transitions return what to do outside the lock (`State`); this class runs them.
final class EventChannel: Sendable {
    private let state: Mutex<State>
    /// Signalled when a reader that waits for room may go on (room made, or the consumer gone).
    private let room = DispatchSemaphore(value: 0)

    init(limit: Int) {
        state = Mutex(State(limit: max(1, limit)))
    }

    // MARK: - The reader thread's side

    /// Whether the consumer has gone (the iteration ended or was cancelled): the reader stops.
    var isStopped: Bool { state.withLock { $0.stopped } }

    /// Hands over one event; waits while the buffer is full. Returns false once the consumer has gone.
    func send(_ event: OutputEvent) -> Bool {
        switch state.withLock({ $0.send(event) }) {
        case .resume(let waiter):
            waiter.resume(returning: event)
            return true
        case .buffered:
            return true
        case .waitForRoom:
            room.wait()
            return !isStopped
        case .stopped:
            return false
        }
    }

    /// Ends the sequence after what is buffered: with `nil`, or by throwing `error`.
    func finish(throwing error: (any Error)? = nil) {
        if let waiter = state.withLock({ $0.finish(error) }) {
            if let error { waiter.resume(throwing: error) } else { waiter.resume(returning: nil) }
        }
    }

    // MARK: - The consumer's side

    /// Thrown by `next(within:)` when no event came in time.
    struct TimedOut: Error {}

    /// The next event, `nil` at the end (or once the task is cancelled).
    func next() async throws -> OutputEvent? {
        try await next(onSuspending: nil)
    }

    /// The next event, `nil` at the end; throws `TimedOut` when none comes within `timeout`, and the sequence goes on.
    func next(within timeout: Duration) async throws -> OutputEvent? {
        try await next { number in
            Task { [self] in
                try? await Task.sleep(for: timeout)
                state.withLock { $0.expire(number) }?.resume(throwing: TimedOut())
            }
        }
    }

    /// `onSuspending` gets the number of the wait when there is nothing to hand over yet.
    private func next(onSuspending: ((Int) -> Void)?) async throws -> OutputEvent? {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (waiter: CheckedContinuation<OutputEvent?, any Error>) in
                switch state.withLock({ $0.next(waiter) }) {
                case .suspended(let number): onSuspending?(number)
                case .event(let event, let wakeReader):
                    if wakeReader { room.signal() }
                    waiter.resume(returning: event)
                case .end(let error):
                    if let error { waiter.resume(throwing: error) } else { waiter.resume(returning: nil) }
                }
            }
        } onCancel: {
            stop()
        }
    }

    /// The consumer is gone: ends a pending `next()` with `nil`, and lets the reader go on to stop.
    func stop() {
        let (waiter, wakeReader) = state.withLock { $0.stop() }
        if wakeReader { room.signal() }
        waiter?.resume(returning: nil)
    }
}

extension EventChannel {
    /// The channel's state and its transitions.
    struct State {
        let limit: Int
        private var buffer: [OutputEvent] = []
        /// Index of the next event of `buffer` to hand over: the events before it are dropped in bulk, not one by one.
        private var head = 0
        private var waiter: CheckedContinuation<OutputEvent?, any Error>?
        /// Set by `finish`: the sequence ends once the buffer is empty.
        private var end: (any Error)??
        /// Whether the reader waits for room.
        private var readerWaits = false
        /// Whether the consumer has gone.
        private(set) var stopped = false
        /// How many times a consumer waited: the number of the wait in progress, for `expire`.
        private var waits = 0

        init(limit: Int) { self.limit = limit }

        private var buffered: Int { buffer.count - head }

        enum SendAction {
            case resume(CheckedContinuation<OutputEvent?, any Error>)
            case buffered
            case waitForRoom
            case stopped
        }

        mutating func send(_ event: OutputEvent) -> SendAction {
            if stopped { return .stopped }
            if let waiter {
                self.waiter = nil
                return .resume(waiter)
            }
            if head > 0 && (head == buffer.count || head >= limit) {
                buffer.removeFirst(head)
                head = 0
            }
            buffer.append(event)
            guard buffered >= limit else { return .buffered }
            readerWaits = true
            return .waitForRoom
        }

        mutating func finish(_ error: (any Error)?) -> CheckedContinuation<OutputEvent?, any Error>? {
            guard end == nil else { return nil }
            guard let waiter else {
                end = .some(error)
                return nil
            }
            // The waiter gets the error now (the buffer is empty while one waits): later calls end with nil.
            end = .some(nil)
            self.waiter = nil
            return waiter
        }

        enum NextAction {
            /// The consumer waits; its wait's number.
            case suspended(Int)
            case event(OutputEvent, wakeReader: Bool)
            case end((any Error)?)
        }

        mutating func next(_ continuation: CheckedContinuation<OutputEvent?, any Error>) -> NextAction {
            if buffered > 0 {
                let event = buffer[head]
                head += 1
                let wake = readerWaits
                readerWaits = false
                return .event(event, wakeReader: wake)
            }
            if stopped { return .end(nil) }
            if let end {
                self.end = .some(nil)  // an error is thrown once; later calls end with nil
                return .end(end)
            }
            waiter = continuation
            waits += 1
            return .suspended(waits)
        }

        /// Ends the wait `number` if it is still in progress: its continuation, to resume without an event.
        mutating func expire(_ number: Int) -> CheckedContinuation<OutputEvent?, any Error>? {
            guard number == waits, let waiter else { return nil }
            self.waiter = nil
            return waiter
        }

        mutating func stop() -> (CheckedContinuation<OutputEvent?, any Error>?, wakeReader: Bool) {
            stopped = true
            let wake = readerWaits
            readerWaits = false
            defer { waiter = nil }
            return (waiter, wake)
        }
    }
}
