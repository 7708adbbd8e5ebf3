import ZeroMQ

/// What a lane needs of its sink: events, plus sending what is queued (`send`, without waiting), what can be
/// sent when the input runs dry (`idle`, without waiting either) and everything (`flush`, before the lane stops).
protocol LaneSink: EventSink {
    /// Sends (or hands over) what is queued, if that needs no waiting.
    mutating func send()
    /// The input ran dry: sends (or hands over) everything queued that needs no other thread, and publishes the
    /// counters. What still waits on another thread goes out when `signal` wakes the lane (`signalled()`).
    mutating func idle()
    /// Sends (or hands over) everything queued, waiting for other threads if it must, and publishes the counters.
    mutating func flush()
    /// A signal the lane's poll waits on beside its sockets, for results of another thread; nil if none come.
    var signal: ZMQPollSignal? { get }
    /// The lane's poll found `signal` signalled: sends what has become ready.
    mutating func signalled()
    /// Set by the lane while it is saturated (`LaneLoad`); see `OffloadingSink`.
    var saturated: Bool { get set }
    /// The lane's libraries were reloaded: recognize with `registry` from now on.
    mutating func replaceRegistry(_ registry: LibraryRegistry)
}

extension LaneSink {
    /// Sinks that do not offload recognition ignore it.
    var saturated: Bool {
        get { false }
        set {}
    }

    /// Sinks that wait on no other thread's results flush.
    mutating func idle() { flush() }

    /// Sinks that wait on no other thread's results need no signal.
    var signal: ZMQPollSignal? { nil }

    /// Sinks without a signal are never signalled.
    mutating func signalled() {}

    /// Sinks that recognize nothing themselves keep no libraries.
    mutating func replaceRegistry(_ registry: LibraryRegistry) {}
}

extension SocketSink: LaneSink {}
