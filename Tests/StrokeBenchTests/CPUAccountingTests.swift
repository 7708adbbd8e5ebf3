import Foundation
import Testing
import ZeroMQ

@testable import stroke_bench

/// The producer's side of the throughput rows: its sending thread's CPU time and this process's libzmq I/O thread.
@Suite("stroke-bench CPU accounting")
struct CPUAccountingTests {
    @Test("a producer counts its sending thread's CPU time, and this process's libzmq I/O thread is found")
    func producerSide() async throws {
        let context = try ZMQContext()
        let traffic = Traffic.make(
            strokes: Traffic.strokes(dataset: nil), sessions: 8, pointsPerMessage: 32, encoding: .binary,
            messages: 2_000, prefix: "cpu-")
        let sink = SubscriberCounter()
        async let received = sink.run(context: context, count: traffic.count)
        let endpoint = try await sink.endpoint()
        // Per thread: other tests' contexts start and end I/O threads meanwhile, so the process's sum may fall.
        let ioBefore = Self.ioThreads()
        let cpu = try await onThread { () throws -> (before: Double, after: Double) in
            let producer = try BenchProducer(context: context, endpoint: endpoint)
            let before = producer.cpuSeconds
            try producer.sendAll(traffic)
            return (before, producer.cpuSeconds)
        }
        #expect(try await received == traffic.count)
        #expect(cpu.before == 0 && cpu.after > 0)
        // Over TCP every message passed through the I/O thread, on the producer's side and on the sink's.
        let ioAfter = Self.ioThreads()
        // A thread missing before is one that had not named itself yet: libzmq starts its I/O thread with the
        // context's first socket, and on a loaded machine it may not have run by the first snapshot (it then
        // failed the test once, in a full `swift test`). All of its time came after that snapshot.
        #expect(ioAfter.contains { id, seconds in seconds > ioBefore[id, default: 0] })
        #expect(ChildProcess.ownIOSeconds() > 0)
    }

    /// CPU seconds of this process's libzmq I/O threads, by thread id.
    static func ioThreads() -> [Int: Double] {
        ChildProcess.threadCPUTimes(pid: getpid()).filter { $0.value.name.hasPrefix("ZMQbg/IO") }.mapValues(\.seconds)
    }

    @Test("the worker's threads are counted by role, and the lane's time waiting for a core apart")
    func workerThreads() {
        typealias Time = ChildProcess.ThreadTime
        let before: [Int: Time] = [
            1: Time(name: "lane-0", seconds: 1, waitingSeconds: 0.5), 2: Time(name: "recognize-0", seconds: 2),
        ]
        let after: [Int: Time] = [
            1: Time(name: "lane-0", seconds: 1.4, waitingSeconds: 0.7), 2: Time(name: "recognize-0", seconds: 2.1),
            3: Time(name: "ZMQbg/IO/0", seconds: 0.05),
        ]
        let cpu = WorkerBenchmarks.WorkerCPU(from: before, to: after, messages: 100_000)
        #expect(abs(cpu.lane - 4) < 1e-9 && abs(cpu.laneWaiting - 2) < 1e-9)
        #expect(abs(cpu.recognition - 1) < 1e-9 && abs(cpu.io - 0.5) < 1e-9 && cpu.other == 0)
    }

    @Test("the calling thread's CPU time grows with the work it does")
    func threadTime() {
        let start = BenchClock.threadCPUSeconds()
        var sum = 0.0
        for k in 0..<2_000_000 { sum += Double(k).squareRoot() }
        #expect(sum > 0)
        #expect(BenchClock.threadCPUSeconds() > start)
    }

    @Test("the accounted ratio is what each run's busy share buys at its parties' CPU per message")
    func accountedRatio() {
        var cpu = WorkerBenchmarks.WorkerCPU()
        (cpu.lane, cpu.recognition, cpu.io) = (1.5, 0.8, 0.7)
        let row = WorkerBenchmarks.ThroughputRow(
            encoding: "binary", pointsPerMessage: 32, sessions: 1000, messages: 100_000, points: 3_200_000,
            rawMessagesPerSecond: 1_200_000, rawPointsPerSecond: 38_400_000, workerMessagesPerSecond: 400_000,
            workerPointsPerSecond: 12_800_000, ratio: 1.0 / 3, workerCPU: cpu, rawCPUMicroseconds: 0.7,
            producerCPUMicroseconds: 0.8, producerCPUWorkerRunMicroseconds: 0.9, counterCPUMicroseconds: 0.1,
            machineBusyWorker: 0.8, machineBusyRaw: 0.9,
            rawRuns: Array(
                repeating: WorkerBenchmarks.RawRun(
                    messagesPerSecond: 1_200_000, consumerCPUMicroseconds: 0.7, producerCPUMicroseconds: 0.8,
                    machineBusy: 0.9), count: 2))
        // Worker's run: 0.9 + 3.0 + 0.1 = 4 µs a message at 80% of the cores; raw runs: 0.8 + 0.7 = 1.5 µs at 90%.
        #expect(abs(row.accountedRatio - (0.8 / 4.0) / (0.9 / 1.5)) < 1e-12)
    }

    @Test("with its two raw runs, a row's raw side is the mean of what each run's accounting buys")
    func accountedRatioOfRawRuns() {
        var cpu = WorkerBenchmarks.WorkerCPU()
        (cpu.lane, cpu.recognition, cpu.io) = (1.5, 0.8, 0.7)
        // A fast raw run (1.0 µs a message at 100% busy: 1 message per µs of the cores) and a slow one that spent
        // more a message (2.0 µs at 80%: 0.4). Their means, 1.5 µs at 90% busy, would buy 0.6, not 0.7.
        let runs = [
            WorkerBenchmarks.RawRun(
                messagesPerSecond: 2_000_000, consumerCPUMicroseconds: 0.5, producerCPUMicroseconds: 0.5,
                machineBusy: 1.0),
            WorkerBenchmarks.RawRun(
                messagesPerSecond: 800_000, consumerCPUMicroseconds: 0.9, producerCPUMicroseconds: 1.1,
                machineBusy: 0.8),
        ]
        let row = WorkerBenchmarks.ThroughputRow(
            encoding: "binary", pointsPerMessage: 32, sessions: 1000, messages: 100_000, points: 3_200_000,
            rawMessagesPerSecond: 1_400_000, rawPointsPerSecond: 44_800_000, workerMessagesPerSecond: 400_000,
            workerPointsPerSecond: 12_800_000, ratio: 4.0 / 14, workerCPU: cpu, rawCPUMicroseconds: 0.7,
            producerCPUMicroseconds: 0.8, producerCPUWorkerRunMicroseconds: 0.9, counterCPUMicroseconds: 0.1,
            machineBusyWorker: 0.8, machineBusyRaw: 0.9, rawRuns: runs)
        #expect(abs(row.accountedRawRate - 0.7) < 1e-12)
        #expect(abs(row.accountedRatio - (0.8 / 4.0) / 0.7) < 1e-12)
    }
}
