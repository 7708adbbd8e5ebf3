import Foundation
import StrokeRecognition
import ZeroMQ

/// Throughput, latency and memory: the real stroke-worker (a child process) against raw libzmq peers on the
/// same frames.
struct WorkerBenchmarks {
    struct ThroughputRow: Codable {
        var encoding: String
        var pointsPerMessage: Int
        var sessions: Int
        var messages: Int
        var points: Int
        var rawMessagesPerSecond: Double
        var rawPointsPerSecond: Double
        var workerMessagesPerSecond: Double
        var workerPointsPerSecond: Double
        var ratio: Double
        /// The worker's CPU time per message while it handled the traffic, in µs, by thread role.
        var workerCPU: WorkerCPU
        /// The raw consumer's CPU time per message (its receiving thread and libzmq's I/O thread), in µs: what
        /// the same frames cost a process that does nothing with them.
        var rawCPUMicroseconds: Double
        /// The producer's CPU time per message (its sending thread and this process's libzmq I/O thread), in µs,
        /// in the raw runs (mean of the two) and in the worker's, where that I/O thread also receives the results.
        var producerCPUMicroseconds: Double
        var producerCPUWorkerRunMicroseconds: Double
        /// The result counter's thread, per message, in µs, in the worker's run.
        var counterCPUMicroseconds: Double
        /// The busy share of all the machine's cores while the worker ran, and while the raw pair ran (mean of the
        /// two raw runs): near 1, the cores are the bound; well below, threads waiting on each other are.
        var machineBusyWorker: Double
        var machineBusyRaw: Double
        /// The two raw runs, before and after the worker's, each on its own: the raw figures above are their means.
        var rawRuns: [RawRun]
        /// How long the worker's lanes waited for their recognition helpers, from the counters it logs as it stops;
        /// nil where it logged none (a worker given with `--worker` from before they were counted).
        var helperWaits: HelperWaits? = nil

        /// The ratio the CPU accounting gives: the messages per second each run's busy share buys at its parties'
        /// CPU per message (the worker's run: producer, worker and result counter; the raw runs: producer and raw
        /// consumer). Close to `ratio` when those parties are all that ran. The raw side is the mean of what each
        /// raw run's accounting buys, as the raw rate is the mean of their rates: from the means of their CPU and
        /// busy shares instead, two raw runs that disagree (a fast one and a slow one that spent more CPU a
        /// message) seemed to take more than the machine's cores (sessions 61 and 62).
        var accountedRatio: Double {
            let worker = producerCPUWorkerRunMicroseconds + workerCPU.total + counterCPUMicroseconds
            return (machineBusyWorker / worker) / accountedRawRate
        }

        /// Messages per µs of the machine's cores the raw runs' accounting buys: the mean of each run's.
        var accountedRawRate: Double { rawRuns.map(\.accountedRate).reduce(0, +) / Double(rawRuns.count) }
    }

    /// The worker's waits for its recognition helpers over a throughput run (`WorkerMetrics.helperWaits`): a lane
    /// whose queue of events fills with strokes its helper has not recognized stops reading input until the helper
    /// catches up, and meanwhile the lossless producer waits too, leaving a core idle.
    struct HelperWaits: Codable {
        /// Waits per second of the run (first message sent to last result received).
        var perSecond: Double
        /// The share of the run's time the lanes spent waiting (summed over the lanes).
        var share: Double
        /// The share of the run's strokes that the lanes handed to their helpers rather than recognized themselves.
        var strokesOffloaded: Double

        /// From the worker's counters (`WorkerMetrics.snapshot`) after a run of `seconds` that ended `strokes`;
        /// nil if they lack the helper's.
        init?(counters: [String: Int], seconds: Double, strokes: Int) {
            guard let waits = counters["helperWaits"], let waited = counters["helperWaitMicroseconds"],
                let offloaded = counters["strokesOffloaded"], seconds > 0, strokes > 0
            else { return nil }
            perSecond = Double(waits) / seconds
            share = Double(waited) / 1e6 / seconds
            strokesOffloaded = Double(offloaded) / Double(strokes)
        }
    }

    /// One run of the raw pair alone, just before or just after the worker's.
    struct RawRun: Codable {
        /// Messages per second into the raw consumer.
        var messagesPerSecond: Double
        /// The raw consumer's CPU time per message, in µs.
        var consumerCPUMicroseconds: Double
        /// The producer's CPU time per message (its thread and this process's libzmq I/O thread), in µs.
        var producerCPUMicroseconds: Double
        /// The busy share of all the machine's cores meanwhile.
        var machineBusy: Double

        /// Messages per µs of the machine's cores its busy share buys at the pair's CPU per message.
        var accountedRate: Double { machineBusy / (producerCPUMicroseconds + consumerCPUMicroseconds) }
    }

    /// CPU time per message of the worker's threads, in µs: the lane (decoding, sessions, detector), the
    /// recognition helper or publisher, libzmq's I/O threads, and the rest.
    struct WorkerCPU: Codable {
        var lane = 0.0
        var recognition = 0.0
        var io = 0.0
        var other = 0.0
        /// µs per message the lane spent ready to run but waiting for a core (`schedstat`'s run-queue time): on
        /// this 2-core machine, the time the threads that share its cores took from it.
        var laneWaiting = 0.0
        /// The threads counted as `other`, by name (µs per message), where they took 0.01 µs or more: which thread a
        /// run's time went to when a thread's name was not the one expected.
        var otherThreads: [String: Double]? = nil
        var total: Double { lane + recognition + io + other }

