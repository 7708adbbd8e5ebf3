import Dispatch
import Foundation
import Synchronization

/// What the worker's threads share besides metrics: the stop flag and readiness.
final class WorkerControl: Sendable {
    /// Lanes that have bound or connected their sockets.
    let readyLanes = Atomic<Int>(0)
    /// Forwarders (with several lanes, one for the input and one for the output) that have bound or connected
    /// their external endpoints and recorded them in `endpoints`.
    let readyForwarders = Atomic<Int>(0)
    /// Lanes that have exited.
    let finishedLanes = Atomic<Int>(0)
    /// Set once the lanes have finished (or failed): the ZAP handler and the metrics endpoint may close.
    let lanesDone = Atomic<Bool>(false)
    /// When the first lane last went round its loop (`DispatchTime` nanoseconds; at least once a second while it
    /// runs), or, with `--slow-consumers wait`, its events last waited the send timeout for a consumer behind (the
    /// worker then runs at that consumer's pace, by design): for `/healthz` and the systemd watchdog.
    let heartbeat = Atomic<UInt64>(0)
    /// The endpoints actually bound (with the ports chosen for `:*`), as `input:…`/`output:…`.
    let endpoints = Mutex<[String]>([])

    /// The lanes' sessions after their drain, for the state file (`WorkerConfiguration.stateFile`).
    let savedSessions = Mutex<[SessionSnapshot]>([])
    /// Why the state file could not be written at the stop, if it could not: the worker then exits with an error.
    let stateFileFailure = Mutex<String?>(nil)

    /// When the stop was first asked for (`DispatchTime` nanoseconds, at least 1); 0 while the worker runs. Set
    /// once (`requestStop`): the lanes then stop intake and drain.
    let stopRequested = Atomic<UInt64>(0)

    /// Whether the stop was asked for.
    var isStopping: Bool { stopRequested.load(ordering: .acquiring) != 0 }

    /// Stops intake, noting when the stop was first asked for.
    func requestStop() {
        _ = stopRequested.compareExchange(
            expected: 0, desired: max(1, DispatchTime.now().uptimeNanoseconds), ordering: .acquiringAndReleasing)
    }

    /// Whether the stop was asked for more than `milliseconds` ago; never for a negative `milliseconds` (a
    /// `--linger` of -1, libzmq's "until every message is sent").
    func stoppedLongerThan(milliseconds: Int32) -> Bool {
        let requested = stopRequested.load(ordering: .relaxed)
        return milliseconds >= 0 && requested > 0
            && DispatchTime.now().uptimeNanoseconds &- requested > UInt64(milliseconds) * 1_000_000
    }

    /// Why the health file could not be touched at the last beat, or nil: what `beat` compares against to say
    /// when that changes.
    private let healthFileFailure = Mutex<String?>(nil)

    /// Tells the liveness checks that the worker runs: `heartbeat` for `/healthz` and the watchdog, and the health
    /// file (`--health-file`), if any, touched. Returns what changed about the health file, for the caller to log:
    /// the first failure to touch it (and each different one after it), and the first success after a failure.
    @discardableResult
    func beat(healthFile: String?) -> HealthFileChange? {
        heartbeat.store(DispatchTime.now().uptimeNanoseconds, ordering: .relaxed)
        guard let healthFile else { return nil }
        let failure = Self.touch(healthFile)
        return healthFileFailure.withLock { last in
            defer { last = failure }
            if let failure { return failure == last ? nil : .failing(failure) }
            return last == nil ? nil : .touchedAgain
        }
    }

    /// What changed about the health file at a beat.
    enum HealthFileChange: Equatable, Sendable {
        /// It could not be touched, for this reason (the system's): probes that read it will fail.
        case failing(String)
        /// It was touched again after a failure.
        case touchedAgain
    }

    /// Refreshes the file's modification time, creating it (with "ok") where it does not exist; the system's
    /// reason when neither works, else nil. Created in place, as `touch` does: a symbolic link whose target does
    /// not exist yet gets its target, where writing a new file and renaming it over the path replaced the link.
    static func touch(_ path: String) -> String? {
        if utimes(path, nil) == 0 { return nil }
        guard errno == ENOENT else { return String(cString: strerror(errno)) }
        let descriptor = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { return String(cString: strerror(errno)) }
        defer { close(descriptor) }
        var status = stat()
        if fstat(descriptor, &status) == 0, status.st_size == 0 {
            _ = "ok\n".utf8CString.withUnsafeBufferPointer { write(descriptor, $0.baseAddress, 3) }
        }
        return nil
    }
}
