import Foundation
import StrokeRecognition

/// Every stroke the latency section timed, as CSV (`--latency-trace FILE`): its run and peer, when its end was sent
/// (CLOCK_MONOTONIC, the clock `perf record -k CLOCK_MONOTONIC` stamps its samples with, so that the two line up),
/// its latency and how late its end was sent.
///
/// A percentile says how long the tail is, not where it comes from. `scripts/latency-episodes.py` reads the trace.
/// It tells two kinds of episode apart: a stall of the host, after which the latency jumps at once, and a stretch in
/// which a peer fell behind the load, over which the latency builds up.
struct LatencyTrace: Sendable {
    /// One timed stroke.
    struct Sample: Sendable {
        /// When the stroke's end was sent, in `BenchClock` (CLOCK_MONOTONIC) nanoseconds.
        var sent: UInt64
        /// Stroke end sent → result received, in µs.
        var latency: Double
        /// How late the end was sent after it was due, in µs.
        var lateness: Double
    }

    /// The file's first line.
    static let header = "run,peer,sent_us,latency_us,lateness_us"

    /// The file the runs are appended to.
    let path: String

    /// Creates the file at `path`, emptying one there, with the header line alone. Opened and truncated in place, not
    /// replaced: `/dev/stderr` or a pipe stays what it is (`FileManager.createFile` renamed a new file over it, and as
    /// root over `/dev/stderr`'s link).
    init(path: String) throws {
        self.path = path
        try write(Self.header + "\n", flags: O_CREAT | O_TRUNC, what: "create")
    }

    // MARK: - Writing

    /// Appends a run's strokes, the worker's (or its stand-in's, `--latency-standin`) and the raw echo's, in the
    /// order their ends were sent.
    func append(run: Int, worker: [Sample], raw: [Sample]) throws {
        try write(Self.lines(run: run, peers: [("worker", worker), ("raw", raw)]), flags: O_APPEND, what: "append to")
    }

    /// Writes `text` whole to the file opened with `flags` besides `O_WRONLY`.
    private func write(_ text: String, flags: Int32, what: String) throws {
        let descriptor = open(path, O_WRONLY | O_CLOEXEC | flags, 0o644)
        guard descriptor >= 0 else {
            throw BenchError("--latency-trace: cannot \(what) \(path): \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        if let failure = RecognitionError.write(Data(text.utf8), to: descriptor, named: path) {
            throw BenchError("--latency-trace: \(failure)")
        }
    }

    /// The CSV lines of a run's strokes, one per stroke, in the order their ends were sent; `sent_us` is
    /// CLOCK_MONOTONIC in µs.
    static func lines(run: Int, peers: [(name: String, samples: [Sample])]) -> String {
        let all = peers.flatMap { peer in peer.samples.map { (peer.name, $0) } }.sorted { $0.1.sent < $1.1.sent }
        return all.map { name, sample in
            String(
                format: "%d,%@,%.1f,%.1f,%.1f\n", run, name, Double(sample.sent) / 1000, sample.latency,
                sample.lateness)
        }.joined()
    }
}
