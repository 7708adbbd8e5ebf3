import Foundation
import Synchronization

/// A child process of the benchmark (the real stroke-worker, or this binary in a sink or echo mode).
final class ChildProcess {
    let process = Process()
    private let errorPipe = Pipe()
    private let outputPipe = Pipe()
    /// The endpoints once read from the "listening" line, which is read only once.
    private var endpoints: (input: String, output: String)?
    /// The child's executable's name (not `taskset`'s, when it starts the child), for errors.
    private let name: String
    /// Standard error after the "listening" line, which `workerEndpoints()` keeps reading in the background.
    private let laterError = ErrorTail()

    /// Starts `executable` with `arguments`; on the CPUs `cpus` only (a list as `taskset -c` takes it, through
    /// util-linux's `taskset`, which execs the child in its place: the child's pid is the process's) when given.
    init(_ executable: String, _ arguments: [String], cpus: String? = nil) throws {
        name = URL(fileURLWithPath: executable).lastPathComponent
        if let cpus {
            guard FileManager.default.isExecutableFile(atPath: Self.taskset) else {
                throw BenchError("--peer-cpus needs \(Self.taskset) (util-linux), which is missing")
            }
            process.executableURL = URL(fileURLWithPath: Self.taskset)
            process.arguments = ["--cpu-list", cpus, executable] + arguments
        } else {
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = arguments
        }
        process.standardError = errorPipe
        process.standardOutput = outputPipe
        try process.run()
        Self.running.withLock { _ = $0.insert(process.processIdentifier) }
    }

    // MARK: - Children left running

    /// The children started and not yet waited for, by pid: what `stopAll()` stops.
    private static let running = Mutex<Set<Int32>>([])

    /// Sends SIGTERM to every child not yet waited for: stroke-bench stopped by a signal (`main.swift`) would
    /// otherwise leave a worker or a raw peer running with no parent.
    static func stopAll() {
        for pid in running.withLock({ $0 }) { kill(pid, SIGTERM) }
    }

    /// Whether this child is among those `stopAll()` would stop: started, and not yet waited for.
    var awaitsStop: Bool { Self.running.withLock { $0.contains(process.processIdentifier) } }

    /// The child has exited and been waited for: its pid may be reused.
    private func waited() {
        Self.running.withLock { _ = $0.remove(process.processIdentifier) }
    }

    var pid: Int32 { process.processIdentifier }

    /// util-linux's `taskset`, which starts a child on given CPUs (`--peer-cpus`).
    static let taskset = "/usr/bin/taskset"

    /// Whether `list` is a CPU list as `taskset -c` takes it: numbers and ranges, separated by commas ("1", "0,2",
    /// "2-3").
    static func isCPUList(_ list: String) -> Bool {
        let items = list.split(separator: ",", omittingEmptySubsequences: false)
        return !list.isEmpty
            && items.allSatisfy { item in
                let bounds = item.split(separator: "-", omittingEmptySubsequences: false)
                guard (1...2).contains(bounds.count), let low = UInt16(bounds[0]) else { return false }
                guard bounds.count == 2 else { return true }
                guard let high = UInt16(bounds[1]) else { return false }
                return low <= high
            }
    }

