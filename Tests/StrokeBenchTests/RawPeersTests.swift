import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The `stroke-bench` executable's raw peers, run as the benchmark runs them: as child processes.
@Suite("stroke-bench raw peers")
struct RawPeersTests {
    /// The built executable, beside the test bundle (`swift build --build-tests` builds it).
    static let bench = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        .appendingPathComponent("stroke-bench").path

    /// Started from a task, as the latency section starts it, a child inherits a signal mask with SIGTERM blocked;
    /// the echo must still end on `terminate()`, not at its 60-second idle timeout.
    @Test("a raw echo started from a task ends on SIGTERM")
    func echoEndsOnTerminate() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.bench), "no stroke-bench at \(Self.bench)")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.bench)
        process.arguments = [
            "raw-echo", "--input", "tcp://127.0.0.1:*", "--output", "tcp://127.0.0.1:*", "--work-ns", "0",
        ]
        let error = Pipe()
        process.standardError = error
        try process.run()
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        // Once it has said where it listens, it is in its receive loop.
        var said = Data()
        while !said.contains(UInt8(ascii: "\n")) {
            let more = error.fileHandleForReading.availableData
            if more.isEmpty { break }
            said += more
        }
        #expect(String(decoding: said, as: UTF8.self).hasPrefix("listening endpoints="))
        process.terminate()
        // Far less than the idle timeout, far more than an exit on the signal takes.
        let deadline = Date().addingTimeInterval(20)
        while process.isRunning && Date() < deadline { try await Task.sleep(for: .milliseconds(20)) }
        #expect(!process.isRunning, "still running 20 s after SIGTERM")
        if !process.isRunning {
            #expect(process.terminationReason == .uncaughtSignal)
            #expect(process.terminationStatus == SIGTERM)
        }
    }
}
