#if canImport(Glibc)
    import Glibc
#endif

extension MetricsServer {
    /// One accepted connection of the metrics endpoint: it reads a request head, then writes the answer, without
    /// ever blocking the thread that serves the others. Both happen before `deadline` or the connection is dropped.
    struct Connection {
        /// What the connection waits for.
        enum State: Equatable {
            /// The request head, not yet complete.
            case reading
            /// Room in the socket for the rest of the answer.
            case writing
            /// The end of what the client sends, after an answer to a request not read whole (too large, or not
            /// a `GET`): read and dropped, so that closing with unread input does not reset the connection, which
            /// may discard the answer before the client reads it (the client of a 20-KB head got "connection reset"
            /// instead of 431).
            case draining
            /// Nothing: close it.
            case finished
        }

        /// The connected, non-blocking socket.
        let descriptor: Int32
        /// When the connection is dropped, answered or not.
        let deadline: ContinuousClock.Instant
        private(set) var state = State.reading
        private var head = [UInt8]()
        private var output = [UInt8]()
        private var written = 0
        /// Whether the answer is to a request the connection may still be sending (`draining` follows it).
        private var drainsAfter = false

        /// A connection accepted now.
        init(descriptor: Int32, deadline: ContinuousClock.Instant) {
            self.descriptor = descriptor
            self.deadline = deadline
        }

        /// The events to poll for.
        var events: Int16 { Int16(state == .writing ? POLLOUT : POLLIN) }

        /// Reads or writes what the socket allows now; `respond` answers a complete request head.
        mutating func advance(respond: (_ path: String) -> Response) {
            if state == .reading { read(respond: respond) }
            if state == .writing { write() }
            if state == .draining { drain() }
        }

        // MARK: - Reading

        private mutating func read(respond: (String) -> Response) {
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 2048) { buffer in
                while true {
                    let count = recv(descriptor, buffer.baseAddress, buffer.count, 0)
                    if count < 0 && errno == EINTR { continue }
                    if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { return }
                    guard count > 0 else {  // closed before a whole request, or failed
                        state = .finished
                        return
                    }
                    head += buffer[0..<count]
                    if let end = Self.endOfHead(head) {
                        let response = MetricsServer.answer(to: Array(head[..<end]), respond: respond)
                        // A request other than GET or HEAD may have a body that follows its head.
                        answer(response, drainsAfter: response.status.hasPrefix("4"))
                        return
                    }
                    if head.count >= MetricsServer.requestLimit {
                        answer(
                            Response(status: "431 Request Header Fields Too Large", body: "request too large\n"),
                            drainsAfter: true)
                        return
                    }
                }
            }
        }

        /// Where the head ends (after its blank line), if it does.
        static func endOfHead(_ bytes: [UInt8]) -> Int? {
            var index = bytes.startIndex
            while let newline = bytes[index...].firstIndex(of: 10) {
                let next = newline + 1
                if next < bytes.count && bytes[next] == 10 { return next + 1 }
                if next + 1 < bytes.count && bytes[next] == 13 && bytes[next + 1] == 10 { return next + 2 }
                index = next
            }
            return nil
        }

        private mutating func answer(_ response: Response, drainsAfter: Bool) {
            self.drainsAfter = drainsAfter
            let body = Array(response.body.utf8)
            output = Array(
                ("HTTP/1.1 \(response.status)\r\nContent-Type: \(response.contentType)\r\n"
                    + "Content-Length: \(body.count)\r\nConnection: close\r\n\r\n").utf8)
            if !response.headOnly { output += body }
            state = .writing
        }

        // MARK: - Writing

        private mutating func write() {
            while written < output.count {
                let sent = output[written...].withUnsafeBytes {
                    send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
                }
                if sent < 0 && errno == EINTR { continue }
                if sent < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { return }
                guard sent > 0 else { break }
                written += sent
            }
            guard drainsAfter, written == output.count else {
                state = .finished
                return
            }
            // The answer is out: say so with a FIN, then read until the client closes (or the deadline).
            _ = shutdown(descriptor, Int32(SHUT_WR))
            state = .draining
        }

        // MARK: - Draining

        private mutating func drain() {
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 4096) { buffer in
                while true {
                    let count = recv(descriptor, buffer.baseAddress, buffer.count, 0)
                    if count < 0 && errno == EINTR { continue }
                    if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { return }
                    if count <= 0 { break }  // the client closed, or the connection failed
                }
                state = .finished
            }
        }
    }
}
