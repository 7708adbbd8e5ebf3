import Foundation
import StrokeRecognition
import StrokeWorker

/// The worker's per-message work alone, in process and without sockets: decode, route, session update,
/// checkmark detector, recognition at stroke end, event encoding. It shows what the sockets leave to us.
enum ProcessorBenchmark {
    struct Row: Codable, Sendable {
        var encoding: String
        var pointsPerMessage: Int
        var sessions: Int
        var messagesPerSecond: Double
        var nanosecondsPerPoint: Double
        /// Messages handled: what `scripts/profile.sh` divides instruction counts by.
        var messages: Int
        /// Strokes ended, each answered by a `match` or `nomatch` event.
        var strokes: Int
        /// Events published: one per stroke, plus the checkmark detections (the traffic causes no errors).
        var events: Int
    }

    /// Each case sends at least 80 points per session (a stroke's worth), so that most messages find their
    /// session and stroke open, as in steady traffic, rather than creating them. With `checkmark` false the
    /// sessions turn their checkmark detector off first (`--checkmark off`). With a `tilt` (degrees), every session
    /// starts with that tilt estimate, restored as from a state file, so that the detector turns its points.
    static func run(
        strokes: [[StrokePoint]], quick: Bool, cases: [String], sessionCounts: [Int], checkmark: Bool = true,
        tilt: Int = 0
    ) throws -> [Row] {
        var rows = [Row]()
        let registry = try LibraryRegistry([try TemplateLibrary.builtIn()])
        for encoding in Traffic.Encoding.allCases {
            for pointsPerMessage in [1, 32] where cases.contains("\(encoding.rawValue)-\(pointsPerMessage)") {
                for sessions in sessionCounts {
                    let traffic = Traffic.make(
                        strokes: strokes, sessions: sessions, pointsPerMessage: pointsPerMessage, encoding: encoding,
                        messages: max(quick ? 100_000 : 300_000, sessions * 80) / (pointsPerMessage == 1 ? 1 : 8),
                        prefix: "p-", checkmark: checkmark)
                    var processor = SessionProcessor(
                        sink: CountingSink(), configuration: WorkerConfiguration(), registry: registry,
                        metrics: WorkerMetrics()
                    )
                    if tilt != 0 {
                        let estimate = TiltEstimate(degrees: Int8(tilt), samples: TiltEstimate.warmUp)
                        let snapshots = (0..<sessions).map {
                            SessionSnapshot(
                                session: "p-\($0)", seq: 0, eventSeq: 0, library: "default", checkmark: checkmark,
                                tilt: estimate)
                        }
                        guard processor.restore(snapshots).restored == sessions else {
                            throw BenchError("sessions not restored with their tilt")
                        }
                    }
                    // As the lane does: batches of messages whose sessions are fetched ahead, through code
                    // specialized for the sink as the lane's is.
                    let frames = traffic.frameCopies()
                    let limit = SessionProcessor<CountingSink>.batchLimit
                    let started = BenchClock.now()
                    for start in stride(from: 0, to: traffic.count, by: limit) {
                        frames.withBatch(start..<min(start + limit, traffic.count)) {
                            processor.handleCounting(batch: $0)
                        }
                    }
                    let seconds = Double(BenchClock.now() - started) / 1e9
                    guard processor.sink.events >= traffic.ends.count else { throw BenchError("events missing") }
                    rows.append(
                        Row(
                            encoding: encoding.rawValue, pointsPerMessage: pointsPerMessage, sessions: sessions,
                            messagesPerSecond: Double(traffic.count) / seconds,
                            nanosecondsPerPoint: seconds * 1e9 / Double(traffic.pointCount), messages: traffic.count,
                            strokes: traffic.ends.count, events: processor.sink.events))
                }
            }
        }
        return rows
    }
}
