/// What a lane needs of its sink: events, plus sending what is queued (`send`, without waiting) and everything
/// (`flush`, before the lane sleeps or stops).
protocol LaneSink: EventSink {
    /// Sends (or hands over) what is queued, if that needs no waiting.
    mutating func send()
    /// Sends (or hands over) everything queued, and publishes the counters.
    mutating func flush()
    /// Set by the lane while it works through a backlog of input (see `OffloadingSink`).
    var backlogged: Bool { get set }
}

extension LaneSink {
    /// Sinks that do not offload recognition ignore the backlog.
    var backlogged: Bool {
        get { false }
        set {}
    }
}

extension SocketSink: LaneSink {}
