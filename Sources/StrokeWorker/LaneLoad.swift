/// How busy a lane has been lately: the share of a window of wall time it spent handling input rather than
/// waiting for it in poll.
///
/// A lane at half load waits about half the time; a saturated one finds input every time it polls. Only the
/// saturated lane hands strokes to its recognition helper, so that the thread hop is paid only when it buys
/// throughput. The clock is read twice per poll, not per message.
struct LaneLoad {
    /// The window over which the share is measured.
    static let window = Duration.milliseconds(10)
    /// The share of the window spent working from which the lane counts as saturated.
    static let saturatedShare = 0.9

    private var windowStart: ContinuousClock.Instant
    private var waiting = Duration.zero
    /// Whether the lane was saturated over the last complete window.
    private(set) var saturated = false

    init(now: ContinuousClock.Instant) { windowStart = now }

    /// Records a wait in poll from `start` to `end` (the present), closing the window if it is complete.
    mutating func waited(from start: ContinuousClock.Instant, to end: ContinuousClock.Instant) {
        waiting += end - start
        let elapsed = end - windowStart
        guard elapsed >= Self.window else { return }
        saturated = waiting / elapsed <= 1 - Self.saturatedShare
        windowStart = end
        waiting = .zero
    }
}
