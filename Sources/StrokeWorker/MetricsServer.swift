import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A minimal HTTP/1.1 endpoint for Prometheus scrapes and health checks (`--metrics`): it answers `GET` and `HEAD`
/// requests on the thread that calls `run`, up to `connectionLimit` connections at once without blocking on any,
/// each answered within two seconds or dropped, and closes every connection after its answer. A scraper that
/// stalls therefore never holds up a liveness probe, nor do clients that connect and send nothing: at the limit the
/// oldest of those makes room for a newcomer. Nothing else; put a proxy in front of it for anything more.
final class MetricsServer: Sendable {
    /// An answer: status line, content type and body.
    struct Response: Sendable, Equatable {
        var status: String
        var contentType = "text/plain; charset=utf-8"
        var body: String
        /// Whether only the head is sent (the answer to `HEAD`), with the body's length.
        var headOnly = false
    }

    /// The listening socket.
    private let listener: Int32
    /// The address bound, as `host:port` (the port the system chose for `:0`).
    let boundAddress: String

    /// Largest request head read; a longer one gets 431.
    static let requestLimit = 8192
    /// Connections served at once; more wait in the listen queue until one ends.
    static let connectionLimit = 32
    /// How long a connection has to send its request and take its answer.
    static let connectionTimeout = Duration.seconds(2)

    /// Binds and listens on `address` (`HOST:PORT`, `[IPv6]:PORT`; port 0 picks a free one).
    ///
    /// - Throws: `CommandLineArguments.Failure` for an address that is not one (a port out of range, a host that
    ///   does not resolve); `WorkerError` (`listen`) where the system refused the socket, the bind or the listen (a
    ///   port another process holds), naming the address and the system's error.
    init(address: String) throws {
        let (host, port) = try Self.parse(address)
        var hints = addrinfo()
        hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var found: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host.isEmpty || host == "*" ? nil : host, String(port), &hints, &found)
        guard status == 0, let info = found else {
            throw CommandLineArguments.Failure(
                description: "--metrics \(address): \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(found) }
        let descriptor = socket(
            info.pointee.ai_family,
            Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard descriptor >= 0 else {
            let number = errno
            throw WorkerError(
                .listen, "--metrics \(address): socket: \(String(cString: strerror(number)))", errno: number)
        }
        var one: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        guard bind(descriptor, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0, listen(descriptor, 16) == 0 else {
            // Said as a bind of --input or --output is (`WorkerConfiguration.bindFailure`): before session 82 only
            // `--metrics 127.0.0.1:9100: bind: Address already in use`.
            let number = errno
            close(descriptor)
            let reason = "bind: \(String(cString: strerror(number)))"
            let why = WorkerConfiguration.bindRemedy(errno: number, ipcPath: nil, anyPort: "0")
            // Exit status 1, as a taken --input: until session 85 a usage error (2, "See stroke-worker --help").
            throw WorkerError(
                .listen, "--metrics \(address): " + (why.map { "\($0) (\(reason))" } ?? reason), errno: number)
        }
        listener = descriptor
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let named = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        // `sin_port` and `sin6_port` sit at the same offset.
        let boundPort =
            named == 0
            ? withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin_port) }
            } : port
        boundAddress = "\(host.contains(":") ? "[\(host)]" : host):\(boundPort)"
    }

    deinit { close(listener) }

