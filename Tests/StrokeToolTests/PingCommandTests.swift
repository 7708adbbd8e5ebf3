import Foundation
import Testing

/// `stroke-tool ping` against a real `stroke-worker` process on loopback.
@Suite("stroke-tool ping")
struct PingCommandTests {
    /// A worker started beside the tool on free loopback ports; its endpoints, read from its log.
    final class RunningWorker {
        let process = Process()
        private(set) var input = ""
        private(set) var output = ""

        /// Starts a worker with `arguments`, listening on `host` (a loopback address; `[::1]` for IPv6).
        init(_ arguments: [String] = [], host: String = "127.0.0.1") throws {
            let tool = URL(fileURLWithPath: StrokeToolTests.tool)
            process.executableURL = tool.deletingLastPathComponent().appendingPathComponent("stroke-worker")
            process.arguments =
                ["--input", "tcp://\(host):*", "--output", "tcp://\(host):*", "--stats-interval", "0"] + arguments
            let log = Pipe()
            process.standardError = log
            try process.run()
            // The first line that names the endpoints; the log is read no further (the worker writes little more).
            var text = ""
            while !text.contains("listening"), text.count < 100_000 {
                let chunk = log.fileHandleForReading.availableData
                guard !chunk.isEmpty else { break }
                text += String(decoding: chunk, as: UTF8.self)
            }
            func endpoint(_ name: String) -> String? {
                guard let range = text.range(of: "\(name):") else { return nil }
                return String(text[range.upperBound...].prefix { !$0.isWhitespace && $0 != "\"" })
            }
            guard let input = endpoint("input"), let output = endpoint("output") else {
                process.terminate()
                throw WorkerFailure(log: text)
            }
            self.input = input
            self.output = output
        }

        /// Stops the worker (SIGTERM) and returns its exit status.
        func stop() -> Int32 {
            process.terminate()
            process.waitUntilExit()
            return process.terminationStatus
        }
    }

    struct WorkerFailure: Error, CustomStringConvertible {
        let log: String
        var description: String { "the worker did not start: \(log)" }
    }

    @Test("a worker's shard answers: once to find it, then the round trips timed; as JSON and as text")
    func answered() throws {
        let worker = try RunningWorker(["--shard", "0/1"])
        defer { #expect(worker.stop() == 0) }
        let json = try StrokeToolTests.run([
            "ping", "--input", worker.input, "--output", worker.output, "--session", "room7/alice", "--count", "3",
            "--json",
        ])
        #expect(json.status == 0, "\(json.error)")
        let report = try #require(
            try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any], "\(json.output)")
        #expect(report["session"] as? String == "room7/alice")
        #expect(report["shard"] as? String == "0/1")
        #expect(report["known"] as? Bool == false)
        let trips = try #require(report["roundTripsMicroseconds"] as? [Double])
        #expect(trips.count == 3 && trips.allSatisfy { $0 > 0 })

