import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A minimal HTTP/1.1 endpoint for Prometheus scrapes and health checks (`--metrics`): it answers `GET` requests
/// one connection at a time on the thread that calls `run`, each request read within two seconds or dropped, and
/// closes every connection after its answer. Nothing else; put a proxy in front of it for anything more.
final class MetricsServer: Sendable {
    /// An answer: status line, content type and body.
    struct Response: Sendable, Equatable {
        var status: String
        var contentType = "text/plain; charset=utf-8"
        var body: String
    }

    /// The listening socket.
    private let listener: Int32
    /// The address bound, as `host:port` (the port the system chose for `:0`).
    let boundAddress: String

    /// Largest request head read; a longer one gets 431.
    static let requestLimit = 8192

    /// Binds and listens on `address` (`HOST:PORT`, `[IPv6]:PORT`; port 0 picks a free one).
    ///
    /// - Throws: `CommandLineArguments.Failure` naming the address and the system's error.
    init(address: String) throws(CommandLineArguments.Failure) {
        guard let colon = address.lastIndex(of: ":"), let port = UInt16(address[address.index(after: colon)...])
        else {
            throw CommandLineArguments.Failure(description: "--metrics \(address): expected HOST:PORT")
        }
        var host = String(address[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
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
        let descriptor = socket(info.pointee.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw Self.failure(address, "socket") }
        var one: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        guard bind(descriptor, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0, listen(descriptor, 16) == 0 else {
            let failure = Self.failure(address, "bind")
            close(descriptor)
            throw failure
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

    private static func failure(_ address: String, _ call: String) -> CommandLineArguments.Failure {
        CommandLineArguments.Failure(description: "--metrics \(address): \(call): \(String(cString: strerror(errno)))")
    }

    /// Answers connections until `stopped()` (checked every 100 ms); `respond` gets the request's path.
    func run(stopped: () -> Bool, respond: (_ path: String) -> Response) {
        var item = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
        while !stopped() {
            guard poll(&item, 1, 100) > 0 else { continue }
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { continue }
            serve(connection, respond: respond)
            close(connection)
        }
    }

    /// Reads one request head and writes its answer.
    private func serve(_ connection: Int32, respond: (String) -> Response) {
        var timeout = timeval(tv_sec: 1, tv_usec: 0)
        setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(connection, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var head = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 2048)
        // A client that trickles its request in gets two seconds in all, not one per byte.
        let deadline = ContinuousClock.now + .seconds(2)
        while !head.ends(with: [13, 10, 13, 10]) && !head.ends(with: [10, 10]) {
            guard ContinuousClock.now < deadline else { return }
            guard head.count < Self.requestLimit else {
                write(
                    Response(status: "431 Request Header Fields Too Large", body: "request too large\n"), to: connection
                )
                return
            }
            let count = buffer.withUnsafeMutableBytes { recv(connection, $0.baseAddress, $0.count, 0) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return }  // closed, or a second without data
            head += buffer[0..<count]
        }
        write(Self.answer(to: head, respond: respond), to: connection)
    }

    /// The answer to a request head: `GET` (or `HEAD`) of a path, else 400 or 405.
    static func answer(to head: [UInt8], respond: (String) -> Response) -> Response {
        let line = head.prefix { $0 != 13 && $0 != 10 }.split(separator: 32, omittingEmptySubsequences: false)
        guard line.count == 3, line[2].starts(with: Array("HTTP/1.".utf8)) else {
            return Response(status: "400 Bad Request", body: "not an HTTP/1.x request line\n")
        }
        guard line[0].elementsEqual("GET".utf8) || line[0].elementsEqual("HEAD".utf8) else {
            return Response(status: "405 Method Not Allowed", body: "only GET\n")
        }
        let target = String(decoding: line[1], as: UTF8.self)
        return respond(String(target.prefix { $0 != "?" }))
    }

    private func write(_ response: Response, to connection: Int32) {
        let body = Array(response.body.utf8)
        let bytes =
            Array(
                ("HTTP/1.1 \(response.status)\r\nContent-Type: \(response.contentType)\r\n"
                    + "Content-Length: \(body.count)\r\nConnection: close\r\n\r\n").utf8) + body
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes {
                send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            if sent < 0 && errno == EINTR { continue }
            guard sent > 0 else { return }
            offset += sent
        }
    }
}

extension Array where Element == UInt8 {
    fileprivate func ends(with suffix: [UInt8]) -> Bool {
        count >= suffix.count && self[(count - suffix.count)...].elementsEqual(suffix)
    }
}