        /// The difference of two snapshots of thread CPU times, divided by `messages`.
        init(
            from before: [Int: ChildProcess.ThreadTime], to after: [Int: ChildProcess.ThreadTime],
            messages: Int
        ) {
            var others = [String: Double]()
            defer { otherThreads = others.isEmpty ? nil : others }
            for (id, thread) in after {
                let microseconds = (thread.seconds - (before[id]?.seconds ?? 0)) * 1e6 / Double(messages)
                if thread.name.hasPrefix("lane-") {
                    lane += microseconds
                    laneWaiting +=
                        (thread.waitingSeconds - (before[id]?.waitingSeconds ?? 0)) * 1e6 / Double(messages)
                } else if thread.name.hasPrefix("recognize-") || thread.name.hasPrefix("publish-") {
                    recognition += microseconds
                } else if thread.name.hasPrefix("ZMQbg/IO") {
                    io += microseconds
                } else {
                    other += microseconds
                    if microseconds >= 0.01 { others["\(thread.name) (\(id))", default: 0] += microseconds }
                }
            }
        }

        init() {}
    }

    struct Latency: Codable {
        var offeredMessagesPerSecond: Double
        var strokes: Int
        var p50Us: Double
        var p99Us: Double
        var p999Us: Double
        var rawP50Us: Double
        var rawP99Us: Double
        var rawP999Us: Double
        /// The share of strokes whose end the producer sent on schedule (at most `lateMicroseconds` after it was
        /// due), over the worker's pieces; the rest were sent late, in a burst after a stall of the producer.
        var onScheduleShare: Double
        /// p99 over the strokes whose end was sent on schedule: the worker's, and the raw echo's.
        var onScheduleP99Us: Double
        var rawOnScheduleP99Us: Double
        /// Set when a raw echo with this much busy work per message (ns) stood in for the worker
        /// (`--latency-standin`): then the "worker" figures are the stand-in's.
        var standInNanoseconds: Int?
        /// The producer's burst interval in microseconds (`--latency-tick`; 250 by default).
        var tickMicroseconds: Int
    }

    /// How late a send may be and still count as on schedule, in microseconds: four pacing ticks.
    static let lateMicroseconds = 1000.0

    /// Pieces of the latency traffic, half a second each, that the worker and the raw echo take turns on (four
    /// with `--quick`). With pieces of a second, a stall of the host of about a second still fell on one peer
    /// only.
    static let latencyRounds = 8

    struct Memory: Codable {
        var idleSessions: Int
        var residentBytesEmpty: Int
        var residentBytesLoaded: Int
        var bytesPerSession: Double
    }

    let worker: String
    /// Arguments added to every stroke-worker started (`--worker-args`), to measure another configuration.
    var workerArguments: [String] = []
    /// Whether the throughput sections' sessions run the checkmark detector (`--checkmark`); the latency section's
    /// always do.
    var checkmark = true
    /// Nanoseconds of busy work per message of a raw echo that stands in for the worker in the latency section
    /// (`--latency-standin`); nil: the worker.
    var latencyStandIn: Int?
    /// How often the latency section's producer sends what is due, in microseconds (`--latency-tick`).
    var latencyTickMicroseconds = 250
    /// Where the latency section appends every stroke it timed (`--latency-trace`, `LatencyTrace`); nil: nowhere.
    var latencyTrace: LatencyTrace?
    /// The CPUs the worker and the raw peers run on (`--peer-cpus`, a list as `taskset -c` takes it); nil: wherever
    /// the scheduler puts them.
    var peerCPUs: String?
    /// The throughput section's keys with `--curve`: every socket of its raw pair and of the worker's run speaks
    /// CURVE; nil: plain ZMTP.
    var curve: BenchCurve?
    let myself: String
    let strokes: [[StrokePoint]]
    let quick: Bool
    /// Messages per 1-point throughput case (4 times fewer with 32 points); nil: 400,000 (150,000 quick).
    var messages: Int? = nil
    let context: ZMQContext

    // MARK: - Peers

    /// Starts the stroke-worker on loopback ports of its choosing, statistics off, with `extra` and
    /// `workerArguments`.
    func startWorker(_ extra: [String] = []) throws -> ChildProcess {
        try ChildProcess(
            worker,
            ["--input", "tcp://127.0.0.1:*", "--output", "tcp://127.0.0.1:*", "--stats-interval", "0"] + extra
                + workerArguments, cpus: peerCPUs)
    }

    /// Starts a raw echo peer (`stroke-bench raw-echo`) on loopback ports of its choosing, spending
    /// `workNanoseconds` of busy work on each message.
    func startEcho(workNanoseconds: Int = 0) throws -> ChildProcess {
        try ChildProcess(
            myself,
            [
                "raw-echo", "--input", "tcp://127.0.0.1:*", "--output", "tcp://127.0.0.1:*", "--work-ns",
                "\(workNanoseconds)",
            ], cpus: peerCPUs)
    }
}
