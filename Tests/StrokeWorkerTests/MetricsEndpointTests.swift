import Foundation
import StrokeRecognition
import Synchronization
import Testing

@testable import StrokeWorker

#if canImport(Glibc)
    import Glibc
#endif

@Suite("Metrics endpoint (--metrics)", .serialized)
struct MetricsEndpointTests {
    /// A TCP connection to `address` (`127.0.0.1:PORT`).
    static func connectTo(_ address: String) throws -> Int32 {
        let port = UInt16(address.split(separator: ":").last!)!
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var target = sockaddr_in()
        target.sin_family = sa_family_t(AF_INET)
        target.sin_port = port.bigEndian
        target.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &target) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            close(descriptor)
            throw TestFailure("connect: \(String(cString: strerror(errno)))")
        }
        return descriptor
    }

    /// Sends `text` on `descriptor`, then reads until the server closes: the status line and the body.
    static func exchange(_ text: String, on descriptor: Int32) -> (status: String, body: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, 0) }
        var response = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { break }
            response += buffer[0..<count]
        }
        let text = String(decoding: response, as: UTF8.self)
        let parts = text.components(separatedBy: "\r\n\r\n")
        return (parts[0].components(separatedBy: "\r\n")[0], parts.dropFirst().joined(separator: "\r\n\r\n"))
    }

    /// `GET path` at `address` (`127.0.0.1:PORT`) over a plain socket: the status line and the body.
    static func get(_ path: String, at address: String, request: String? = nil) throws -> (status: String, body: String)
    {
        let descriptor = try connectTo(address)
        defer { close(descriptor) }
        return exchange(request ?? "GET \(path) HTTP/1.1\r\nHost: test\r\n\r\n", on: descriptor)
    }

    /// Runs a metrics server on a free port of 127.0.0.1, answering every path with its name, for `body`.
    static func withServer(_ body: (_ address: String) throws -> Void) throws {
        let server = try MetricsServer(address: "127.0.0.1:0")
        let stopped = Atomic<Bool>(false)
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            server.run(stopped: { stopped.load(ordering: .relaxed) }) {
                MetricsServer.Response(status: "200 OK", body: "path \($0)\n")
            }
            done.signal()
        }
        thread.start()
        defer {
            stopped.store(true, ordering: .relaxed)
            done.wait()
        }
        try body(server.boundAddress)
    }

    @Test("a connection that stalls halfway through its request holds up no other, and is answered when it ends")
    func stalledClient() throws {
        try Self.withServer { address in
            let stalled = try Self.connectTo(address)
            defer { close(stalled) }
            _ = Array("GET /metr".utf8).withUnsafeBytes { send(stalled, $0.baseAddress, $0.count, 0) }
            for path in ["/healthz", "/a", "/b"] {
                #expect(try Self.get(path, at: address) == ("HTTP/1.1 200 OK", "path \(path)\n"))
            }
            #expect(Self.exchange("ics HTTP/1.1\r\n\r\n", on: stalled) == ("HTTP/1.1 200 OK", "path /metrics\n"))
        }
    }

    @Test("clients that connect and send nothing, as many as the limit, hold up no probe: the oldest makes room")
    func idleClients() throws {
        try Self.withServer { address in
            var idle = [Int32]()
            defer { idle.forEach { close($0) } }
            for _ in 0..<MetricsServer.connectionLimit { idle.append(try Self.connectTo(address)) }
            // Before the change, the probe waited in the listen queue until the idle ones timed out, closed.
            #expect(try Self.get("/healthz", at: address) == ("HTTP/1.1 200 OK", "path /healthz\n"))
            // Only the oldest, if any, made room; the rest are still open (nothing to read yet, no end).
            for descriptor in idle.dropFirst() {
                var byte: UInt8 = 0
                let count = recv(descriptor, &byte, 1, Int32(MSG_DONTWAIT))
                #expect(count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            }
            // A new client is served while the idle ones wait, again and again.
            for path in ["/a", "/b", "/c"] {
                #expect(try Self.get(path, at: address) == ("HTTP/1.1 200 OK", "path \(path)\n"))
            }
        }
    }

    @Test("HEAD gets the head alone, with the body's length; a request in many pieces is read whole")
    func headAndPieces() throws {
        try Self.withServer { address in
            let head = try Self.connectTo(address)
            defer { close(head) }
            let answer = Self.exchange("HEAD /healthz HTTP/1.1\r\n\r\n", on: head)
            #expect(answer.status == "HTTP/1.1 200 OK")
            #expect(answer.body.isEmpty)
            let pieces = try Self.connectTo(address)
            defer { close(pieces) }
            for piece in ["G", "ET /x HTTP/1.0\n", "Host: y\n"] {
                _ = Array(piece.utf8).withUnsafeBytes { send(pieces, $0.baseAddress, $0.count, 0) }
            }
            #expect(Self.exchange("\n", on: pieces) == ("HTTP/1.1 200 OK", "path /x\n"))
        }
    }

    /// clients/python's test_connections.py has the client that got a reset connection instead.
    @Test("a request head too large gets its 431, and a POST with a body its 405")
    func errorsReachTheClient() throws {
        try Self.withServer { (address: String) throws in
            let large = "GET /metrics HTTP/1.1\r\nX: " + String(repeating: "a", count: 40_000) + "\r\n\r\n"
            let tooLarge = try Self.get("/", at: address, request: large)
            #expect(tooLarge.status == "HTTP/1.1 431 Request Header Fields Too Large")
            let post =
                "POST /metrics HTTP/1.1\r\nContent-Length: 40000\r\n\r\n" + String(repeating: "b", count: 40_000)
            #expect(try Self.get("/", at: address, request: post).status == "HTTP/1.1 405 Method Not Allowed")
            #expect(try Self.get("/healthz", at: address).status == "HTTP/1.1 200 OK")
        }
    }

    @Test("an address is HOST:PORT with a port in 0...65535, checked before anything starts")
    func addresses() throws {
        #expect(try MetricsServer.parse("127.0.0.1:0") == ("127.0.0.1", 0))
        #expect(try MetricsServer.parse("[::1]:65535") == ("::1", 65535))
        #expect(try MetricsServer.parse(":9100") == ("", 9100))
        for bad in ["127.0.0.1:65536", "127.0.0.1:-1", "127.0.0.1:", "127.0.0.1:80x", "127.0.0.1:٣", "localhost"] {
            #expect(throws: CommandLineArguments.Failure.self, "\(bad)") { try MetricsServer.parse(bad) }
        }
        var configuration = WorkerConfiguration()
        configuration.metricsAddress = "127.0.0.1:99999"
        #expect {
            try configuration.validate()
        } throws: { error in
            "\(error)".contains("the port must be a number in 0...65535 (0: any free one), got \"99999\"")
        }
    }

    @Test("the end of a request head: a blank line, CRLF or LF")
    func endOfHead() {
        func end(_ text: String) -> Int? { MetricsServer.Connection.endOfHead(Array(text.utf8)) }
        #expect(end("GET / HTTP/1.1\r\nHost: a\r\n\r\nrest") == 27)
        #expect(end("GET / HTTP/1.0\n\n") == 16)
        #expect(end("GET / HTTP/1.1\r\nHost: a\r\n") == nil)
        #expect(end("GET / HTTP/1.1\r\n\r") == nil)
        #expect(end("") == nil)
    }

    @Test("a worker serves its counters to Prometheus and its health, and answers other requests with 4xx")
    func endpoint() async throws {
        let messages = try WorkerIntegrationTests.checkMessages()
        try await withWorker({ $0.metricsAddress = "127.0.0.1:0" }) { input, output, worker in
            let address = String(worker.endpoints.first { $0.hasPrefix("metrics:") }!.dropFirst("metrics:".count))
            _ = try await withClient(input: input, output: output) { client in
                for message in messages { try client.send(session: "metrics-1", message) }
                _ = try client.events(2)
                try client.sendRaw([Array("not-a-topic".utf8), Array("{".utf8)])
                _ = try client.nextEvent()
            }
            let metrics = try Self.get("/metrics", at: address)
            #expect(metrics.status == "HTTP/1.1 200 OK")
            #expect(metrics.body.contains("# TYPE stroke_worker_strokes_recognized_total counter\n"))
            #expect(metrics.body.contains("stroke_worker_strokes_recognized_total{shard=\"0/1\"} 1\n"))
            #expect(metrics.body.contains("stroke_worker_checkmarks_total{shard=\"0/1\"} 1\n"))
            #expect(metrics.body.contains("stroke_worker_strokes_matched_total{shard=\"0/1\"} 1\n"))
            #expect(metrics.body.contains("stroke_worker_strokes_unmatched_total{shard=\"0/1\"} 0\n"))
            #expect(metrics.body.contains("# TYPE stroke_worker_strokes_not_chosen_total counter\n"))
            #expect(metrics.body.contains("# TYPE stroke_worker_sessions_restored_total counter\n"))
            #expect(metrics.body.contains("stroke_worker_errors_total{shard=\"0/1\",code=\"bad_topic\"} 1\n"))
            // The test client pinged until its subscription arrived: pings, and no error for them.
            #expect(metrics.body.contains("# TYPE stroke_worker_pings_total counter\n"))
            #expect(!metrics.body.contains("stroke_worker_pings_total{shard=\"0/1\"} 0\n"))
            #expect(!metrics.body.contains("code=\"malformed_json\""))
            #expect(metrics.body.contains("stroke_worker_lanes{shard=\"0/1\"} 1\n"))
            // The lane's time between polls is added once a second.
            var busy = 0.0
            for _ in 0..<50 where busy == 0 {
                let line = try Self.get("/metrics", at: address).body.split(separator: "\n").first {
                    $0.hasPrefix("stroke_worker_lane_busy_seconds_total{")
                }
                busy = Double(line?.split(separator: " ").last ?? "") ?? 0
                if busy == 0 { try await Task.sleep(for: .milliseconds(100)) }
            }
            #expect(busy > 0, "the lane's busy time is counted")
            #expect(try Self.get("/healthz", at: address) == ("HTTP/1.1 200 OK", "ok\n"))
            // Both endpoints bound: nothing to connect to, ready.
            #expect(try Self.get("/readyz", at: address) == ("HTTP/1.1 200 OK", "ok\n"))
            #expect(try Self.get("/nothing", at: address).status == "HTTP/1.1 404 Not Found")
            #expect(try Self.get("", at: address, request: "POST /metrics HTTP/1.1\r\n\r\n").status.contains("405"))
            #expect(try Self.get("", at: address, request: "hello\r\n\r\n").status.contains("400"))
            let huge = "GET /metrics HTTP/1.1\r\nX: " + String(repeating: "a", count: 10_000) + "\r\n\r\n"
            #expect(try Self.get("", at: address, request: huge).status.contains("431"))
        }
    }

    @Test("an address that is no HOST:PORT stops the worker at its creation, one that cannot be bound fails run()")
    func badAddress() async throws {
        var configuration = WorkerConfiguration()
        configuration.inputs = [.init(bind: true, address: "tcp://127.0.0.1:*")]
        configuration.outputs = [.init(bind: true, address: "tcp://127.0.0.1:*")]
        configuration.logLevel = .error
        configuration.metricsAddress = "nonsense"
        let refused = #expect(throws: RecognitionError.self) { try Worker(configuration: configuration) }
        #expect(refused?.message.contains("--metrics nonsense: expected HOST:PORT") == true)
        configuration.metricsAddress = "256.1.1.1:80"
        let worker = try Worker(configuration: configuration)
        let failure = await #expect(throws: CommandLineArguments.Failure.self) { try await worker.run() }
        #expect(failure?.description.contains("--metrics 256.1.1.1:80") == true)
        // A port another process listens on is said as a taken --input or --output is, with a way out, and is no
        // usage error (session 85: it was one, exit status 2).
        let holder = try MetricsServer(address: "127.0.0.1:0")
        let taken = #expect(throws: WorkerError.self) {
            try MetricsServer(address: holder.boundAddress)
        }
        #expect(taken?.code == .listen && taken?.errno == EADDRINUSE)
        #expect(
            taken?.description
                == "--metrics \(holder.boundAddress): another process listens on this address (another worker or "
                + "proxy, or one still stopping?); stop it, or give another port (or 0 for one the system chooses) "
                + "(bind: Address already in use)")
    }

    @Test("/healthz and /readyz are 503 until the worker receives")
    func notReady() throws {
        let worker = try Worker(configuration: WorkerConfiguration())
        #expect(worker.httpResponse("/healthz").status == "503 Service Unavailable")
        #expect(worker.httpResponse("/readyz") == .init(status: "503 Service Unavailable", body: "not receiving\n"))
    }

    @Test("request lines: GET and HEAD of a path (query dropped); anything else 400 or 405")
    func requestLines() {
        let echo = { (path: String) in MetricsServer.Response(status: "200 OK", body: path) }
        func answer(_ head: String) -> MetricsServer.Response {
            MetricsServer.answer(to: Array(head.utf8), respond: echo)
        }
        #expect(answer("GET /metrics?x=1 HTTP/1.1\r\n\r\n").body == "/metrics")
        #expect(answer("HEAD /healthz HTTP/1.0\r\n\r\n").body == "/healthz")
        #expect(answer("DELETE / HTTP/1.1\r\n\r\n").status.hasPrefix("405"))
        #expect(answer("GET /\r\n\r\n").status.hasPrefix("400"))
        #expect(answer("GET / SPDY/3\r\n\r\n").status.hasPrefix("400"))
    }

    @Test("the exposition: HELP and TYPE per family, labels escaped, errors by code")
    func exposition() {
        let metrics = WorkerMetrics()
        metrics.messagesReceived.add(7, ordering: .relaxed)
        metrics.countError("sequence_gap")
        metrics.countError("sequence_gap")
        let text = metrics.prometheusText(labels: [("shard", "a\"b\\c\nd")])
        #expect(text.contains("# HELP stroke_worker_messages_received_total "))
        #expect(text.contains("stroke_worker_messages_received_total{shard=\"a\\\"b\\\\c\\nd\"} 7\n"))
        #expect(text.contains("stroke_worker_errors_total{shard=\"a\\\"b\\\\c\\nd\",code=\"sequence_gap\"} 2\n"))
        #expect(text.contains("# TYPE stroke_worker_sessions gauge\n"))
        #expect(metrics.prometheusText(labels: []).contains("\nstroke_worker_messages_received_total 7\n"))
        metrics.laneBusyMicroseconds.add(1_500_000, ordering: .relaxed)
        #expect(metrics.prometheusText(labels: []).contains("\nstroke_worker_lane_busy_seconds_total 1.5\n"))
    }
}
