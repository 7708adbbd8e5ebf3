import Foundation
import Testing

@testable import StrokeWorker

#if canImport(Glibc)
    import Glibc
#endif

/// A datagram socket standing in for systemd's notification socket.
final class NotifyListener: Sendable {
    let descriptor: Int32
    /// The path to give as `NOTIFY_SOCKET` (`@…` for the abstract namespace).
    let path: String

    init(abstract: Bool = false) throws {
        let name = "stroke-notify-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        path = abstract ? "@\(name)" : FileManager.default.temporaryDirectory.appendingPathComponent(name).path
        descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var bytes = Array(path.utf8)
        if abstract { bytes[0] = 0 }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let length = socklen_t(MemoryLayout<sockaddr_un>.offset(of: \.sun_path)! + bytes.count + (abstract ? 0 : 1))
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) }
        }
        guard bound == 0 else { throw TestFailure("bind \(path): \(String(cString: strerror(errno)))") }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit {
        close(descriptor)
        if !path.hasPrefix("@") { unlink(path) }
    }

    /// The next datagram, or nil after ten seconds without one.
    func next() -> String? {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
        return count >= 0 ? String(decoding: buffer[0..<count], as: UTF8.self) : nil
    }

    /// Reads datagrams until one starts with `prefix` (at most 200): that one, or nil.
    func next(startingWith prefix: String) -> String? {
        for _ in 0..<200 {
            guard let message = next() else { return nil }
            if message.hasPrefix(prefix) { return message }
        }
        return nil
    }
}

@Suite("systemd notifications (Type=notify, WatchdogSec=)", .serialized)
struct SystemdNotifierTests {
    @Test("a worker says READY with its input, pings the watchdog, brackets a reload and says STOPPING")
    func lifecycle() async throws {
        let listener = try NotifyListener()
        let systemd = SystemdNotifier(socketPath: listener.path, watchdogInterval: .milliseconds(100))
        try await withWorker({ $0.systemd = systemd }) { input, _, worker in
            let ready = listener.next()
            #expect(ready == "READY=1\nSTATUS=receiving on \(input)")
            #expect(listener.next(startingWith: "WATCHDOG=1") == "WATCHDOG=1")
            worker.reload()
            #expect(listener.next(startingWith: "RELOADING=1")?.contains("\nMONOTONIC_USEC=") == true)
            #expect(listener.next(startingWith: "READY=1") == "READY=1")
        }
        #expect(listener.next(startingWith: "STOPPING=1") == "STOPPING=1")
    }

    @Test("without a watchdog the worker says READY and STOPPING only")
    func noWatchdog() async throws {
        let listener = try NotifyListener()
        try await withWorker({ $0.systemd = SystemdNotifier(socketPath: listener.path) }) { _, _, _ in
            #expect(listener.next()?.hasPrefix("READY=1\n") == true)
        }
        #expect(listener.next() == "STOPPING=1")
    }

    @Test("a socket in the abstract namespace (@name) is reached; a path that is not there is a failed send")
    func abstractSocket() throws {
        let listener = try NotifyListener(abstract: true)
        #expect(SystemdNotifier(socketPath: listener.path).notify("STATUS=hello"))
        #expect(listener.next() == "STATUS=hello")
        #expect(!SystemdNotifier(socketPath: "/nonexistent/notify").notify("READY=1"))
        #expect(!SystemdNotifier(socketPath: "/" + String(repeating: "x", count: 200)).notify("READY=1"))
    }

    @Test("the environment: NOTIFY_SOCKET, and WATCHDOG_USEC when WATCHDOG_PID is unset or this process")
    func environment() throws {
        #expect(SystemdNotifier.fromEnvironment([:]) == nil)
        #expect(SystemdNotifier.fromEnvironment(["NOTIFY_SOCKET": "relative"]) == nil)
        #expect(
            SystemdNotifier.fromEnvironment(["NOTIFY_SOCKET": "/run/systemd/notify"])
                == SystemdNotifier(socketPath: "/run/systemd/notify"))
        let watched = ["NOTIFY_SOCKET": "@n", "WATCHDOG_USEC": "10000000"]
        #expect(SystemdNotifier.fromEnvironment(watched)?.watchdogInterval == .seconds(10))
        var mine = watched
        mine["WATCHDOG_PID"] = "42"
        #expect(SystemdNotifier.fromEnvironment(mine, processID: 42)?.watchdogInterval == .seconds(10))
        #expect(SystemdNotifier.fromEnvironment(mine, processID: 43)?.watchdogInterval == nil)
        for bad in ["0", "-5", "ten", ""] {
            var odd = watched
            odd["WATCHDOG_USEC"] = bad
            #expect(SystemdNotifier.fromEnvironment(odd)?.watchdogInterval == nil)
        }
        let configuration = try WorkerConfiguration(arguments: [], environment: watched)
        #expect(configuration.systemd == SystemdNotifier(socketPath: "@n", watchdogInterval: .seconds(10)))
        #expect(try WorkerConfiguration(arguments: [], environment: [:]).systemd == nil)
    }
}
