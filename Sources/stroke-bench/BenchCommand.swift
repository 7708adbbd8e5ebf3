import Foundation
import StrokeRecognition
import StrokeWorker
import ZeroMQ

/// `stroke-bench`: the worker against raw libzmq on the same frames, latency, memory, recognizer scaling.
enum BenchCommand {
    /// The options `usage` lists, which alone are accepted.
    static let optionNames: Set<String> = [
        "quick", "json", "help", "curve", "runs", "dataset", "worker", "only", "capacity", "templates", "cases",
        "messages", "sessions", "worker-args", "latency-standin", "latency-tick", "checkmark", "cold-sweep", "learned",
        "among", "tilt", "latency-trace", "peer-cpus",
    ]
    /// The options of `optionNames` that take no value.
    static let flagNames: Set<String> = ["quick", "json", "help", "curve"]

    static let usage = """
        USAGE: stroke-bench [--quick] [--json] [--runs N] [--dataset DIR] [--worker PATH] [--only SECTIONS]

        Measures, in one run (release build; `make bench`):
          throughput  raw libzmq PUB→SUB across processes vs the real stroke-worker on the same frames:
                      binary and JSON, 1 and 32 points per message, 1,000 and 10,000 sessions (the raw
                      rate is measured before and after the worker and averaged)
          latency     stroke end sent → match received at half the measured capacity, vs a raw echo; the two
                      take turns, half a second each, eight times
          memory      resident memory with 0 and 100,000 idle sessions
          recognizer  µs per recognition with 16, 48, 1,000 and 10,000 templates
          processor   the worker's per-message work alone, in process, without sockets
          cluster     through libzmq proxies: the proxy alone, 1-3 sharded workers, one worker without proxies
                      (not run by default; --only cluster)
          state-file  writing and reading a worker's state file of 101,000 sessions at a graceful stop, and a
                      checkpoint of the 11,000 of them that differ from a new session (not run by default;
                      --only state-file)
          producer    strokes a second through the Swift producers, StrokeProducer on a thread of its own and
                      AsyncStrokeProducer from 1 and from 8 tasks, into a counting socket (inproc; not run by
                      default; --only producer)
        Each figure is the median of --runs runs (default 3; --quick: 1 run, smaller loads, the processor section
        at the first session count only, about 25 s).

        OPTIONS
          --dataset DIR    strokes to send and templates to use (default ../shared/datasets/dollar1, from the
                           working directory; without it, synthetic strokes, as a line on standard error and
                           the report's "strokes" say; a DIR given without the data set is an error)
          --worker PATH    the stroke-worker binary (default: beside this one)
          --worker-args A  arguments added to every worker the throughput, latency and memory sections start,
                           separated by spaces (as "--recognition-offload always"; default: none)
          --only LIST      comma-separated sections to run (throughput,latency,memory,recognizer,processor,
                           cluster,state-file,producer); an option below that tunes only sections it leaves out
                           is refused
          --cases LIST     throughput and processor cases to run, as ENCODING-POINTS (default
                           binary-1,binary-32,json-1,json-32)
          --sessions LIST  concurrent sessions of the throughput and processor cases (default 1000,10000;
                           100000 shows the cost of memory that no cache holds)
          --messages N     messages per 1-point throughput case, 4 times fewer with 32 points (default
                           400000; longer runs are steadier)
          --templates LIST recognizer library sizes (default builtin,16,48,1000,10000; `builtin` is the shipped
                           library)
          --learned LIST   the recognizer section also times the built-in library matched along with this
                           many templates a session learned, as the worker does (default 1,32; 0: not measured)
          --among LIST     the recognizer section also times the built-in library recognizing each stroke among
                           this many of its gestures, then among all, as the worker does for a session that chose
                           them (default 1,4,8; 0: not measured)
          --capacity N     the worker capacity (messages/s) whose half is the latency load, when throughput is
                           not measured in the same run
          --checkmark on|off
                           off: in the throughput and processor sections each session first sends an `options`
                           message that turns its checkmark detector off, to measure what the detector costs
                           (default on)
          --tilt DEG       in the processor section every session starts with a tilt estimate of DEG degrees
                           (-45 to 45), as a tilted player's session does, so that the checkmark detector turns
                           the points of each of its messages (default 0: upright)
          --latency-standin NS
                           in the latency section, a raw echo that spends NS ns of busy work on each message
                           stands in for the worker: how much CPU per message the latency target tolerates on
                           this host (default: none, the worker)
          --cold-sweep MB  the recognizer section also times single recognitions, each after writing to MB
                           megabytes of memory (more than the CPU's caches hold: 64 does here), as a worker
                           that recognizes now and then finds its code and templates out of the cache
                           (default 0: not measured)
          --latency-tick US
                           the latency section's producer sends what is due every US microseconds, in one
                           burst: longer ticks queue more messages in front of each stroke end, as a stall of
                           the host does (default 250)
          --latency-trace FILE
                           the latency section writes every stroke it timed to FILE as CSV (run, peer, when its
                           end was sent on CLOCK_MONOTONIC, latency, lateness, in µs; perf record -k
                           CLOCK_MONOTONIC lines up with it): scripts/latency-episodes.py FILE tells the
                           host's stalls (the latency jumps at once) from stretches where a peer fell behind the
                           load (it builds up over milliseconds); refused when --only leaves the latency section
                           out (default: none)
          --peer-cpus LIST the worker, the raw sink and the raw echo of the throughput, latency and memory sections
                           run on these CPUs only (`taskset -c LIST`); run stroke-bench itself under `taskset -c`
                           on the others to give each side cores of its own (default: wherever the scheduler puts
                           them, as a deployment runs)
          --curve          the throughput section encrypts with CURVE: the raw sink and the worker are CURVE
                           servers, the producer and the result counter clients (default: plain ZMTP)
          --json           print one JSON object on stdout
        """

