import Foundation
import Testing

@testable import StrokeWorker

#if canImport(Glibc)
    import Glibc
#endif

@Suite("Log output: a reader that went away or stopped reading")
struct LogOutputTests {
    /// A pipe's read and write ends.
    static func makePipe() throws -> (read: Int32, write: Int32) {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw TestFailure("pipe: \(String(cString: strerror(errno)))") }
        return (ends[0], ends[1])
    }

    /// Calls `body` with a pipe's ends, and closes both after.
    static func withPipe(_ body: (_ read: Int32, _ write: Int32) throws -> Void) throws {
        let ends = try makePipe()
        defer {
            close(ends.read)
            close(ends.write)
        }
        try body(ends.read, ends.write)
    }

    /// Sets or clears `O_NONBLOCK` on `descriptor`.
    static func setNonBlocking(_ descriptor: Int32, _ on: Bool) {
        let flags = fcntl(descriptor, F_GETFL)
        _ = fcntl(descriptor, F_SETFL, on ? flags | O_NONBLOCK : flags & ~O_NONBLOCK)
    }

    /// Everything waiting in the pipe's read end `descriptor` (made non-blocking).
    static func drain(_ descriptor: Int32) -> [UInt8] {
        setNonBlocking(descriptor, true)
        var bytes = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            bytes += buffer[0..<count]
        }
        return bytes
    }

    @Test("a line reaches a reader that reads")
    func written() throws {
        try Self.withPipe { read, write in
            #expect(LogOutput.write("one line\n", to: write))
            #expect(String(decoding: Self.drain(read), as: UTF8.self) == "one line\n")
        }
    }

    @Test("a line to a pipe whose reader has gone is counted as lost, and the process goes on")
    func readerGone() throws {
        SignalHandling.ignoreBrokenPipes()
        let ends = try Self.makePipe()
        close(ends.read)
        defer { close(ends.write) }
        let before = LogOutput.linesLost
        #expect(!LogOutput.write("nobody reads this\n", to: ends.write))
        #expect(LogOutput.linesLost >= before + 1)
    }

    @Test("a line to a full pipe is dropped after the patience instead of blocking; once read, lines pass again")
    func fullPipe() throws {
        try Self.withPipe { read, write in
            // Fill every page of the pipe, then make the write end blocking again, as a standard error usually is.
            Self.setNonBlocking(write, true)
            let page = [UInt8](repeating: 0x2E, count: 4096)
            while page.withUnsafeBytes({ Glibc.write(write, $0.baseAddress, $0.count) }) > 0 {}
            var byte: UInt8 = 0x2E
            while Glibc.write(write, &byte, 1) > 0 {}
            Self.setNonBlocking(write, false)
            let before = LogOutput.linesLost
            #expect(!LogOutput.write("no room\n", to: write))
            #expect(LogOutput.linesLost >= before + 1)
            let filled = Self.drain(read)
            #expect(filled.count >= 4096 && filled.allSatisfy { $0 == 0x2E })
            #expect(LogOutput.write("room again\n", to: write))
            #expect(String(decoding: Self.drain(read), as: UTF8.self) == "room again\n")
        }
    }

    @Test("a line cut short by a full non-blocking pipe is ended before the next, which starts a line of its own")
    func cutLine() throws {
        try Self.withPipe { read, write in
            // All but one of the pipe's pages taken: a long line gets one page in, then no room.
            Self.setNonBlocking(write, true)
            let size = Int(fcntl(write, 1032))  // F_GETPIPE_SZ, which Glibc does not export to Swift
            let page = [UInt8](repeating: 0x2E, count: 4096)
            for _ in 0..<(size / 4096 - 1) { _ = page.withUnsafeBytes { Glibc.write(write, $0.baseAddress, $0.count) } }
            #expect(!LogOutput.write(String(repeating: "x", count: 10_000) + "\n", to: write))
            let filled = Self.drain(read)
            #expect(filled.count == size && filled.suffix(4096).allSatisfy { $0 == UInt8(ascii: "x") })
            // Before, "next" followed the piece on its line.
            #expect(LogOutput.write("next\n", to: write))
            #expect(String(decoding: Self.drain(read), as: UTF8.self) == "\nnext\n")
        }
    }

    @Test("lines longer than a pipe takes in one write, from several threads at once, each arrive whole")
    func longLinesFromThreads() throws {
        try Self.withPipe { read, write in
            let threads = 4
            let linesEach = 20
            let length = 20_000
            let done = DispatchGroup()
            for thread in 0..<threads {
                done.enter()
                Thread {
                    let line = String(repeating: Character(String(thread)), count: length) + "\n"
                    for _ in 0..<linesEach { LogOutput.write(line, to: write) }
                    done.leave()
                }.start()
            }
            // Read as they write, until they are done and the pipe is empty. The lines wait for room; one that
            // waited longer than the patience (a stalled test machine) is dropped or cut short, never mixed.
            var bytes = [UInt8]()
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while true {
                var ready = pollfd(fd: read, events: Int16(POLLIN), revents: 0)
                if poll(&ready, 1, 50) > 0 {
                    let count = buffer.withUnsafeMutableBytes { Glibc.read(read, $0.baseAddress, $0.count) }
                    if count > 0 { bytes += buffer[0..<count] }
                } else if done.wait(timeout: .now()) == .success {
                    break
                }
            }
            let lines = bytes.split(separator: 10, omittingEmptySubsequences: false).dropLast()
            // Before, a writer that waited for room let another thread's bytes into the middle of its line.
            #expect(lines.allSatisfy { Set($0).count == 1 })
            #expect(lines.contains { $0.count == length })
        }
    }

    @Test("no descriptor (a worker started with standard error closed) loses the line, with no error beyond the count")
    func noDescriptor() {
        // -1, not a descriptor just closed: tests running alongside may have been given its number meanwhile.
        #expect(!LogOutput.write("into nothing\n", to: -1))
    }

    @Test("the count is in the worker's counters and on /metrics")
    func counted() {
        let metrics = WorkerMetrics()
        #expect((metrics.snapshot["logLinesLost"] ?? -1) >= 0)
        #expect(metrics.prometheusText(labels: []).contains("\nstroke_worker_log_lines_lost_total "))
    }
}
