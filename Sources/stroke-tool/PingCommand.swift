import Foundation
import StrokeProtocol
import StrokeRecognition
import StrokeWorker
import ZeroMQ

/// `stroke-tool ping`: the way to the worker that serves a session and back, checked with the protocol's `ping`.
enum PingCommand {
    static let usage = """
        USAGE
          stroke-tool ping --input ENDPOINT --output ENDPOINT [options]
              Connects to a worker's (or a proxy's) input and output as a producer and a consumer do, waits until
              the input's subscriptions cover the session's shard bucket, pings the session until a pong comes
              back (Protocol/README.md, section 4), then times COUNT more round trips. Prints the shard of the
              worker that answered, whether it holds the session's state, and the round trips. A ping creates no
              state and uses none of the session's sequence numbers (it counts as the session's activity).
              Exit status 0 when the pongs came back, 1 when one did not within the timeout, 2 for a bad option.

        OPTIONS
          --session ID              the session to ping (default stroke-tool-ping)
          --count N                 round trips to time after the first pong, 0 to 10,000 (default 10)
          --timeout S               seconds to wait for the subscriptions, the first pong, and each one after
                                    it (default 5)
          --curve-secret-key FILE   with --curve-server-key: connect as a CURVE client with this secret key
          --curve-server-key KEY|FILE
                                    the worker's or proxy's public key
          --json                    print exactly one JSON object
        """

    /// What a run found, for `--json`.
    struct Report: Encodable {
        let session: String
        let shard: String
        let known: Bool
        let roundTripsMicroseconds: [Double]
    }

    static func run(_ arguments: [String]) async throws -> Int32 {
        let args = try StrokeTool.parse(
            arguments, flags: ["json"],
            known: ["input", "output", "session", "count", "timeout", "curve-secret-key", "curve-server-key"])
        if args.flag("help") {
            print(usage)
            return 0
        }
        let (input, output) = try StrokeTool.inputAndOutput(args, usage: usage)
        let session = try StrokeTool.session(args, default: "stroke-tool-ping")
        let count: Int = try args.parsed("count", default: 10)
        let timeout: Double = try args.parsed("timeout", default: 5)
        guard (0...10_000).contains(count) else {
            throw CommandLineArguments.Failure(description: "--count: 0 to 10,000, got \(count)")
        }
        try StrokeTool.checkTimeout(timeout)
        let security = try StrokeTool.clientSecurity(args)
        let json = args.flag("json")
        // Its connections told on standard error, as `watch` and `send` tell theirs. A ping does not connect again
        // to an endpoint that refused its key: it is over before a retry would come.
        let (connections, ended) = try WatchCommand.startConnectionWatch(label: "stroke-tool ping", reconnecting: false)
        defer { ended.finish() }
        // The sockets block in libzmq's calls: on a thread of their own, not the concurrency pool's.
        return try await ThreadRunner.run(name: "ping") {
            let pinger = try Pinger(
                input: input, output: output, session: session, timeout: timeout, security: security,
                connections: connections)
            let report: Report
            switch try pinger.run(count: count) {
            case .answered(let answered):
                report = answered
            case .unanswered:
                StrokeTool.printError(
                    "stroke-tool ping: no pong for session \(session) within \(timeout) s: no worker serves its "
                        + "shard at \(input) and \(output), or one refused this client's CURVE key")
                return 1
            case .lost(let sequence):
                // Before session 86 a usage error (status 2), as if an option had been wrong.
                StrokeTool.printError(
                    "stroke-tool ping: the pong of ping \(sequence) of \(count) did not come back within \(timeout) s "
                        + "(the first did)")
                return 1
            }
            if json {
                try StrokeTool.printJSON(report)
            } else {
                print(text(report))
            }
            return 0
        }
    }

    /// The report as text: who answered, then the round trips.
    static func text(_ report: Report) -> String {
        let holds = report.known ? "holds its state" : "holds no state for it"
        var lines = ["pong for session \(report.session) from shard \(report.shard), which \(holds)"]
        let trips = report.roundTripsMicroseconds.sorted()
        if !trips.isEmpty {
            lines.append(
                String(counting: trips.count, "round trip")
                    + String(
                        format: ": least %.0f µs, median %.0f µs, most %.0f µs", trips[0], trips[trips.count / 2],
                        trips[trips.count - 1]))
        }
        return lines.joined(separator: "\n")
    }
}