    struct Report: Codable {
        var runs: Int
        var quick: Bool
        /// The machine measured: CPU, cores, kernel and libzmq.
        var host = HostDescription.current()
        /// The directory of gesture logs the strokes came from, as given, or "synthetic" when none was found there
        /// (`BenchCommand.dataset(explicit:default:)`).
        var strokes = "synthetic"
        /// Whether the throughput and processor sections' sessions ran the checkmark detector (`--checkmark`).
        var checkmark: Bool
        /// The tilt, in degrees, that the processor section's sessions started with (`--tilt`), when not 0.
        var tilt: Int?
        /// Whether the throughput section ran over CURVE (`--curve`).
        var curve: Bool
        var throughput: [WorkerBenchmarks.ThroughputRow]
        var latency: WorkerBenchmarks.Latency?
        var memory: WorkerBenchmarks.Memory?
        var recognizer: [RecognizerBenchmark.Row]
        /// The same libraries with cold caches (`--cold-sweep`), when asked for.
        var recognizerCold: [RecognizerBenchmark.Row]?
        /// The built-in library along with templates a session learned (`--learned`).
        var recognizerLearned: [RecognizerBenchmark.Row]?
        /// The built-in library recognizing among some of its gestures only (`--among`).
        var recognizerAmong: [RecognizerBenchmark.Row]?
        /// Checkmark detector, nanoseconds per point, each stroke fed as one batch.
        var detectorNanosecondsPerPoint: Double?
        /// Checkmark detector, nanoseconds per point, fed one point per call.
        var detectorNanosecondsPerSinglePoint: Double?
        var processor: [ProcessorBenchmark.Row]
        var cluster: [ClusterBenchmark.Row]
        /// The state file's costs (`--only state-file`).
        var stateFile: [StateFileBenchmark.Row]?
        /// The Swift producers' rates (`--only producer`).
        var producer: [ProducerBenchmark.Row]?
    }

