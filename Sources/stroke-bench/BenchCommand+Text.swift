import Foundation
import StrokeRecognition

// MARK: - The report as text

extension BenchCommand {
    /// The worker's CPU per message, by thread role, the raw consumer's and the producer's.
    static func describe(_ row: WorkerBenchmarks.ThroughputRow) -> String {
        let cpu = row.workerCPU
        return String(
            format:
                "CPU per message: worker %.2f µs (lane %.2f, recognition thread %.2f, libzmq I/O %.2f, other %.2f), "
                + "lane waiting for a core %.2f µs, "
                + "raw consumer %.2f µs; producer %.2f µs (raw runs %.2f), result counter %.2f µs; "
                + "machine busy %.0f%% (worker run), %.0f%% (raw runs); the ratio these account for %.2f",
            cpu.total, cpu.lane, cpu.recognition, cpu.io, cpu.other, cpu.laneWaiting, row.rawCPUMicroseconds,
            row.producerCPUWorkerRunMicroseconds, row.producerCPUMicroseconds, row.counterCPUMicroseconds,
            row.machineBusyWorker * 100, row.machineBusyRaw * 100, row.accountedRatio)
            + "; raw runs before and after: "
            + row.rawRuns.map { run in
                String(
                    format: "%.0f msg/s (producer %.2f + consumer %.2f µs, %.0f%% busy)", run.messagesPerSecond,
                    run.producerCPUMicroseconds, run.consumerCPUMicroseconds, run.machineBusy * 100)
            }.joined(separator: ", ")
            + (row.helperWaits.map { waits in
                String(
                    format:
                        "; lanes waiting for their helpers %.0f%% of the time (%.0f waits/s; %.0f%% of strokes handed over)",
                    waits.share * 100, waits.perSecond, waits.strokesOffloaded * 100)
            } ?? "")
            + (cpu.otherThreads.map { threads in
                "; other: "
                    + threads.sorted { $0.key < $1.key }.map { String(format: "%@ %.2f", $0.key, $0.value) }
                    .joined(separator: ", ")
            } ?? "")
    }

    static func printText(_ report: Report) {
        let strokes = report.strokes == "synthetic" ? "synthetic strokes" : "strokes of \(report.strokes)"
        let runs = String(counting: report.runs, "run")
        print("stroke-bench (\(report.quick ? "quick, " : "")median of \(runs), \(strokes))")
        print("host: \(report.host.line)")
        if !report.throughput.isEmpty { print("throughput (messages/s; worker ÷ raw):") }
        for row in report.throughput {
            print(
                String(
                    format: "  %-6@ %2d pt/msg %6d sessions  raw %9.0f  worker %9.0f  (%10.0f points/s)  ratio %.2f",
                    row.encoding, row.pointsPerMessage, row.sessions, row.rawMessagesPerSecond,
                    row.workerMessagesPerSecond,
                    row.workerPointsPerSecond, row.ratio))
            print("    " + describe(row))
        }
        if let latency = report.latency {
            if let work = latency.standInNanoseconds {
                print("latency: a raw echo with \(work) ns of busy work per message stands in for the worker")
            }
            if latency.tickMicroseconds != 250 {
                print("latency: the producer sends in bursts every \(latency.tickMicroseconds) µs (default 250)")
            }
            print(
                String(
                    format:
                        "latency, stroke end → match at %.0f msg/s (%d strokes): p50 %.0f µs, p99 %.0f µs, p99.9 %.0f µs",
                    latency.offeredMessagesPerSecond, latency.strokes, latency.p50Us, latency.p99Us, latency.p999Us))
            print(
                String(
                    format: "  raw libzmq round trip, same load: p50 %.0f µs, p99 %.0f µs, p99.9 %.0f µs",
                    latency.rawP50Us, latency.rawP99Us, latency.rawP999Us))
            print(
                String(
                    format: "  strokes whose end was sent on schedule (%.1f%%): p99 %.0f µs, raw %.0f µs",
                    latency.onScheduleShare * 100, latency.onScheduleP99Us, latency.rawOnScheduleP99Us))
        }
        if let memory = report.memory {
            print(
                String(
                    format: "memory: %.1f MB empty, %.1f MB with %d idle sessions: %.0f bytes per session",
                    Double(memory.residentBytesEmpty) / 1e6, Double(memory.residentBytesLoaded) / 1e6,
                    memory.idleSessions,
                    memory.bytesPerSession))
        }
        for row in report.recognizer {
            print(
                String(format: "recognizer: %5d templates: %8.2f µs per recognition", row.templates, row.microseconds))
        }
        for row in report.recognizerLearned ?? [] {
            print(
                String(
                    format: "recognizer: %5d templates along with %d learned: %8.2f µs per recognition",
                    row.templates, row.learned ?? 0, row.microseconds))
        }
        for row in report.recognizerAmong ?? [] {
            print(
                String(
                    format: "recognizer: %5d templates, among %d of their gestures: %8.2f µs per recognition",
                    row.templates, row.among ?? 0, row.microseconds))
        }
        for row in report.recognizerCold ?? [] {
            print(
                String(
                    format: "recognizer, cold (%d MB written before each): %5d templates: %8.2f µs per recognition",
                    row.sweepMegabytes ?? 0, row.templates, row.microseconds))
        }
        if let detector = report.detectorNanosecondsPerPoint {
            let single = report.detectorNanosecondsPerSinglePoint.map {
                String(format: ", %.1f one point at a time", $0)
            }
            print(String(format: "checkmark detector: %.1f ns per point in whole strokes", detector) + (single ?? ""))
        }
        for row in report.producer ?? [] { print(ProducerBenchmark.line(row)) }
        for row in report.stateFile ?? [] {
            print(
                String(
                    format: "state file: %@ of %d sessions (%d learned), %.1f MB: write %.1f ms, read %.1f ms",
                    row.file, row.sessions, row.learned, Double(row.bytes) / 1e6, row.writeMilliseconds,
                    row.readMilliseconds))
        }
        for row in report.processor {
            print(
                String(
                    format: "processor alone (no sockets): %@ %2d pt/msg %5d sessions: %9.0f msg/s, %.0f ns per point",
                    row.encoding, row.pointsPerMessage, row.sessions, row.messagesPerSecond, row.nanosecondsPerPoint))
        }
    }
}
