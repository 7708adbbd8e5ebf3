import Dispatch
import Foundation
import Synchronization

/// Writes the lanes' checkpoints to the state file while the worker runs, so that a worker that crashes (killed,
/// out of memory, its machine gone) brings back its sessions' options and learned gestures
/// (`WorkerConfiguration.checkpointIntervalSeconds`).
///
/// Each lane hands over its checkpoint (`SessionProcessor.checkpoint()`) on its own thread, right after the start
/// and then every interval; that costs the lane one lock and the copy of its sessions that differ from a new one.
/// The checkpointer's own thread writes the file once every lane has handed over one since the last write, and
/// only if the sessions changed. After the graceful stop's state file (`finish(writing:)`) it writes nothing.
final class Checkpointer: Sendable {
    /// Where the state file is.
    let path: String
    private let logger: Logger
    private let metrics: WorkerMetrics
    private let lanes: Mutex<Lanes>
    /// Held while a file is written; true once the graceful stop's file is.
    private let finished = Mutex(false)
    private let wake = DispatchSemaphore(value: 0)

    /// What the lanes handed over.
    private struct Lanes {
        /// Each lane's latest checkpoint.
        var latest: [[SessionSnapshot]]
        /// Which lanes handed one over since the last write.
        var fresh: [Bool]
        /// The longest a lane took to make its checkpoint since the last write.
        var longest = Duration.zero
    }

    /// A checkpointer of `lanes` lanes' sessions, writing to `path`.
    init(path: String, lanes: Int, logger: Logger, metrics: WorkerMetrics) {
        self.path = path
        self.logger = logger
        self.metrics = metrics
        self.lanes = Mutex(
            Lanes(latest: Array(repeating: [], count: lanes), fresh: Array(repeating: false, count: lanes)))
    }

    // MARK: - Lanes

    /// Takes lane `lane`'s checkpoint, which took the lane `took` to make (called on the lane's thread).
    func handOver(lane: Int, _ sessions: [SessionSnapshot], took: Duration) {
        lanes.withLock { lanes in
            lanes.latest[lane] = sessions
            lanes.fresh[lane] = true
            lanes.longest = max(lanes.longest, took)
        }
        wake.signal()
    }

    // MARK: - Writing

    /// Writes each round of checkpoints until `stopped()` says the lanes have finished (on a thread of its own).
    func run(stopped: () -> Bool) {
        var written: [SessionSnapshot]?
        while !stopped() {
            guard wake.wait(timeout: .now() + .milliseconds(100)) == .success else { continue }
            let round = lanes.withLock { lanes -> (sessions: [SessionSnapshot], longest: Duration)? in
                guard lanes.fresh.allSatisfy({ $0 }) else { return nil }
                defer { lanes.longest = .zero }
                lanes.fresh = Array(repeating: false, count: lanes.fresh.count)
                return (lanes.latest.flatMap { $0 }, lanes.longest)
            }
            guard let round, round.sessions != written else { continue }
            if write(round.sessions, laneTime: round.longest) { written = round.sessions }
        }
    }

    /// Writes one checkpoint, unless the graceful stop's file was written; returns whether it wrote it.
    /// `laneTime`: the longest a lane took to make its part, logged with it.
    private func write(_ sessions: [SessionSnapshot], laneTime: Duration) -> Bool {
        finished.withLock { finished in
            guard !finished else { return false }
            let clock = ContinuousClock()
            let started = clock.now
            do {
                try StateFile.write(StateFile.Saved(sessions: sessions, isCheckpoint: true), to: path)
                metrics.checkpointsWritten.add(1, ordering: .relaxed)
                logger.info(
                    "checkpoint written",
                    [
                        "path": path, "sessions": "\(sessions.count)",
                        "laneMilliseconds": Self.milliseconds(laneTime),
                        "writeMilliseconds": Self.milliseconds(clock.now - started),
                    ])
                return true
            } catch {
                logger.error("checkpoint not written: \(error)")
                return false
            }
        }
    }

    /// `duration` in milliseconds, with two decimals.
    private static func milliseconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        let value = Double(seconds) * 1000 + Double(attoseconds) / 1e15
        return String(format: "%.2f", value)
    }

    /// Runs `write`, the graceful stop's state file, after any checkpoint being written, and stops checkpoints.
    func finish(writing write: () -> Void) {
        finished.withLock { finished in
            finished = true
            write()
        }
    }
}
