import Foundation
import StrokeProtocol
import StrokeRecognition
import StrokeWorker
import Synchronization

/// `stroke-tool send`: strokes sent to a worker as a producer sends them, and the events they bring: a deployment's
/// recognition checked end to end.
enum SendCommand {
    static let usage = """
        USAGE
          stroke-tool send --input ENDPOINT --output ENDPOINT [--gesture NAME]... [--strokes FILE] [options]
              Connects to a worker's (or a proxy's) input and output as a producer and a consumer do, pings the
              session until its pong comes back (so that no event is lost to the subscription), then sends each
              stroke and prints the events it brings, one line each as `watch` prints them, until its match or
              nomatch; then closes the session and says how many strokes were answered, and how many matched the
              gesture meant. Exit status 0 when every stroke was answered and each that meant a gesture matched
              it, 1 otherwise.

        OPTIONS
          --gesture NAME            a stroke of this gesture of the built-in library (one of its templates,
                                    drawn at 10 ms a point), repeatable (default: check, when no --strokes)
          --strokes FILE            the strokes of a file, as `stroke-tool recognize` reads them:
                                    [{"name": "check", "points": [[x, y, t], …]}, …] ("name", the gesture
                                    meant, optional; "strokes" instead of "points" for a gesture of several)
          --session ID              the session (default: stroke-tool-send/ and 8 random hex digits)
          --batch N                 points per message, 1 to 1,000 (default 32)
          --options JSON            the session's options, sent before its strokes: a JSON object of an
                                    `options` message's fields (Protocol/README.md, section 4), checked as
                                    the worker checks them, such as '{"minimumScore": 0.7}' or
                                    '{"gestures": ["check", "v"], "followTilt": false}' (default: none)
          --json-payloads           JSON payloads throughout (default: binary where the binary form has room)
          --timeout S               seconds to wait for the pong, and for each stroke's answer (default 5)
          --curve-secret-key FILE   with --curve-server-key: connect as a CURVE client with this secret key
          --curve-server-key KEY|FILE
                                    the worker's or proxy's public key
        """

    /// What came back, as the strokes are answered.
    struct Tally {
        var answered = 0
        var matchedAsMeant = 0
    }

    /// The tally, shared by the task that sends and the one that ends the run.
    final class SharedTally: Sendable {
        let value = Mutex(Tally())
    }

