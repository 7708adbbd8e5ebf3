import Dispatch
import StrokeRecognition
import StrokeWorker
import Synchronization
import ZeroMQ

/// Relays commands from an external REP control socket to the proxy's inproc PAIR control socket and answers
/// with the proxy's reply (`STATISTICS` returns eight counters) or `OK`.
///
/// Only the proxy's four commands are passed on (`ZMQProxy.Command`); any other text is answered with `ERROR`
/// and the commands it takes: libzmq's proxy ends the process on a command it does not know, and before session
/// 88 a lowercase `pause` or an empty message sent to `--control` aborted the whole proxy.
enum ControlRelay {
    /// How long the relay waits for the proxy to take a command or answer `STATISTICS`, in milliseconds: a proxy
    /// held in a send to a subscriber behind (`--no-drop`) reads its control socket only once the send is done.
    static let proxyTimeoutMilliseconds: Int32 = 1000

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
        try pair.setTimeouts(send: proxyTimeoutMilliseconds, receive: proxyTimeoutMilliseconds)
        try pair.connect(proxyControl)
        // Answers to `STATISTICS` that the proxy gave after the relay had stopped waiting: each is read and dropped
        // before the next one is taken, which would otherwise be one request behind from then on.
        var late = 0
        while !stopped() {
            let frames = try receive(rep)
            guard let frames else { continue }
            let text = String(decoding: frames.first ?? [], as: UTF8.self)
            guard let command = ZMQProxy.Command(rawValue: text) else {
                try rep.send(unknownCommandAnswer(text))
                continue
            }
            try pair.send(command.rawValue)
            if command == .statistics {
                var reply = try pair.receiveMultipart()
                while reply != nil && late > 0 {
                    late -= 1
                    reply = try pair.receiveMultipart()
                }
                guard let reply else {
                    late += 1
                    try rep.send(
                        "ERROR the proxy did not answer within \(proxyTimeoutMilliseconds) ms (a send to a subscriber "
                            + "behind holds it with --no-drop)")
                    continue
                }
                let numbers = reply.map { frame in
                    frame.count == 8 ? String(frame.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }) : "?"
                }
                try rep.send(numbers.joined(separator: " "))
            } else {
                try rep.send("OK")
            }
            if command == .terminate { return }
        }
    }

    /// The answer to a request that is none of the proxy's commands: `ERROR`, what arrived (its first 40
    /// characters, quoted for display) and what the socket takes.
    static func unknownCommandAnswer(_ text: String) -> String {
        let commands = ZMQProxy.Command.allCases.map(\.rawValue)
        return "ERROR unknown command \(text.quotedForDisplay(atMost: 40)): "
            + commands.dropLast().joined(separator: ", ") + " or \(commands.last!)"
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
