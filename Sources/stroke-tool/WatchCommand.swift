import Foundation
import StrokeProtocol
import StrokeWorker
import Synchronization
import ZeroMQ

/// `stroke-tool watch`: the events of a worker's (or a results proxy's) output as they come, one line each.
enum WatchCommand {
    static let usage = """
        USAGE
          stroke-tool watch --output ENDPOINT [options]
              Subscribes to a worker's output (or a results proxy's) as a consumer does and prints each event as
              it arrives, one line each: the session, its eventSeq, the event and what it says (a match's gesture,
              score and rotation, an error's code). Ends after --count events or --seconds, else on Ctrl-C.
              Its connection is told on standard error as a worker tells its own: an output that does not
              answer, a connection lost, a key the worker refuses. A message that is not an event (not two
              frames, or a payload that does not decode) is told there too, naming its topic and why, and the
              watch goes on. Exit status 0, or 1 when such a message came.

        OPTIONS
          --session PREFIX          sessions whose id starts with PREFIX, repeatable (default: every session)
          --system                  the $system topic too: the workers' stats and errors of no session
          --count N                 stop after N events (default: no limit)
          --seconds S               stop after S seconds (default: no limit)
          --curve-secret-key FILE   with --curve-server-key: connect as a CURVE client with this secret key
          --curve-server-key KEY|FILE
                                    the worker's or proxy's public key
        """

    static func run(_ arguments: [String]) async throws -> Int32 {
        let args = try StrokeTool.parse(
            arguments, flags: ["system"],
            known: ["output", "session", "count", "seconds", "curve-secret-key", "curve-server-key"])
        if args.flag("help") {
            print(usage)
            return 0
        }
        guard let output = args.value("output") else {
            throw CommandLineArguments.Failure(description: "--output is required\n\n\(usage)")
        }
        try StrokeTool.checkEndpoint(output, flag: "output")
        let count: Int? = try args.value("count").map { _ in try args.parsed("count", default: 0) }
        let seconds: Double? = try args.value("seconds").map { _ in try args.parsed("seconds", default: 0.0) }
        if let count, count < 1 {
            throw CommandLineArguments.Failure(description: "--count: at least 1, got \(count)")
        }
        if let seconds, !(seconds > 0 && seconds <= 86_400) {
            throw CommandLineArguments.Failure(description: "--seconds: more than 0, at most 86,400, got \(seconds)")
        }
        let security = try StrokeTool.clientSecurity(args)
        let prefixes = args.wholeValues("session")
        if let problem = WorkerEvents.longPrefixProblem(prefixes) {
            throw CommandLineArguments.Failure(description: "--session: \(problem)")
        }
        // Its connection told on standard error, as a worker tells its own: an output that does not answer, or
        // refuses the key, was silence, like a worker with no events to send.
        let (connections, ended) = try startConnectionWatch(label: "stroke-tool watch")
        defer { ended.finish() }
        let skipped = Skipped()
        let events = WorkerEvents(
            .init(
                endpoints: [WorkerConfiguration.Endpoint(parsing: connecting(output))],
                prefixes: prefixes.isEmpty ? [""] : prefixes, system: args.flag("system"), security: security,
                connections: connections,
                undecodable: { _, error in
                    StrokeTool.printError("stroke-tool watch: skipped \(error)")
                    skipped.count.add(1, ordering: .relaxed)
                }))
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                var printed = 0
                for try await event in events {
                    // Written at once, not buffered as `print` is when the output is a pipe.
                    FileHandle.standardOutput.write(Data((line(event) + "\n").utf8))
                    printed += 1
                    if let count, printed >= count { return }
                }
            }
            if let seconds {
                group.addTask { try await Task.sleep(for: .seconds(seconds)) }
            }
            try await group.next()
            group.cancelAll()
        }
        return skipped.count.load(ordering: .relaxed) == 0 ? 0 : 1
    }

    /// How many messages the watch skipped that were not events.
    final class Skipped: Sendable {
        let count = Atomic<Int>(0)
    }

    /// Set when the command ends, for the thread that reads its connection events.
    final class Ended: Sendable {
        let flag = Atomic<Bool>(false)
        let done = DispatchSemaphore(value: 0)

        /// Stops the watch and waits for it (at most 2 s) to read its sockets' last events, which it reads to their
        /// close: what they told is logged before the command exits.
        func finish() {
            flag.store(true, ordering: .releasing)
            _ = done.wait(timeout: .now() + 2)
        }
    }

    /// A connection watch that logs to standard error as `label`, for the sockets of `watch`, `send` and `ping`,
    /// with its thread started; it runs until the flag returned is set. Warnings and errors only: a tool's
    /// connections that work are not news. `reconnecting`: whether an endpoint that
    /// refused the handshake is connected to again after a back-off (as the worker does).
    static func startConnectionWatch(
        label: String, reconnecting: Bool = true
    ) throws -> (watch: ConnectionWatch, ended: Ended) {
        let watch = ConnectionWatch(
            context: try ZMQContext(), addressPrefix: "inproc://stroke-tool-monitor",
            logger: Logger(level: .warning, label: label),
            metrics: nil, retryLimit: reconnecting ? .seconds(30) : nil)
        let ended = Ended()
        ThreadRunner.start(name: "connections") {
            watch.run(stopped: { ended.flag.load(ordering: .acquiring) })
            ended.done.signal()
        }
        return (watch, ended)
    }

    /// An endpoint given without `bind:` or `connect:` is connected to, as consumers do.
    static func connecting(_ endpoint: String) -> String {
        endpoint.hasPrefix("bind:") || endpoint.hasPrefix("connect:") ? endpoint : "connect:" + endpoint
    }

    /// One event as a line: `session #eventSeq event details`, after a line of its own for events of the session
    /// lost just before it.
    static func line(_ event: OutputEvent) -> String {
        var parts = [event.session ?? "$system", "#\(event.eventSeq)", event.kind.rawValue]
        let lost =
            event.eventsLost > 0
            ? "\(event.session ?? "$system") lost \(event.eventsLost) event\(event.eventsLost == 1 ? "" : "s")\n" : ""
        switch event.kind {
        case .match:
            parts.append(event.name ?? "?")
            if let score = event.score { parts.append(String(format: "%.3f", score)) }
            if event.learned { parts.append("learned") }
            if event.backward { parts.append("backward") }
            if let rotation = event.rotation { parts.append("turned \(String(format: "%.1f", rotation))°") }
        case .nomatch:
            parts.append(event.reason ?? "?")
            if let unchosen = event.unchosen { parts.append("(\(unchosen.name) not chosen)") }
        case .checkmark:
            if let index = event.pointIndex { parts.append("at point \(index)") }
        case .learned:
            parts.append("\(event.name ?? "?") (\(event.templates ?? 0) learned)")
            if let nearest = event.nearest {
                parts.append(
                    "nearest \(nearest.name)\(nearest.learned ? " (learned)" : "") "
                        + String(format: "%.3f", nearest.score))
            }
        case .error:
            parts.append(event.code ?? "?")
            if event.restored { parts.append("restored") }
            if let message = event.message { parts.append("— \(message)") }
        case .closed:
            parts.append(event.reason ?? "?")
        case .pong:
            parts.append("from \(event.shard ?? "?")\(event.known == true ? ", which holds it" : "")")
        case .stats:
            parts.append(event.shard ?? "?")
            parts.append(
                event.counters.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " "))
        default:
            break
        }
        if let stroke = event.stroke { parts.append("stroke \(stroke)") }
        return lost + parts.joined(separator: " ")
    }
}
