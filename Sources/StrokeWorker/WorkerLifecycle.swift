/// The worker's lifecycle as an explicit state machine: each transition returns what the worker must do.
public struct WorkerLifecycle: Sendable, Hashable {
    /// Where the worker is.
    public enum State: Sendable, Hashable {
        /// Created, not started.
        case idle
        /// Threads are starting, sockets binding.
        case starting
        /// Every lane is receiving.
        case running
        /// Intake stopped; lanes are finishing what they received and flushing events.
        case draining
        /// Everything is closed.
        case stopped
    }

    /// What the worker must do after a transition.
    public enum Action: Sendable, Hashable {
        /// Start the forwarders and lanes.
        case startThreads
        /// Log the endpoints: the worker is serving.
        case announceReady
        /// Tell the lanes to stop intake and drain.
        case stopIntake
        /// Nothing to do (e.g. a second signal while draining).
        case none
        /// Close the output and return.
        case finish
    }

    /// The current state.
    public private(set) var state: State = .idle

    /// Creates a lifecycle in `.idle`.
    public init() {}

    /// `run()` was called.
    public mutating func start() -> Action {
        guard state == .idle else { return .none }
        state = .starting
        return .startThreads
    }

    /// Every lane has bound or connected its sockets.
    public mutating func lanesReady() -> Action {
        guard state == .starting else { return .none }
        state = .running
        return .announceReady
    }

    /// SIGINT/SIGTERM or `shutdown()`.
    public mutating func shutdownRequested() -> Action {
        switch state {
        case .idle:
            state = .stopped
            return .none
        case .starting, .running:
            state = .draining
            return .stopIntake
        case .draining, .stopped:
            return .none
        }
    }

    /// Every lane has exited.
    public mutating func lanesFinished() -> Action {
        guard state != .stopped else { return .none }
        state = .stopped
        return .finish
    }
}
