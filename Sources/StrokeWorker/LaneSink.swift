/// What a lane needs of its sink: events, plus sending what is queued (`send`, without waiting) and everything
/// (`flush`, before the lane sleeps or stops).
protocol LaneSink: EventSink {
    /// Sends (or hands over) what is queued, if that needs no waiting.
    mutating func send()
    /// Sends (or hands over) everything queued, and publishes the counters.
    mutating func flush()
    /// Set by the lane while it is saturated (`LaneLoad`); see `OffloadingSink`.
    var saturated: Bool { get set }
}

extension LaneSink {
    /// Sinks that do not offload recognition ignore it.
    var saturated: Bool {
        get { false }
        set {}
    }
}

extension SocketSink: LaneSink {}
