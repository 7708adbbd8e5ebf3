import Foundation
import StrokeRecognition
import ZeroMQ

extension WorkerBenchmarks {
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
        let (worker, workerCPU, counters) = try await workerRate(traffic, prefix: prefix)
        let rawAfter = try await rawRate(traffic)
        let perMessage = Double(traffic.pointCount) / Double(traffic.count)
        let microseconds = 1e6 / Double(traffic.count)
        let rawRuns = [rawBefore, rawAfter].map { raw in
            RawRun(
                messagesPerSecond: raw.rate, consumerCPUMicroseconds: raw.cpuMicroseconds,
                producerCPUMicroseconds: raw.producerSeconds * microseconds, machineBusy: raw.busy)
        }
        // The mean of a figure over the raw runs: the row's raw figures.
        func mean(_ figure: (RawRun) -> Double) -> Double { rawRuns.map(figure).reduce(0, +) / Double(rawRuns.count) }
        let raw = mean(\.messagesPerSecond)
        return ThroughputRow(
            encoding: encoding.rawValue, pointsPerMessage: pointsPerMessage, sessions: sessions,
            messages: traffic.count, points: traffic.pointCount, rawMessagesPerSecond: raw,
            rawPointsPerSecond: raw * perMessage, workerMessagesPerSecond: worker.rate,
            workerPointsPerSecond: worker.rate * perMessage, ratio: worker.rate / raw, workerCPU: workerCPU,
            rawCPUMicroseconds: mean(\.consumerCPUMicroseconds),
            producerCPUMicroseconds: mean(\.producerCPUMicroseconds),
            producerCPUWorkerRunMicroseconds: worker.producerSeconds * microseconds,
            counterCPUMicroseconds: worker.counterSeconds * microseconds,
            machineBusyWorker: worker.busy, machineBusyRaw: mean(\.machineBusy), rawRuns: rawRuns,
            helperWaits: counters.flatMap {
                HelperWaits(counters: $0, seconds: Double(traffic.count) / worker.rate, strokes: traffic.ends.count)
            })
    }

    /// Messages per second into a raw SUB sink process that only counts, its CPU time per message in µs, and the
    /// producer's CPU time in seconds (its thread and this process's libzmq I/O thread).
    private func rawRate(_ traffic: Traffic) async throws
        -> (rate: Double, cpuMicroseconds: Double, busy: Double, producerSeconds: Double)
    {
        let sink = try ChildProcess(
            myself,
            ["raw-sink", "--endpoint", "tcp://127.0.0.1:*", "--count", "\(traffic.count)"]
                + (curve.map { ["--curve-secret", $0.server.secretKey] } ?? []), cpus: peerCPUs)
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

    /// Messages per second through the worker: from the first message sent to the last result received; its CPU
    /// per message, and the counters it logged as it stopped (nil if none).
    private func workerRate(_ traffic: Traffic, prefix: String) async throws
        -> (ResultRate, WorkerCPU, [String: Int]?)
    {
        let process = try startWorker(
            ["--log-level", "info"] + (curve.map { ["--curve-secret-key", $0.secretKeyFile] } ?? []))
        defer { _ = process.terminate() }
        let (input, output) = try process.workerEndpoints()
        let before = process.threadCPUTimes()
        let rate: ResultRate
        do {
            rate = try await Self.resultRate(
                traffic, input: input, output: output, prefix: prefix, context: context, curve: curve)
        } catch let error as BenchError {
            // Results missing: what the worker counted says whether it dropped them, refused input or never got it.
            throw BenchError(
                error.description + "; " + Self.lossReport(process.stopAndReadCounters(), messages: traffic.count))
        }
        let cpu = WorkerCPU(from: before, to: process.threadCPUTimes(), messages: traffic.count)
        return (rate, cpu, process.stopAndReadCounters())
    }

    /// What the worker's counters, read as it stopped (`ChildProcess.stopAndReadCounters()`), say of results that
    /// did not arrive: the messages it received of the `messages` sent, the strokes it recognized, the events it
    /// published and dropped (a consumer that did not keep up within its `--send-timeout`), the gaps it saw in the
    /// input's numbering and the errors it sent, by code.
    static func lossReport(_ counters: [String: Int]?, messages: Int) -> String {
        guard let counters else { return "the worker logged no counters as it stopped" }
        let count = { (key: String) in counters[key] ?? 0 }
        var report =
            "the worker received \(count("messagesReceived")) of \(messages) messages, recognized "
            + "\(count("strokesRecognized")) strokes, published \(count("eventsPublished")) "
            + "events and dropped \(count("eventsDropped")) (with --slow-consumers wait, for a consumer that did not "
            + "keep up within --send-timeout; by default a consumer that falls --hwm events behind misses them "
            + "uncounted), and saw \(count("inputGaps")) gaps in the input's numbering"
        let errors = counters.filter { $0.key.hasPrefix("errors.") && $0.value > 0 }.sorted { $0.key < $1.key }
        if !errors.isEmpty {
            report += "; errors: " + errors.map { "\($0.key.dropFirst(7)) \($0.value)" }.joined(separator: ", ")
        }
        return report
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
            let started = try producer.sendAll(traffic)
            // The producer stays connected until every result is in (`ResultCounter.waitUntilFinished`).
            counter.waitUntilFinished()
            return (started, load, producer.cpuSeconds)
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
}
