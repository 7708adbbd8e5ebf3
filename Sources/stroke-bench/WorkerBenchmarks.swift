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

        /// The ratio the CPU accounting gives: the messages per second each run's busy share buys at its parties'
        /// CPU per message (the worker's run: producer, worker and result counter; the raw runs: producer and raw
        /// consumer). Close to `ratio` when those parties are all that ran and the two raw runs agree (the raw
        /// figures are their means).
        var accountedRatio: Double {
            let worker = producerCPUWorkerRunMicroseconds + workerCPU.total + counterCPUMicroseconds
            let raw = producerCPUMicroseconds + rawCPUMicroseconds
            return (machineBusyWorker / worker) / (machineBusyRaw / raw)
        }
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
    /// The throughput section's keys with `--curve`: every socket of its raw pair and of the worker's run speaks
    /// CURVE; nil: plain ZMTP.
    var curve: BenchCurve?
    let myself: String
    let strokes: [[StrokePoint]]
    let quick: Bool
    /// Messages per 1-point throughput case (4 times fewer with 32 points); nil: 400,000 (150,000 quick).
    var messages: Int? = nil
    let context: ZMQContext

    // MARK: - Throughput

    func throughput(encoding: Traffic.Encoding, pointsPerMessage: Int, sessions: Int, run: Int) async throws
        -> ThroughputRow
    {
        let budget = (messages ?? (quick ? 150_000 : 400_000)) / (pointsPerMessage == 1 ? 1 : 4)
        let prefix = "b\(run)-\(encoding.rawValue)-\(pointsPerMessage)-\(sessions)-"
        let traffic = Traffic.make(
            strokes: strokes, sessions: sessions, pointsPerMessage: pointsPerMessage, encoding: encoding,
            messages: max(budget, sessions * 4), prefix: prefix, checkmark: checkmark)
        // The raw limit is measured just before and just after the worker and averaged: this machine's speed
        // drifts over seconds, and bracketing keeps the ratio from depending on which side of a drift the
        // worker ran.
        let rawBefore = try await rawRate(traffic)
        let (worker, workerCPU) = try await workerRate(traffic, prefix: prefix)
        let rawAfter = try await rawRate(traffic)
        let raw = (rawBefore.rate + rawAfter.rate) / 2
        let perMessage = Double(traffic.pointCount) / Double(traffic.count)
        let microseconds = 1e6 / Double(traffic.count)
        return ThroughputRow(
            encoding: encoding.rawValue, pointsPerMessage: pointsPerMessage, sessions: sessions,
            messages: traffic.count, points: traffic.pointCount, rawMessagesPerSecond: raw,
            rawPointsPerSecond: raw * perMessage, workerMessagesPerSecond: worker.rate,
            workerPointsPerSecond: worker.rate * perMessage, ratio: worker.rate / raw, workerCPU: workerCPU,
            rawCPUMicroseconds: (rawBefore.cpuMicroseconds + rawAfter.cpuMicroseconds) / 2,
            producerCPUMicroseconds: (rawBefore.producerSeconds + rawAfter.producerSeconds) / 2 * microseconds,
            producerCPUWorkerRunMicroseconds: worker.producerSeconds * microseconds,
            counterCPUMicroseconds: worker.counterSeconds * microseconds,
            machineBusyWorker: worker.busy, machineBusyRaw: (rawBefore.busy + rawAfter.busy) / 2)
    }

    /// Messages per second into a raw SUB sink process that only counts, its CPU time per message in µs, and the
    /// producer's CPU time in seconds (its thread and this process's libzmq I/O thread).
    private func rawRate(_ traffic: Traffic) async throws
        -> (rate: Double, cpuMicroseconds: Double, busy: Double, producerSeconds: Double)
    {
        let sink = try ChildProcess(
            myself,
            ["raw-sink", "--endpoint", "tcp://127.0.0.1:*", "--count", "\(traffic.count)"]
                + (curve.map { ["--curve-secret", $0.server.secretKey] } ?? []))
        let line = try sink.waitForLine(containing: "listening")
        let endpoint = String(line.split(separator: " ").last!)
        let (context, curve) = (self.context, self.curve)
        let load = MachineLoad.now()
        let ioBefore = ChildProcess.ownIOSeconds()
        let (started, sending) = try await onThread {
            let producer = try BenchProducer(context: context, endpoint: endpoint, curve: curve)
            return (try producer.sendAll(traffic), producer.cpuSeconds)
        }
        let output = sink.output()
        let busy = load.busyFraction(until: MachineLoad.now())
        // The sink has received everything: the I/O thread has sent it all.
        let producerSeconds = sending + ChildProcess.ownIOSeconds() - ioBefore
        let report = try JSONSerialization.jsonObject(with: Data(output.utf8)) as! [String: Any]
        let count = report["count"] as! Int
        let last = (report["last"] as! NSNumber).uint64Value
        guard count == traffic.count else { throw BenchError("raw sink got \(count) of \(traffic.count)") }
        let cpu = (report["cpuSeconds"] as? NSNumber)?.doubleValue ?? .nan
        return (Double(count) / (Double(last - started) / 1e9), cpu * 1e6 / Double(count), busy, producerSeconds)
    }

    /// Messages per second through the worker: from the first message sent to the last result received.
    private func workerRate(_ traffic: Traffic, prefix: String) async throws -> (ResultRate, WorkerCPU) {
        let process = try startWorker(
            ["--log-level", "info"] + (curve.map { ["--curve-secret-key", $0.secretKeyFile] } ?? []))
        defer { _ = process.terminate() }
        let (input, output) = try process.workerEndpoints()
        let before = process.threadCPUTimes()
        let rate = try await Self.resultRate(
            traffic, input: input, output: output, prefix: prefix, context: context, curve: curve)
        return (rate, WorkerCPU(from: before, to: process.threadCPUTimes(), messages: traffic.count))
    }

    /// What `resultRate` measures: messages per second, the machine's busy share, and the CPU time (seconds) of
    /// the producer (its thread and this process's libzmq I/O thread, which also receives the results) and of the
    /// result counter's thread.
    struct ResultRate {
        var rate: Double
        var busy: Double
        var producerSeconds: Double
        var counterSeconds: Double
    }

    /// Sends `traffic` to `input` and counts the results (one per stroke) arriving at `output`; messages per
    /// second from the first send to the last result, once the subscriptions reaching the producer cover every
    /// shard bucket. `busy` is the machine's busy share over the same time.
    static func resultRate(
        _ traffic: Traffic, input: String, output: String, prefix: String, context: ZMQContext,
        curve: BenchCurve? = nil
    ) async throws -> ResultRate {
        let counter = ResultCounter(
            endpoint: output, prefix: prefix, expected: traffic.ends.count, recordArrivals: false, curve: curve)
        let ioBefore = ChildProcess.ownIOSeconds()
        async let consumer: Void = onThread { try counter.run(context: context) }
        let (started, load, sending) = try await onThread {
            let producer = try BenchProducer(context: context, endpoint: input, curve: curve)
            try counter.waitUntilSubscribed(producer)
            let load = MachineLoad.now()
            return (try producer.sendAll(traffic), load, producer.cpuSeconds)
        }
        try await consumer
        let busy = load.busyFraction(until: MachineLoad.now())
        let producerSeconds = sending + ChildProcess.ownIOSeconds() - ioBefore
        let count = counter.count.load(ordering: .acquiring)
        guard count == traffic.ends.count else {
            throw BenchError("answered \(count) of \(traffic.ends.count) strokes")
        }
        return ResultRate(
            rate: Double(traffic.count) / (Double(counter.last.load(ordering: .acquiring) - started) / 1e9), busy: busy,
            producerSeconds: producerSeconds,
            counterSeconds: Double(counter.cpuNanoseconds.load(ordering: .acquiring)) / 1e9)
    }

    // MARK: - Latency

    /// Stroke end sent → result received, at `rate` messages per second, through the worker and through the raw
    /// echo peer.
    ///
    /// Both peers run at once and take turns over one traffic cut into `latencyRounds` pieces (which one goes
    /// first alternates), so that the host's stalls, which come and go over seconds, fall on either with the
    /// same odds. Measured one after the other, the two p99s came from different stretches of the host's noise.
    func latency(rate: Double, run: Int) async throws -> Latency {
        let rounds = quick ? Self.latencyRounds / 2 : Self.latencyRounds
        let seconds = quick ? 2.0 : 4.0
        let worker = try latencyStandIn.map { try startEcho(workNanoseconds: $0) } ?? startWorker()
        defer { _ = worker.terminate() }
        let echo = try startEcho()
        defer { _ = echo.terminate() }
        // One traffic, cut into rounds: the worker's sessions go on from one round to the next.
        let prefix = "l\(run)-"
        let traffic = Traffic.make(
            strokes: strokes, sessions: 1000, pointsPerMessage: 1, encoding: .binary, messages: Int(rate * seconds),
            prefix: prefix)
        var workerSamples = [(latency: Double, lateness: Double)]()
        var rawSamples = [(latency: Double, lateness: Double)]()
        for (round, piece) in traffic.split(into: rounds).enumerated() {
            for turn in 0..<2 {
                if (round + turn) % 2 == 0 {
                    workerSamples += try await paced(piece, rate: rate, prefix: prefix, peer: worker)
                } else {
                    rawSamples += try await paced(piece, rate: rate, prefix: "", peer: echo)
                }
            }
        }
        func percentile(_ sorted: [Double], _ q: Double) -> Double {
            sorted.isEmpty ? .nan : sorted[min(sorted.count - 1, Int(q * Double(sorted.count)))]
        }
        func latencies(_ samples: [(latency: Double, lateness: Double)], onScheduleOnly: Bool) -> [Double] {
            samples.filter { !onScheduleOnly || $0.lateness <= Self.lateMicroseconds }.map(\.latency).sorted()
        }
        let workerLatencies = latencies(workerSamples, onScheduleOnly: false)
        let workerOnSchedule = latencies(workerSamples, onScheduleOnly: true)
        let rawLatencies = latencies(rawSamples, onScheduleOnly: false)
        return Latency(
            offeredMessagesPerSecond: rate, strokes: workerLatencies.count, p50Us: percentile(workerLatencies, 0.5),
            p99Us: percentile(workerLatencies, 0.99), p999Us: percentile(workerLatencies, 0.999),
            rawP50Us: percentile(rawLatencies, 0.5),
            rawP99Us: percentile(rawLatencies, 0.99), rawP999Us: percentile(rawLatencies, 0.999),
            onScheduleShare: Double(workerOnSchedule.count) / Double(max(workerLatencies.count, 1)),
            onScheduleP99Us: percentile(workerOnSchedule, 0.99),
            rawOnScheduleP99Us: percentile(latencies(rawSamples, onScheduleOnly: true), 0.99),
            standInNanoseconds: latencyStandIn, tickMicroseconds: latencyTickMicroseconds)
    }

    /// Each answered stroke's latency and how late its end was sent after it was due, both in microseconds.
    private func paced(_ traffic: Traffic, rate: Double, prefix: String, peer: ChildProcess) async throws
        -> [(latency: Double, lateness: Double)]
    {
        // A piece can hold no stroke end at low loads: a stroke goes whole to the piece it begins in, and with
        // 1,000 sessions side by side a round of a few thousand messages may begin none. Nothing to measure then
        // (and a counter expecting nothing would stop before the probe came back).
        guard !traffic.ends.isEmpty else { return [] }
        let (input, output) = try peer.workerEndpoints()
        let counter = ResultCounter(
            endpoint: output, prefix: prefix, expected: traffic.ends.count, recordArrivals: true)
        let context = self.context
        async let consumer: Void = onThread { try counter.run(context: context, idleSeconds: 10) }
        let sent = try await onThread { () -> [(sent: UInt64, due: UInt64)] in
            let producer = try BenchProducer(context: context, endpoint: input)
            try counter.waitUntilSubscribed(producer)
            var endTimes = [(sent: UInt64, due: UInt64)]()
            endTimes.reserveCapacity(traffic.ends.count)
            var nextEnd = 0
            let interval = 1e9 / rate
            let started = BenchClock.now()
            // Paced in ticks (250 µs by default): each tick sends the messages due by then and sleeps, so that the
            // producer does not spin on a core the worker needs.
            let tick = UInt64(latencyTickMicroseconds) * 1000
            for index in 0..<traffic.count {
                let due = started + UInt64(Double(index) * interval)
                if due > BenchClock.now() { BenchClock.sleep(until: (due + tick - 1) / tick * tick) }
                if nextEnd < traffic.ends.count && traffic.ends[nextEnd] == index {
                    endTimes.append((BenchClock.now(), due))
                    nextEnd += 1
                }
                try producer.send(traffic, index)
            }
            return endTimes
        }
        try await consumer
        // Pair each session's k-th end with its k-th result.
        var sentBySession = [String: [(sent: UInt64, due: UInt64)]]()
        for (k, index) in traffic.ends.enumerated() {
            let topic = String(decoding: traffic.topics[index].dropFirst(4), as: UTF8.self)
            sentBySession[topic, default: []].append(sent[k])
        }
        let arrivals = counter.arrivals.withLock { $0 }
        var samples = [(latency: Double, lateness: Double)]()
        for (session, times) in arrivals {
            guard let sends = sentBySession[session] else { continue }
            for (send, arrival) in zip(sends, times) {
                let lateness = send.sent > send.due ? send.sent - send.due : 0
                samples.append((Double(arrival - send.sent) / 1000, Double(lateness) / 1000))
            }
        }
        return samples
    }

    /// Starts the stroke-worker on loopback ports of its choosing, statistics off, with `extra` and
    /// `workerArguments`.
    private func startWorker(_ extra: [String] = []) throws -> ChildProcess {
        try ChildProcess(
            worker,
            ["--input", "tcp://127.0.0.1:*", "--output", "tcp://127.0.0.1:*", "--stats-interval", "0"] + extra
                + workerArguments)
    }

    /// Starts a raw echo peer (`stroke-bench raw-echo`) on loopback ports of its choosing, spending
    /// `workNanoseconds` of busy work on each message.
    private func startEcho(workNanoseconds: Int = 0) throws -> ChildProcess {
        try ChildProcess(
            myself,
            [
                "raw-echo", "--input", "tcp://127.0.0.1:*", "--output", "tcp://127.0.0.1:*", "--work-ns",
                "\(workNanoseconds)",
            ])
    }

    // MARK: - Memory

    /// Resident memory of a fresh worker with no session, then with `count` idle sessions.
    func memory(sessions count: Int) async throws -> Memory {
        let worker = try startWorker(["--idle-timeout", "3600"])
        defer { _ = worker.terminate() }
        let (input, output) = try worker.workerEndpoints()
        let context = self.context
        // Warm up with a handful of strokes so that the empty figure includes the code paths' own memory.
        let warm = Traffic.make(
            strokes: strokes, sessions: 16, pointsPerMessage: 8, encoding: .binary, messages: 2000, prefix: "warm-")
        let counter = ResultCounter(endpoint: output, prefix: "warm-", expected: warm.ends.count, recordArrivals: false)
        async let consumer: Void = onThread { try counter.run(context: context, idleSeconds: 10) }
        try await onThread {
            let producer = try BenchProducer(context: context, endpoint: input)
            try counter.waitUntilSubscribed(producer)
            try producer.sendAll(warm)
        }
        try await consumer
        try await Task.sleep(for: .milliseconds(300))
        let empty = worker.residentBytes()
        let done = ResultCounter(endpoint: output, prefix: "idle-end", expected: 1, recordArrivals: false)
        async let finished: Void = onThread { try done.run(context: context, idleSeconds: 30) }
        try await onThread {
            let producer = try BenchProducer(context: context, endpoint: input)
            try done.waitUntilSubscribed(producer)
            let options = Array(#"{"type":"options","seq":1,"checkmark":true}"#.utf8)
            for k in 0..<count {
                try producer.socket.sendMultipart([Array(StrokeProtocolTopics.topic("idle-\(k)").utf8), options])
            }
            // A one-point stroke after them: its result means every session before it exists (one lane, in order).
            let end = Array(StrokeProtocolTopics.topic("idle-end").utf8)
            try producer.socket.sendMultipart([
                end, Array(#"{"type":"begin","seq":1,"stroke":1,"points":[[1,1,1]]}"#.utf8),
            ])
            try producer.socket.sendMultipart([end, Array(#"{"type":"end","seq":2,"stroke":1}"#.utf8)])
        }
        try await finished
        try await Task.sleep(for: .milliseconds(300))
        let loaded = worker.residentBytes()
        return Memory(
            idleSessions: count, residentBytesEmpty: empty, residentBytesLoaded: loaded,
            bytesPerSession: Double(loaded - empty) / Double(count))
    }
}