    /// Reads standard error until a line contains `marker`; returns that line. Throws once `timeout` seconds pass
    /// without it, even if the child writes nothing at all (a worker whose `--log-level` hides the line).
    func waitForLine(containing marker: String, timeout: TimeInterval = 30) throws -> String {
        let handle = errorPipe.fileHandleForReading
        var buffer = ""
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            // `availableData` blocks until the child writes: wait for that with the time left, at most 100 ms at a
            // time, so that a silent child cannot hold the benchmark past the deadline.
            var ready = pollfd(fd: handle.fileDescriptor, events: Int16(POLLIN), revents: 0)
            let milliseconds = Int32(max(0, min(100, deadline.timeIntervalSinceNow * 1000)))
            guard poll(&ready, 1, milliseconds) > 0 else {
                if !process.isRunning { break }
                continue
            }
            let data = handle.availableData
            if data.isEmpty {
                if !process.isRunning { break }
                continue
            }
            buffer += String(decoding: data, as: UTF8.self)
            if let line = buffer.split(separator: "\n").first(where: { $0.contains(marker) }) { return String(line) }
        }
        throw BenchError(
            "child \(name) did not log \"\(marker)\" within \(Int(timeout.rounded(.up))) s (a worker whose --log-level "
                + "is above info never does)\(buffer.isEmpty ? "; it wrote nothing" : "; it wrote: \(buffer)")")
    }

    /// The worker's bound input and output endpoints, from its "listening" log line.
    func workerEndpoints() throws -> (input: String, output: String) {
        if let endpoints { return endpoints }
        let line = try waitForLine(containing: "listening")
        func field(_ role: String) throws -> String {
            guard let range = line.range(of: "\(role):") else { throw BenchError("no \(role) in \(line)") }
            return String(line[range.upperBound...].prefix { $0 != " " && $0 != "\"" })
        }
        // Drain further stderr in the background so the child never blocks on a full pipe, keeping its tail for
        // `stopAndReadCounters()`. At the end of the file the handler is removed: it would be called again and again.
        let tail = laterError
        errorPipe.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            if data.isEmpty { handle.readabilityHandler = nil }
            tail.append(data)
        }
        endpoints = (try field("input"), try field("output"))
        return endpoints!
    }

    /// Standard output until the child exits.
    func output() -> String {
        let data = outputPipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        waited()
        return String(decoding: data, as: UTF8.self)
    }

    /// Resident memory in bytes, from /proc.
    func residentBytes() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") })
        else { return 0 }
        return (Int(line.split(separator: " ", omittingEmptySubsequences: true)[1]) ?? 0) * 1024
    }

    /// A thread's name, its CPU time (user and system) and the time it spent ready to run but waiting for a core
    /// (on a run queue), in seconds.
    struct ThreadTime {
        var name: String
        var seconds: Double
        /// 0 where the kernel keeps no `schedstat`.
        var waitingSeconds = 0.0
    }

    /// CPU time of each of the child's threads, by thread id, with the thread's name and its time waiting for a
    /// core.
    ///
    /// From `schedstat` (nanoseconds on the CPU, then on a run queue) where the kernel has it; `stat`'s user and
    /// system times count clock ticks (10 ms here), too coarse for a thread that runs a quarter of a second.
    func threadCPUTimes() -> [Int: ThreadTime] { Self.threadCPUTimes(pid: pid) }

    /// CPU time (seconds) of this process's libzmq I/O threads so far: they move the producer's messages and the
    /// result counter's.
    static func ownIOSeconds() -> Double {
        threadCPUTimes(pid: getpid()).values.filter { $0.name.hasPrefix("ZMQbg/IO") }.reduce(0) { $0 + $1.seconds }
    }

    /// `threadCPUTimes()` of the process `pid`.
    static func threadCPUTimes(pid: Int32) -> [Int: ThreadTime] {
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        var times = [Int: ThreadTime]()
        let directory = "/proc/\(pid)/task"
        for task in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] {
            guard let id = Int(task),
                let stat = try? String(contentsOfFile: "\(directory)/\(task)/stat", encoding: .utf8),
                let open = stat.firstIndex(of: "("), let close = stat.lastIndex(of: ")")
            else { continue }
            let name = String(stat[stat.index(after: open)..<close])
            if let schedstat = try? String(contentsOfFile: "\(directory)/\(task)/schedstat", encoding: .utf8) {
                let fields = schedstat.split(separator: " ").compactMap { Double($0) }
                if fields.count >= 2 {
                    times[id] = ThreadTime(name: name, seconds: fields[0] / 1e9, waitingSeconds: fields[1] / 1e9)
                    continue
                }
            }
            // After the name: state, then 10 fields, then utime and stime (fields 14 and 15 of proc(5)).
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { continue }
            times[id] = ThreadTime(name: name, seconds: (user + system) / ticks)
        }
        return times
    }

    /// SIGTERM and wait; the worker's counters from its last log line ("stopped key=value …"), which it writes as it
    /// exits, or nil where none came within `timeout` seconds (a worker that logs no counters, or not at `info`).
    /// For a child whose endpoints were read (`workerEndpoints()`), which keeps the rest of its standard error.
    func stopAndReadCounters(timeout: TimeInterval = 5) -> [String: Int]? {
        _ = terminate()
        let deadline = Date().addingTimeInterval(timeout)
        repeat {
            if let counters = laterError.counters(after: "] stopped ") { return counters }
            Thread.sleep(forTimeInterval: 0.01)
        } while Date() < deadline
        return nil
    }

    /// SIGTERM and wait.
    func terminate() -> Int32 {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        waited()
        return process.terminationStatus
    }
}

/// The tail of a child's standard error, appended to from a file handle's background queue.
final class ErrorTail: Sendable {
    /// Bytes kept: the worker's last lines are all that is read.
    static let limit = 1 << 16
    private let bytes = Mutex(Data())

    /// Appends what the child wrote, dropping the oldest bytes over `limit`.
    func append(_ data: Data) {
        guard !data.isEmpty else { return }
        bytes.withLock { bytes in
            bytes.append(data)
            if bytes.count > Self.limit { bytes.removeFirst(bytes.count - Self.limit) }
        }
    }

    /// The integer `key=value` fields of the last complete line containing `marker`, if there is one.
    func counters(after marker: String) -> [String: Int]? {
        let text = bytes.withLock { String(decoding: $0, as: UTF8.self) }
        let complete = text[..<(text.lastIndex(of: "\n") ?? text.startIndex)]
        guard let line = complete.split(separator: "\n").last(where: { $0.contains(marker) }),
            let range = line.range(of: marker)
        else { return nil }
        var counters = [String: Int]()
        for field in line[range.upperBound...].split(separator: " ") {
            let parts = field.split(separator: "=", maxSplits: 1)
            if parts.count == 2, let value = Int(parts[1]) { counters[String(parts[0])] = value }
        }
        return counters
    }
}