    static func main(_ arguments: [String]) async -> Int32 {
        do {
            if arguments.first == "raw-sink" || arguments.first == "raw-echo" {
                try runRawPeer(arguments)
                return 0
            }
            let args = try CommandLineArguments(arguments, flagNames: flagNames, known: optionNames)
            // Before session 82 `stroke-bench nothing` ran the whole benchmark, the word passed over.
            if let stray = args.positional.first {
                throw CommandLineArguments.Failure(
                    description: "unexpected argument \(stray.quotedForDisplay) (options only: each begins with --)")
            }
            if args.flag("help") {
                print(usage)
                return 0
            }
            let report = try await run(args)
            if args.flag("json") {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.sortedKeys]
                print(String(decoding: try encoder.encode(report), as: UTF8.self))
            } else {
                printText(report)
            }
            return 0
        } catch {
            // A bad command line exits 2, as stroke-worker's and stroke-tool's do; a run that failed, 1.
            let usage = error is CommandLineArguments.Failure || (error as? BenchError)?.isUsage == true
            FileHandle.standardError.write(
                Data("stroke-bench: \(error)\n\(usage ? "See stroke-bench --help.\n" : "")".utf8))
            return usage ? 2 : 1
        }
    }

    /// Runs the raw libzmq peer that `arguments` name (`raw-sink` or `raw-echo`, which the benchmark starts as its
    /// children), refusing a command line without what the peer needs, where it crashed before session 82.
    private static func runRawPeer(_ arguments: [String]) throws {
        let sink = arguments.first == "raw-sink"
        let args = try CommandLineArguments(
            Array(arguments.dropFirst()), flagNames: [],
            known: sink ? ["endpoint", "connect", "count", "curve-secret"] : ["input", "output", "work-ns"])
        func required(_ name: String) throws -> String {
            guard let value = args.value(name) else {
                throw CommandLineArguments.Failure(description: "\(arguments[0]) needs --\(name)")
            }
            return value
        }
        if let stray = args.positional.first {
            throw CommandLineArguments.Failure(description: "unexpected argument \(stray.quotedForDisplay)")
        }
        if sink {
            let count: Int = try args.parsed("count", default: 0)
            guard count > 0 else { throw CommandLineArguments.Failure(description: "raw-sink needs --count above 0") }
            try RawPeers.sink(
                endpoint: try args.value("connect") ?? required("endpoint"), count: count,
                connect: args.value("connect") != nil, curveSecretKey: args.value("curve-secret"))
        } else {
            try RawPeers.echo(
                input: try required("input"), output: try required("output"),
                workNanoseconds: try args.parsed("work-ns", default: 0))
        }
    }

    static func log(_ text: String) {
        FileHandle.standardError.write(Data("[stroke-bench] \(text)\n".utf8))
    }

    /// The data set's directory for a run: `explicit` (the `--dataset` given) when it holds the gesture logs, else a
    /// usage error naming it and the reason; without one, the default directory if it holds them, else nil, and the
    /// sections draw synthetic strokes, whose figures are not comparable with the data set's. The default is relative
    /// to the working directory, so a run started elsewhere would not find it; the fallback is said on standard
    /// error, with the reason, and the report's `strokes` records it. A directory named on purpose never falls back:
    /// a mistyped path would otherwise give figures of other strokes, said only in a line on standard error.
    /// - Throws: `BenchError.usage` for an `explicit` directory without the data set.
    static func dataset(explicit: String?, default directory: String = "../shared/datasets/dollar1") throws -> String? {
        do {
            _ = try DatasetCache.logs(at: explicit ?? directory)
            return explicit ?? directory
        } catch {
            let path = URL(fileURLWithPath: explicit ?? directory).standardizedFileURL.path
            if explicit != nil {
                throw BenchError.usage("--dataset \(path): no data set there (\(error.message))")
            }
            log("no data set at \(path) (\(error.message)): synthetic strokes, not comparable; --dataset DIR picks one")
            return nil
        }
    }

    static func run(_ args: CommandLineArguments) async throws -> Report {
        let quick = args.flag("quick")
        let runs = try args.parsed("runs", default: quick ? 1 : 3)
        // Checked before any section runs: 0 or fewer runs trapped on the median of none.
        guard (1...100).contains(runs) else {
            throw BenchError.usage("--runs: a number of runs, 1 to 100, got \(runs)")
        }
        let messages: Int? = args.value("messages") == nil ? nil : try args.parsed("messages", default: 400_000)
        if let messages, !(1...1_000_000_000).contains(messages) {
            throw BenchError.usage("--messages: a number of messages, 1 to 1000000000, got \(messages)")
        }
        let capacity: Double? = args.value("capacity") == nil ? nil : try args.parsed("capacity", default: 0.0)
        if let capacity, !(capacity >= 2 && capacity <= 1e9) {
            // Half of it is the offered load: 0 or less trapped when the pacing turned it into an interval.
            throw BenchError.usage("--capacity: messages per second, 2 to 1000000000, got \(capacity)")
        }
        let myself = URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL.path
        let worker =
            args.value("worker")
            ?? URL(fileURLWithPath: myself).deletingLastPathComponent()
            .appendingPathComponent("stroke-worker").path
        let sections = Set(
            args.values("only").isEmpty
                ? ["throughput", "latency", "memory", "recognizer", "processor"] : args.values("only"))
        let known = [
            "throughput", "latency", "memory", "recognizer", "processor", "cluster", "state-file", "producer",
        ]
        for section in sections where !known.contains(section) {
            throw BenchError.usage("--only: unknown section \(section) (one of \(known.joined(separator: ", ")))")
        }
        let recognizerChoices = try RecognizerChoices(args)
        // Checked before any section runs: a missing binary failed in the first section that started it, with
        // Foundation's "The file doesn’t exist." and no option named.
        if !sections.isDisjoint(with: ["throughput", "latency", "memory", "cluster"])
            && !FileManager.default.isExecutableFile(atPath: worker)
        {
            throw BenchError.usage(
                args.value("worker") == nil
                    ? "no stroke-worker beside stroke-bench at \(worker) (`make release` builds both; --worker PATH "
                        + "names another)"
                    : "--worker \(worker): no executable file there")
        }
        // Before its file is created: without the section it would hold only a header.
        if args.value("latency-trace") != nil && !sections.contains("latency") {
            throw BenchError.usage("--latency-trace: only the latency section writes a trace; it is not among --only")
        }
        if let unread = Self.unreadOption(given: args.givenNames, sections: sections) { throw BenchError.usage(unread) }
        // Read once the sections are known to be valid.
        let dataset = try Self.dataset(explicit: args.value("dataset"))
        let strokes = Traffic.strokes(dataset: dataset)
        let allCases = Traffic.Encoding.allCases.flatMap { encoding in [1, 32].map { "\(encoding.rawValue)-\($0)" } }
        let cases = args.values("cases").isEmpty ? allCases : args.values("cases")
        for name in cases where !allCases.contains(name) {
            throw BenchError.usage("--cases: unknown case \(name) (one of \(allCases.joined(separator: ", ")))")
        }
        let sessionCounts =
            try args.values("sessions").map { text in
                guard let count = Int(text), (1...1_000_000).contains(count) else {
                    throw BenchError.usage("--sessions: \(text) is not a session count in 1...1000000")
                }
                return count
            }.nilIfEmpty ?? [1000, 10_000]
        var bench = WorkerBenchmarks(
            worker: worker, myself: myself, strokes: strokes, quick: quick,
            messages: messages,
            context: try ZMQContext())
        bench.workerArguments = (args.value("worker-args") ?? "").split(separator: " ").map(String.init)
        if args.value("latency-standin") != nil {
            bench.latencyStandIn = try args.parsed("latency-standin", default: 0)
            guard bench.latencyStandIn! >= 0 else {
                throw BenchError.usage("--latency-standin: a count of nanoseconds")
            }
        }
        bench.latencyTickMicroseconds = try args.parsed("latency-tick", default: 250)
        guard (1...1_000_000).contains(bench.latencyTickMicroseconds) else {
            throw BenchError.usage("--latency-tick: microseconds between bursts, 1 to 1000000")
        }
        if let path = args.value("latency-trace") { bench.latencyTrace = try LatencyTrace(path: path) }
        if let cpus = args.value("peer-cpus") {
            guard ChildProcess.isCPUList(cpus) else {
                throw BenchError.usage(
                    "--peer-cpus: \(cpus) is not a CPU list as taskset -c takes it (as 1, 0,2 or 2-3)")
            }
            bench.peerCPUs = cpus
        }
        let coldSweep = try args.parsed("cold-sweep", default: 0)
        guard (0...65_536).contains(coldSweep) else { throw BenchError.usage("--cold-sweep: megabytes, 0 to 65536") }
        bench.checkmark = try WorkerConfiguration.switchValue("checkmark", args.value("checkmark")) ?? true
        let tilt = try args.parsed("tilt", default: 0)
        guard (-Int(TiltEstimate.largest)...Int(TiltEstimate.largest)).contains(tilt) else {
            throw BenchError.usage("--tilt: whole degrees, -\(TiltEstimate.largest) to \(TiltEstimate.largest)")
        }
        if args.flag("curve") { bench.curve = try BenchCurve.make() }
        defer { bench.curve?.remove() }
        var report = Report(
            runs: runs, quick: quick, checkmark: bench.checkmark, curve: bench.curve != nil, throughput: [],
            latency: nil, memory: nil,
            recognizer: [], detectorNanosecondsPerPoint: nil, processor: [], cluster: [])
        if tilt != 0 { report.tilt = tilt }
        if let dataset { report.strokes = dataset }

        if sections.contains("throughput") {
            for encoding in Traffic.Encoding.allCases {
                for pointsPerMessage in [1, 32] where cases.contains("\(encoding.rawValue)-\(pointsPerMessage)") {
                    for sessions in sessionCounts {
                        var rows = [WorkerBenchmarks.ThroughputRow]()
                        for run in 0..<runs {
                            rows.append(
                                try await bench.throughput(
                                    encoding: encoding, pointsPerMessage: pointsPerMessage, sessions: sessions, run: run
                                ))
                        }
                        let row = median(rows, by: \.ratio)
                        log(
                            String(
                                format:
                                    "throughput %@ %2d pt/msg %5d sessions: raw %9.0f msg/s, worker %9.0f msg/s (%9.0f points/s), ratio %.2f",
                                encoding.rawValue, pointsPerMessage, sessions, row.rawMessagesPerSecond,
                                row.workerMessagesPerSecond, row.workerPointsPerSecond, row.ratio))
                        log(Self.describe(row))
                        report.throughput.append(row)
                    }
                }
            }
        }
        if sections.contains("latency") {
            let measured = report.throughput.first {
                $0.encoding == "binary" && $0.pointsPerMessage == 1 && $0.sessions == 1000
            }
            let capacity = capacity ?? measured?.workerMessagesPerSecond ?? 200_000
            var rows = [WorkerBenchmarks.Latency]()
            for run in 0..<runs { rows.append(try await bench.latency(rate: capacity / 2, run: run)) }
            let row = median(rows, by: \.p99Us)
            log(
                String(
                    format:
                        "latency at %.0f msg/s: p50 %.0f µs, p99 %.0f µs, p99.9 %.0f µs; raw p50 %.0f µs, p99 %.0f µs",
                    row.offeredMessagesPerSecond, row.p50Us, row.p99Us, row.p999Us, row.rawP50Us, row.rawP99Us))
            report.latency = row
        }
        if sections.contains("memory") {
            let memory = try await bench.memory(sessions: 100_000)
            log(
                String(
                    format: "memory: %.1f MB empty, %.1f MB with %d idle sessions: %.0f bytes per session",
                    Double(memory.residentBytesEmpty) / 1e6, Double(memory.residentBytesLoaded) / 1e6,
                    memory.idleSessions,
                    memory.bytesPerSession))
            report.memory = memory
        }
        if sections.contains("recognizer") {
            try runRecognizer(
                recognizerChoices, dataset: dataset, runs: runs, quick: quick, coldSweep: coldSweep, into: &report)
        }
        if sections.contains("cluster") {
            let cluster = ClusterBenchmark(worker: worker, myself: myself, context: try ZMQContext())
            let traffic = Traffic.make(
                strokes: strokes, sessions: 1000, pointsPerMessage: 1, encoding: .binary,
                messages: quick ? 150_000 : 400_000, prefix: "cl-")
            var all = [[ClusterBenchmark.Row]]()
            for _ in 0..<runs { all.append(try await cluster.run(traffic: traffic)) }
            report.cluster = (0..<all[0].count).map { index in median(all.map { $0[index] }, by: \.messagesPerSecond) }
            for row in report.cluster {
                log(
                    String(
                        format: "cluster: %@ with %@: %.0f msg/s (%.0f points/s)", row.setup,
                        String(counting: row.workers, "worker"),
                        row.messagesPerSecond, row.pointsPerSecond))
            }
        }
        if sections.contains("state-file") {
            report.stateFile = try StateFileBenchmark.run(quick: quick, rounds: runs)
            for row in report.stateFile! {
                log(
                    String(
                        format: "state file: %@ of %d sessions (%d learned), %.1f MB: write %.1f ms, read %.1f ms",
                        row.file, row.sessions, row.learned, Double(row.bytes) / 1e6, row.writeMilliseconds,
                        row.readMilliseconds))
            }
        }
        if sections.contains("producer") {
            report.producer = try await ProducerBenchmark.run(quick: quick, rounds: runs)
            for row in report.producer! { log(ProducerBenchmark.line(row)) }
        }
        if sections.contains("processor") {
            var all = [[ProcessorBenchmark.Row]]()
            for _ in 0..<runs {
                all.append(
                    // Quick: the first session count only (10,000 sessions took 7.6 s of a 28-s run, most of it
                    // building their traffic).
                    try ProcessorBenchmark.run(
                        strokes: strokes, quick: quick, cases: cases,
                        sessionCounts: quick ? Array(sessionCounts.prefix(1)) : sessionCounts,
                        checkmark: bench.checkmark, tilt: tilt
                    ))
            }
            report.processor = (0..<all[0].count).map { index in median(all.map { $0[index] }, by: \.messagesPerSecond)
            }
            for row in report.processor {
                log(
                    String(
                        format: "processor alone: %@ %2d pt/msg %5d sessions: %9.0f msg/s, %.0f ns per point",
                        row.encoding, row.pointsPerMessage, row.sessions, row.messagesPerSecond,
                        row.nanosecondsPerPoint))
            }
        }
        return report
    }

    static func median<T>(_ values: [T], by key: (T) -> Double) -> T {
        values.sorted { key($0) < key($1) }[values.count / 2]
    }
}

extension Array {
    /// nil when empty, for `??` defaults.
    fileprivate var nilIfEmpty: Self? { isEmpty ? nil : self }
}