    /// The host (brackets taken off an IPv6 address) and the port of `address` (`HOST:PORT`, `[IPv6]:PORT`), checked
    /// before anything starts: a port that is not a number in 0...65535 is refused, with the option named.
    static func parse(_ address: String) throws(CommandLineArguments.Failure) -> (host: String, port: UInt16) {
        guard let colon = address.lastIndex(of: ":") else {
            throw CommandLineArguments.Failure(description: "--metrics \(address): expected HOST:PORT")
        }
        let digits = address[address.index(after: colon)...]
        guard !digits.isEmpty, digits.allSatisfy(\.isASCII), digits.allSatisfy(\.isNumber),
            let port = UInt16(digits)
        else {
            throw CommandLineArguments.Failure(
                description: "--metrics \(address): the port must be a number in 0...65535 (0: any free one), "
                    + "got \"\(digits)\"")
        }
        var host = String(address[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return (host, port)
    }

    /// Answers connections until `stopped()` (checked every 100 ms); `respond` gets the request's path.
    func run(stopped: () -> Bool, respond: (_ path: String) -> Response) {
        var connections = [Connection]()
        var items = [pollfd]()
        defer { for connection in connections { close(connection.descriptor) } }
        while !stopped() {
            // A negative descriptor is skipped by poll: the listener rests while every slot is taken by a connection
            // that is being answered. A slot held by one still waiting for its request is given up to a newcomer
            // (`accept`).
            let accepting = connections.count < Self.connectionLimit || Self.oldestWaiting(connections) != nil
            items.removeAll(keepingCapacity: true)
            items.append(pollfd(fd: accepting ? listener : -1, events: Int16(POLLIN), revents: 0))
            for connection in connections {
                items.append(pollfd(fd: connection.descriptor, events: connection.events, revents: 0))
            }
            guard poll(&items, nfds_t(items.count), 100) >= 0 || errno == EINTR else { return }
            let now = ContinuousClock.now
            for index in connections.indices where items[index + 1].revents != 0 {
                connections[index].advance(respond: respond)
            }
            connections.removeAll { connection in
                guard connection.state == .finished || now >= connection.deadline else { return false }
                close(connection.descriptor)
                return true
            }
            if accepting && items[0].revents != 0 { accept(into: &connections, respond: respond) }
        }
    }

    /// Accepts what waits, and serves at once what each new connection has sent already. At the limit, the
    /// oldest connection still waiting for its request is closed to make room: 32 clients that connect and send
    /// nothing (a port scanner, a load balancer's idle pool) would otherwise keep a liveness probe in the listen
    /// queue until they time out, two seconds, longer than a probe waits. A probe sends its request as it
    /// connects and is answered before anyone newer arrives.
    private func accept(into connections: inout [Connection], respond: (String) -> Response) {
        // At most a limit's worth a turn, so that a flood of connections does not keep the loop from its stop.
        var turns = 0
        while turns < Self.connectionLimit,
            connections.count < Self.connectionLimit || Self.oldestWaiting(connections) != nil
        {
            turns += 1
            let descriptor = Glibc.accept(listener, nil, nil)
            guard descriptor >= 0 else {
                // Out of descriptors: the listener would stay readable, so rest instead of spinning on it.
                if errno == EMFILE || errno == ENFILE { usleep(100_000) }
                return  // else none left (EAGAIN), or one that went away
            }
            _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
            _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
            var connection = Connection(descriptor: descriptor, deadline: .now + Self.connectionTimeout)
            connection.advance(respond: respond)
            guard connection.state != .finished else {
                close(descriptor)
                continue
            }
            if connections.count >= Self.connectionLimit, let oldest = Self.oldestWaiting(connections) {
                close(connections.remove(at: oldest).descriptor)
            }
            connections.append(connection)
        }
    }

    /// The index of the oldest connection still waiting for its request, the one that makes room at the limit;
    /// nil when every connection is being answered.
    private static func oldestWaiting(_ connections: [Connection]) -> Int? {
        connections.indices.lazy.filter { connections[$0].state == .reading }
            .min { connections[$0].deadline < connections[$1].deadline }
    }

    /// The answer to a request head: `GET` (or `HEAD`) of a path, else 400 or 405.
    static func answer(to head: [UInt8], respond: (String) -> Response) -> Response {
        let line = head.prefix { $0 != 13 && $0 != 10 }.split(separator: 32, omittingEmptySubsequences: false)
        guard line.count == 3, line[2].starts(with: Array("HTTP/1.".utf8)) else {
            return Response(status: "400 Bad Request", body: "not an HTTP/1.x request line\n")
        }
        guard line[0].elementsEqual("GET".utf8) || line[0].elementsEqual("HEAD".utf8) else {
            return Response(status: "405 Method Not Allowed", body: "only GET and HEAD\n")
        }
        let target = String(decoding: line[1], as: UTF8.self)
        var response = respond(String(target.prefix { $0 != "?" }))
        response.headOnly = line[0].elementsEqual("HEAD".utf8)
        return response
    }
}

extension MetricsServer.Response {
    /// The answer of a `--metrics` endpoint to `GET path`, the worker's and the proxy's alike: `/metrics` (the text
    /// `metrics()` makes), `/healthz` and `/readyz` (`health`), `/` naming them for `service`, else 404.
    /// `unconnected` and `metrics` are read only for the paths that show them.
    static func route(
        _ path: String, service: String, live: Bool, notLive: String, unconnected: () -> [String],
        metrics: () -> String
    ) -> Self {
        switch path {
        case "/metrics":
            return Self(status: "200 OK", contentType: "text/plain; version=0.0.4; charset=utf-8", body: metrics())
        case "/healthz": return health(live: live, notLive: notLive)
        case "/readyz": return health(live: live, notLive: notLive, unconnected: unconnected())
        case "/": return Self(status: "200 OK", body: "\(service): /metrics, /healthz, /readyz\n")
        default: return Self(status: "404 Not Found", body: "no \(path); try /metrics, /healthz or /readyz\n")
        }
    }

    /// The answer of `/healthz` (`unconnected` nil) or `/readyz`: 503 with `notLive` while the process's loop does
    /// not turn, 503 naming the endpoints connected to that have no connection, else 200 `ok`.
    static func health(live: Bool, notLive: String, unconnected: [String]? = nil) -> Self {
        guard live else { return Self(status: "503 Service Unavailable", body: "\(notLive)\n") }
        if let unconnected, !unconnected.isEmpty {
            return Self(
                status: "503 Service Unavailable", body: "not connected: \(unconnected.joined(separator: ", "))\n")
        }
        return Self(status: "200 OK", body: "ok\n")
    }
}