    static func run(_ arguments: [String]) async throws -> Int32 {
        let args = try StrokeTool.parse(
            arguments, flags: ["json-payloads"],
            known: [
                "input", "output", "gesture", "strokes", "session", "batch", "timeout", "curve-secret-key",
                "curve-server-key", "options",
            ])
        if args.flag("help") {
            print(usage)
            return 0
        }
        let (input, output) = try StrokeTool.inputAndOutput(args, usage: usage)
        let session = try StrokeTool.session(
            args, default: "stroke-tool-send/" + String(format: "%08x", UInt32.random(in: .min ... .max)))
        let batch: Int = try args.parsed("batch", default: 32)
        let timeout: Double = try args.parsed("timeout", default: 5)
        guard (1...1000).contains(batch) else {
            throw CommandLineArguments.Failure(description: "--batch: 1 to 1,000, got \(batch)")
        }
        try StrokeTool.checkTimeout(timeout)
        let strokes = try self.strokes(args)
        let options = try self.options(args)
        let security = try StrokeTool.clientSecurity(args)
        // Its connections told on standard error, as `watch` tells its own (a key refused, nothing listening).
        let (connections, ended) = try WatchCommand.startConnectionWatch(label: "stroke-tool send")
        defer { ended.finish() }
        let events = WorkerEvents(
            .init(
                endpoints: [WorkerConfiguration.Endpoint(parsing: WatchCommand.connecting(output))],
                prefixes: [session], security: security, connections: connections,
                undecodable: { topic, error in
                    // The session's own answer unread ends the run; another's (its id starting with this one) is
                    // none of this run's business.
                    if topic == session { throw error }
                }))
        let producer = try await AsyncStrokeProducer.connect(
            .init(
                endpoints: [WorkerConfiguration.Endpoint(parsing: WatchCommand.connecting(input))],
                binary: !args.flag("json-payloads"), security: security, connections: connections))
        let tally = SharedTally()
        let finished = try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask {
                var iterator = events.makeAsyncIterator()
                guard
                    try await iterator.waitUntilSubscribed(
                        pinging: producer, session: session, timeout: .seconds(timeout))
                else {
                    StrokeTool.printError(
                        "stroke-tool send: no pong for session \(session) within \(timeout) s: no worker serves its "
                            + "shard at \(input) and \(output), or one refused this client's CURVE key")
                    return false
                }
                try await send(
                    strokes, session: session, options: options, batch: batch, producer: producer,
                    iterator: &iterator
                ) {
                    stroke, answer in
                    tally.value.withLock { tally in
                        tally.answered += 1
                        if stroke.name != nil && answer.kind == .match && answer.name == stroke.name {
                            tally.matchedAsMeant += 1
                        }
                    }
                }
                return true
            }
            group.addTask {
                try await Task.sleep(for: .seconds(timeout * Double(strokes.count + 1)))
                return false
            }
            let first = try await group.next() ?? false
            group.cancelAll()
            return first
        }
        try? await producer.close(session: session)
        let result = tally.value.withLock { $0 }
        var summary = "\(result.answered) of \(strokes.count) strokes answered"
        let meant = strokes.filter { $0.name != nil }.count
        if meant > 0 { summary += "; \(result.matchedAsMeant) of \(meant) matched the gesture meant" }
        print(summary)
        return finished && result.answered == strokes.count && result.matchedAsMeant == meant ? 0 : 1
    }

    // MARK: - Strokes

    /// The strokes of `--gesture` and `--strokes`, in that order; a check when neither is given.
    static func strokes(_ args: CommandLineArguments) throws -> [RecognizeCommand.Stroke] {
        var strokes = [RecognizeCommand.Stroke]()
        let names = args.wholeValues("gesture")
        if !names.isEmpty || args.value("strokes") == nil {
            let library = try TemplateLibrary.builtIn()
            for name in names.isEmpty ? ["check"] : names {
                guard let template = library.templates.first(where: { $0.name == name && $0.strokeStarts.isEmpty })
                else {
                    let known = Set(library.templates.map(\.name)).sorted().joined(separator: ", ")
                    throw CommandLineArguments.Failure(
                        description: "--gesture: no gesture \"\(name)\" in the built-in library (\(known))")
                }
                let points = template.points.enumerated().map { index, point in
                    StrokePoint(x: point.x, y: point.y, time: Double(index) * 10)
                }
                strokes.append(RecognizeCommand.Stroke(name: name, points: points))
            }
        }
        if let path = args.value("strokes") {
            let file = try RecognizeCommand.Stroke.read(path)
            guard !file.isEmpty, file.allSatisfy({ $0.strokes.allSatisfy { !$0.isEmpty } }) else {
                throw CommandLineArguments.Failure(
                    description: "--strokes \(path): no strokes, or a stroke of no points")
            }
            strokes += file
        }
        return strokes
    }

    /// The session options of `--options`, checked as the worker checks an `options` message; nil without it.
    static func options(_ args: CommandLineArguments) throws -> SessionOptions? {
        guard let text = args.value("options") else { return nil }
        let example = "a JSON object of an options message's fields, such as {\"minimumScore\": 0.7}"
        guard var fields = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] else {
            throw CommandLineArguments.Failure(description: "--options: \(example)")
        }
        fields["type"] = "options"
        fields["seq"] = 1
        let payload = try JSONSerialization.data(withJSONObject: fields)
        do {
            return try InputDecoder().decode(Array(payload)).options
        } catch {
            throw CommandLineArguments.Failure(description: "--options: \(error.message) (\(example))")
        }
    }

    // MARK: - Sending

    /// Sends each stroke (a gesture of several with the session grouping strokes) and prints the session's events
    /// until its match or nomatch, or an error that answers its end; `answered` gets the stroke and that event.
    static func send(
        _ strokes: [RecognizeCommand.Stroke], session: String, options: SessionOptions? = nil, batch: Int,
        producer: AsyncStrokeProducer, iterator: inout WorkerEvents.AsyncIterator,
        answered: (RecognizeCommand.Stroke, OutputEvent) -> Void
    ) async throws {
        // Gestures of several strokes need the session to group strokes; a stroke of its own then ends its gesture.
        let grouping = strokes.contains { $0.strokes.count > 1 }
        var options = options
        if grouping && options?.multistroke == nil {
            options = options ?? SessionOptions()
            options?.multistroke = 1000
        }
        if let options { try await producer.setOptions(options, session: session) }
        for stroke in strokes {
            let pieces = stroke.strokes.map { piece in
                piece.map { WirePoint(x: $0.x, y: $0.y, t: $0.time, pressure: $0.pressure.map(Float.init)) }
            }
            let ids =
                pieces.count == 1
                ? [try await producer.sendStroke(pieces[0], session: session, batch: batch, last: grouping)]
                : try await producer.sendGesture(pieces, session: session, batch: batch)
            let last = Int(ids[ids.count - 1])
            while let event = try await iterator.next() {
                // The subscription to the session brings every session whose id starts with its own.
                guard event.session == session else { continue }
                // Written at once, not buffered as `print` is when the output is a pipe.
                FileHandle.standardOutput.write(Data((WatchCommand.line(event) + "\n").utf8))
                let answers = event.kind == .match || event.kind == .nomatch || event.kind == .error
                if answers && event.stroke == last {
                    answered(stroke, event)
                    break
                }
            }
        }
    }
}
