import Foundation
import StrokeWorker
import Testing

@testable import stroke_bench

/// `--latency-trace`: every stroke the latency section timed, as CSV; and `--peer-cpus`' CPU lists.
@Suite("stroke-bench latency trace and peer CPUs")
struct LatencyTraceTests {
    @Test("a run's strokes are written in the order their ends were sent, on CLOCK_MONOTONIC in µs")
    func linesInSendOrder() {
        let worker = [
            LatencyTrace.Sample(sent: 1_000_500_000, latency: 312.25, lateness: 0),
            LatencyTrace.Sample(sent: 1_000_000_000, latency: 280, lateness: 12.5),
        ]
        let raw = [LatencyTrace.Sample(sent: 1_000_250_000, latency: 190.5, lateness: 0)]
        let text = LatencyTrace.lines(run: 2, peers: [("worker", worker), ("raw", raw)])
        #expect(
            text == """
                2,worker,1000000.0,280.0,12.5
                2,raw,1000250.0,190.5,0.0
                2,worker,1000500.0,312.2,0.0

                """)
        #expect(LatencyTrace.lines(run: 0, peers: [("worker", []), ("raw", [])]).isEmpty)
    }

    @Test("the file starts with its header, and each run is appended to it")
    func fileAppends() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("trace-\(UUID().uuidString).csv")
            .path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let trace = try LatencyTrace(path: path)
        try trace.append(run: 0, worker: [.init(sent: 10_000, latency: 100, lateness: 0)], raw: [])
        try trace.append(run: 1, worker: [], raw: [.init(sent: 20_000, latency: 90, lateness: 1)])
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text == LatencyTrace.header + "\n0,worker,10.0,100.0,0.0\n1,raw,20.0,90.0,1.0\n")
    }

    @Test("a trace to a pipe is written into it, and the pipe stays one (it was replaced by a regular file)")
    func pipe() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("trace-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("fifo").path
        #expect(mkfifo(path, 0o600) == 0)
        // The reader holds the pipe open across both writes, as a `| tee` would.
        let reader = open(path, O_RDONLY | O_NONBLOCK)
        #expect(reader >= 0)
        defer { close(reader) }
        let trace = try LatencyTrace(path: path)
        try trace.append(run: 0, worker: [.init(sent: 10_000, latency: 100, lateness: 0)], raw: [])
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = buffer.withUnsafeMutableBytes { read(reader, $0.baseAddress!, $0.count) }
        #expect(
            String(decoding: buffer.prefix(max(count, 0)), as: UTF8.self) == LatencyTrace.header
                + "\n0,worker,10.0,100.0,0.0\n")
        var status = stat()
        #expect(stat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFIFO)
    }

    @Test("a trace that cannot be created is a clear error")
    func unwritablePath() {
        #expect(throws: BenchError.self) { try LatencyTrace(path: "/nonexistent-directory/trace.csv") }
    }

    @Test("a trace without the latency section is refused before its file is created")
    func traceNeedsTheLatencySection() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("trace-\(UUID().uuidString).csv")
            .path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let args = try CommandLineArguments(
            ["--only", "recognizer", "--latency-trace", path], flagNames: BenchCommand.flagNames)
        let error = await #expect(throws: BenchError.self) { _ = try await BenchCommand.run(args) }
        #expect(error?.description.hasPrefix("--latency-trace: only the latency section") == true)
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test("CPU lists as taskset -c takes them are accepted, anything else refused")
    func cpuLists() {
        for list in ["0", "1", "0,1", "2-3", "0,2-3,5"] { #expect(ChildProcess.isCPUList(list), "\(list)") }
        for list in ["", ",", "1,", "a", "-1", "3-2", "1-2-3", "0x3", " 1"] {
            #expect(!ChildProcess.isCPUList(list), "\(list)")
        }
    }
}
