import Foundation
import StrokeRecognition
import ZeroMQ

extension WorkerBenchmarks {
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
        var workerSamples = [LatencyTrace.Sample]()
        var rawSamples = [LatencyTrace.Sample]()
        for (round, piece) in traffic.split(into: rounds).enumerated() {
            for turn in 0..<2 {
                if (round + turn) % 2 == 0 {
                    workerSamples += try await paced(piece, rate: rate, prefix: prefix, peer: worker)
                } else {
                    rawSamples += try await paced(piece, rate: rate, prefix: "", peer: echo)
                }
            }
        }
        try latencyTrace?.append(run: run, worker: workerSamples, raw: rawSamples)
        func percentile(_ sorted: [Double], _ q: Double) -> Double {
            sorted.isEmpty ? .nan : sorted[min(sorted.count - 1, Int(q * Double(sorted.count)))]
        }
        func latencies(_ samples: [LatencyTrace.Sample], onScheduleOnly: Bool) -> [Double] {
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

    /// Each answered stroke: when its end was sent, its latency, and how late its end was sent after it was due.
    private func paced(_ traffic: Traffic, rate: Double, prefix: String, peer: ChildProcess) async throws
        -> [LatencyTrace.Sample]
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
        var samples = [LatencyTrace.Sample]()
        for (session, times) in arrivals {
            guard let sends = sentBySession[session] else { continue }
            for (send, arrival) in zip(sends, times) {
                let lateness = send.sent > send.due ? send.sent - send.due : 0
                samples.append(
                    LatencyTrace.Sample(
                        sent: send.sent, latency: Double(arrival - send.sent) / 1000, lateness: Double(lateness) / 1000)
                )
            }
        }
        return samples
    }
}