        let text = try StrokeToolTests.run(["ping", "--input", worker.input, "--output", worker.output, "--count", "2"])
        #expect(text.status == 0, "\(text.error)")
        #expect(text.output.contains("pong for session stroke-tool-ping from shard 0/1, which holds no state for it"))
        #expect(text.output.contains("2 round trips: least"))
    }

    @Test("endpoints as watch and send take them: connect: and bind: prefixes, and IPv6 addresses in brackets")
    func endpointForms() throws {
        let worker = try RunningWorker()
        defer { #expect(worker.stop() == 0) }
        // Session 80: "zmq_connect(connect:tcp://…): Protocol not supported".
        let prefixed = try StrokeToolTests.run([
            "ping", "--input", "connect:\(worker.input)", "--output", "connect:\(worker.output)", "--count", "1",
        ])
        #expect(prefixed.status == 0, "\(prefixed.error)")
        #expect(prefixed.output.contains("\n1 round trip: least"), "\(prefixed.output)")
        // Session 80: no pong from a worker on [::1], the sockets connecting without IPv6 on.
        var probe = sockaddr_in6()
        probe.sin6_family = sa_family_t(AF_INET6)
        probe.sin6_addr = in6addr_loopback
        let descriptor = socket(AF_INET6, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        let bound = withUnsafePointer(to: &probe) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in6>.size))
            }
        }
        guard bound == 0 else { return }  // no IPv6 on this machine's loopback
        let six = try RunningWorker(host: "[::1]")
        defer { #expect(six.stop() == 0) }
        let ipv6 = try StrokeToolTests.run(["ping", "--input", six.input, "--output", six.output, "--count", "1"])
        #expect(six.input.hasPrefix("tcp://[::1]:"))
        #expect(ipv6.status == 0, "\(ipv6.error)")
    }

    @Test("a timed pong that does not come back: status 1, not a usage error")
    func lostPong() throws {
        // Before session 86 it ended as a bad option does, with status 2.
        let worker = try StandInWorker(session: "pinged", timedPongs: false, timeout: 3)
        let run = try StrokeToolTests.run([
            "ping", "--input", worker.input, "--output", worker.output, "--session", "pinged", "--count", "2",
            "--timeout", "0.5",
        ])
        #expect(run.status == 1, "\(run.error)")
        #expect(
            run.error.hasSuffix(
                "stroke-tool ping: the pong of ping 1 of 2 did not come back within 0.5 s (the first did)\n"),
            "\(run.error)")
        worker.wait()
    }

    @Test("no worker: status 1 and why; bad options: status 2")
    func failures() throws {
        // A port nothing listens on: connecting succeeds (ZeroMQ connects in the background), nothing answers.
        let silent = try StrokeToolTests.run([
            "ping", "--input", "tcp://127.0.0.1:9", "--output", "tcp://127.0.0.1:9", "--timeout", "0.3",
        ])
        #expect(silent.status == 1)
        #expect(silent.error.contains("no pong for session stroke-tool-ping within 0.3 s"))
        // Its connections, told as `watch` and `send` tell theirs (session 80: only the timeout was said).
        #expect(silent.error.contains("[stroke-tool ping] output cannot connect yet"), "\(silent.error)")
        #expect(silent.error.contains("[stroke-tool ping] input cannot connect yet"), "\(silent.error)")
        for arguments in [
            ["ping"], ["ping", "--input", "tcp://127.0.0.1:9"],
            ["ping", "--input", "tcp://127.0.0.1:9", "--output", "tcp://127.0.0.1:9", "--count", "-1"],
            ["ping", "--input", "tcp://127.0.0.1:9", "--output", "tcp://127.0.0.1:9", "--session", "$system"],
            ["ping", "--input", "tcp://127.0.0.1:9", "--output", "tcp://127.0.0.1:9", "--curve-server-key", "x"],
        ] {
            let run = try StrokeToolTests.run(arguments)
            #expect(run.status == 2, "\(arguments): \(run.error)")
        }
        // Only the option that is wrong is named (session 81: "--count: 0 to 10,000, got 10; --timeout: …").
        let never = try StrokeToolTests.run([
            "ping", "--input", "tcp://127.0.0.1:9", "--output", "tcp://127.0.0.1:9", "--timeout", "-1",
        ])
        #expect(never.error == "stroke-tool ping: --timeout: seconds, above 0 and up to 3,600, got -1.0\n")
        // Endpoints no worker could serve are named at once (session 78: five seconds of waiting for a pong, then
        // "no worker serves its shard"; libzmq took port 99999 as 34463).
        for (arguments, named) in [
            (["--input", "inproc://a", "--output", "tcp://127.0.0.1:9"], "--input connect:inproc://a: inproc://"),
            (
                ["--input", "tcp://127.0.0.1:9", "--output", "tcp://127.0.0.1:99999"],
                "--output connect:tcp://127.0.0.1:99999: "
            ),
            (["--input", "a", "--output", "tcp://127.0.0.1:9"], "--input connect:a: expected TRANSPORT://ADDRESS"),
        ] {
            let run = try StrokeToolTests.run(["ping"] + arguments)
            #expect(run.status == 2, "\(arguments): \(run.error)")
            #expect(run.error.hasPrefix("stroke-tool ping: " + named), "\(arguments): \(run.error)")
        }
    }
}
