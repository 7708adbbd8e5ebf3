import Dispatch
import StrokeWorker
import Synchronization
import ZeroMQ

/// Relays commands from an external REP control socket to the proxy's inproc PAIR control socket and answers
/// with the proxy's reply (`STATISTICS` returns eight counters) or `OK`.
enum ControlRelay {
    static func run(
        context: ZMQContext, external: String, proxyControl: String, binding: Binding,
        stopped: @Sendable () -> Bool
    ) throws {
        var bound: String?
        defer { if bound == nil { binding.resolve(nil) } }
        let rep = try ZMQSocket(context, .rep)
        try rep.setLinger(milliseconds: 0)
        try rep.setTimeouts(receive: 200)
        let endpoint = WorkerConfiguration.Endpoint(parsing: external)
        bound = try rep.attach(endpoint) ?? "connect:\(endpoint.address)"
        binding.resolve(bound)
        let pair = try ZMQSocket(context, .pair)
        try pair.setLinger(milliseconds: 0)
        try pair.setTimeouts(send: 1000, receive: 1000)
        try pair.connect(proxyControl)
        while !stopped() {
            let frames = try receive(rep)
            guard let frames, let command = frames.first.map({ String(decoding: $0, as: UTF8.self) }) else { continue }
            try pair.send(command)
            if command == "STATISTICS" {
                let reply = try pair.receiveMultipart() ?? []
                let numbers = reply.map { frame in
                    frame.count == 8 ? String(frame.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }) : "?"
                }
                try rep.send(numbers.joined(separator: " "))
            } else {
                try rep.send("OK")
            }
            if command == "TERMINATE" { return }
        }
    }
}

extension ControlRelay {
    /// Where the relay's socket listens (or connects), told once by the relay's thread to the thread that says the
    /// proxy is listening; nil when the relay failed before.
    final class Binding: Sendable {
        private let endpoint = Mutex<String??>(nil)
        private let told = DispatchSemaphore(value: 0)

        /// Tells the endpoint, or nil for a failure; only the first call counts.
        func resolve(_ value: String?) {
            let first = endpoint.withLock { current in
                guard current == nil else { return false }
                current = .some(value)
                return true
            }
            if first { told.signal() }
        }

        /// The endpoint, once told; nil for a failure, or after `seconds` without word.
        func wait(seconds: Int = 5) -> String? {
            guard told.wait(timeout: .now() + .seconds(seconds)) == .success else { return nil }
            told.signal()  // for a later wait
            return endpoint.withLock { $0 ?? nil }
        }
    }

    /// One request, or `nil` on timeout or when the context is terminated.
    static func receive(_ socket: ZMQSocket) throws -> [[UInt8]]? {
        do {
            return try socket.receiveMultipart()
        } catch {
            if error.code == .terminated { return nil }
            throw error
        }
    }
}
