import Dispatch
import Foundation
import StrokeRecognition
import Synchronization

/// Writes the lanes' checkpoints to the state file while the worker runs, so that a worker that crashes (killed,
/// out of memory, its machine gone) brings back its sessions' options and learned gestures
/// (`WorkerConfiguration.checkpointIntervalSeconds`).
///
/// Each lane hands over, on its own thread, its whole checkpoint once at its start (`SessionProcessor.checkpoint()`)
/// and then, every interval, what changed since (`SessionProcessor.checkpointChanges(limit:)`), a part of at most
/// `Lane.checkpointPart` sessions per turn of its loop: that costs the lane one lock and the copy of the sessions
/// that changed, at most a few milliseconds at a time. The checkpointer's own thread merges them and, once every lane
/// has handed over since the last write and only if something changed, has the file written by a thread that runs
/// only on cores nothing else wants (`ThreadRunner.runWhenIdle`). After the graceful stop's
/// state file (`finish(writing:)`) it writes nothing.
final class Checkpointer: Sendable {
    /// Where the state file is.
    let path: String
    private let logger: Logger
    private let metrics: WorkerMetrics
    private let inbox: Mutex<Inbox>
    /// Held while a file is written; true once the graceful stop's file is.
    private let finished = Mutex(false)
    private let wake = DispatchSemaphore(value: 0)

    /// What a lane hands over.
    enum Handover: Sendable {
        /// Its whole checkpoint.
        case all([SessionSnapshot])
        /// What changed since its last handover.
        case changes(CheckpointChanges)
    }

    /// What the lanes handed over and the writer has not taken yet.
    private struct Inbox {
        var pending: [(lane: Int, handover: Handover)] = []
        /// Which lanes handed over since the last write.
        var fresh: [Bool]
        /// The longest a lane took to make a handover (or a part of one) since the last write.
        var longest = Duration.zero
    }

    /// The worker's shard, which the file names.
    let shard: StateFile.Shard

    /// A checkpointer of `lanes` lanes' sessions, writing to `path` for a worker of `shard`.
    init(path: String, shard: StateFile.Shard, lanes: Int, logger: Logger, metrics: WorkerMetrics) {
        self.path = path
        self.shard = shard
        self.logger = logger
        self.metrics = metrics
        self.inbox = Mutex(Inbox(fresh: Array(repeating: false, count: lanes)))
    }

    // MARK: - Lanes

    /// Takes lane `lane`'s handover, which took the lane `took` to make (called on the lane's thread); the lane's
    /// round is complete unless more of it follows (`completesRound` false).
    func handOver(lane: Int, _ handover: Handover, took: Duration, completesRound: Bool = true) {
        inbox.withLock { inbox in
            inbox.pending.append((lane, handover))
            if completesRound { inbox.fresh[lane] = true }
            inbox.longest = max(inbox.longest, took)
        }
        wake.signal()
    }

    // MARK: - Writing

    /// Merges the handovers and writes each round that changed something until `stopped()` says the lanes have
    /// finished (on a thread of its own).
    func run(stopped: () -> Bool) {
        var lanes = [[String: SessionSnapshot]](repeating: [:], count: inbox.withLock { $0.fresh.count })
        var changed = false
        while !stopped() {
            guard wake.wait(timeout: .now() + .milliseconds(100)) == .success else { continue }
            // Everything handed over so far; a round when every lane completed one since the last.
            let (pending, round, longest) = inbox.withLock { inbox in
                let taken = (inbox.pending, inbox.fresh.allSatisfy { $0 }, inbox.longest)
                inbox.pending = []
                if taken.1 { (inbox.fresh, inbox.longest) = (inbox.fresh.map { _ in false }, .zero) }
                return taken
            }
            for (lane, handover) in pending {
                switch handover {
                case .all(let sessions):
                    lanes[lane] = Dictionary(sessions.map { ($0.session, $0) }, uniquingKeysWith: { $1 })
                    changed = true
                case .changes(let changes):
                    for session in changes.changed { lanes[lane][session.session] = session }
                    for id in changes.removed { lanes[lane][id] = nil }
                    changed = changed || !changes.isEmpty
                }
            }
            guard round, changed else { continue }
            if write(lanes, laneTime: longest) { changed = false }
        }
    }

    /// Writes one checkpoint of the lanes' sessions, unless the graceful stop's file was written; returns whether
    /// it wrote it. `laneTime`: the longest a lane took to make its part, logged with it.
    ///
    /// The file is made and written on a thread that runs only on cores nothing else wants
    /// (`ThreadRunner.runWhenIdle`): 24 ms for 11,000 sessions, 93 ms for 101,000 (`stroke-bench --only
    /// state-file`), which would otherwise be taken from the lanes and delay their messages.
    private func write(_ lanes: [[String: SessionSnapshot]], laneTime: Duration) -> Bool {
        finished.withLock { finished in
            guard !finished else { return false }
            let clock = ContinuousClock()
            let started = clock.now
            let (path, shard) = (path, shard)
            let outcome = ThreadRunner.runWhenIdle(name: "checkpoint-file") {
                let sessions = lanes.flatMap(\.values)
                return Result { () throws(RecognitionError) in
                    try StateFile.write(
                        StateFile.Saved(sessions: sessions, isCheckpoint: true, shard: shard, savedAt: Date()), to: path
                    )
                    return sessions.count
                }
            }
            do {
                let sessions = try outcome.get()
                metrics.checkpointsWritten.add(1, ordering: .relaxed)
                logger.info(
                    "checkpoint written",
                    [
                        "path": path, "sessions": "\(sessions)",
                        "laneMilliseconds": laneTime.millisecondsText,
                        "writeMilliseconds": (clock.now - started).millisecondsText,
                    ])
                return true
            } catch {
                logger.error("checkpoint not written: \(error)")
                return false
            }
        }
    }

    /// Runs `write`, the graceful stop's state file, after any checkpoint being written, and stops checkpoints.
    func finish(writing write: () -> Void) {
        finished.withLock { finished in
            finished = true
            write()
        }
    }
}
