import Foundation
import StrokeProtocol
import StrokeRecognition
import StrokeWorker

/// `stroke-tool`: evaluation, template library editing, CURVE keys, pinging a worker and watching its events.
enum StrokeTool {
    static let usage = """
        stroke-tool: evaluate the recognizer, edit template libraries, make CURVE keys

        USAGE
          stroke-tool eval --dataset DIR [options]        accuracy, checkmark rates and speed on $1-format logs
          stroke-tool robustness --dataset DIR [options]  the same under tilted, shaky, resampled strokes
          stroke-tool tilt --dataset DIR [options]        the checkmark detector following a tilted player
          stroke-tool recognize --strokes FILE [options]  a worker's answers for strokes of your own
          stroke-tool learned --dataset DIR [options]     what a gesture a session learns achieves
          stroke-tool multistroke --dataset DIR [options] what templates of several strokes achieve
          stroke-tool scribbles [options]                 how often a library turns away strokes of no gesture
          stroke-tool thresholds --dataset DIR [options]  what each gesture's own threshold trades
          stroke-tool library build --dataset DIR -o FILE  make a library from $1-format logs
          stroke-tool library add FILE (--dataset DIR | --strokes FILE | --library OTHER) [--gesture NAME]
          stroke-tool library remove FILE --gesture NAME [--index I]
          stroke-tool library list FILE|default
          stroke-tool library check FILE|default          which gestures a library confuses with each other
          stroke-tool library export-default -o FILE       write the built-in library as a file
          stroke-tool library threshold FILE --gesture NAME --minimum-score S|library  a gesture's own threshold
          stroke-tool keygen [-o PREFIX]                  a CURVE key pair for the worker's --curve-… options
          stroke-tool ping --input EP --output EP [options]  the way to a session's worker and back, timed
          stroke-tool watch --output EP [options]         the events of a worker's output as they come
          stroke-tool send --input EP --output EP [options]  strokes sent to a worker, and what it answers
          stroke-tool state FILE... [--shards N]          what workers' state files hold, and how N workers would split it

        Run `stroke-tool COMMAND --help` for a command's options.
        """

    static func main(_ arguments: [String]) async -> Int32 {
        guard let command = arguments.first else {
            printError(usage)
            return 2
        }
        let rest = Array(arguments.dropFirst())
        do {
            switch command {
            case "eval": return try EvalCommand.run(rest)
            case "robustness": return try RobustnessCommand.run(rest)
            case "tilt": return try TiltCommand.run(rest)
            case "recognize": return try RecognizeCommand.run(rest)
            case "learned": return try LearnedCommand.run(rest)
            case "multistroke": return try MultistrokeCommand.run(rest)
            case "scribbles": return try ScribblesCommand.run(rest)
            case "thresholds": return try ThresholdsCommand.run(rest)
            case "library": return try LibraryCommand.run(rest)
            case "keygen": return try KeygenCommand.run(rest)
            case "ping": return try await PingCommand.run(rest)
            case "watch": return try await WatchCommand.run(rest)
            case "send": return try await SendCommand.run(rest)
            case "state": return try StateCommand.run(rest)
            case "--help", "-h", "help":
                print(usage)
                return 0
            default:
                printError("stroke-tool: unknown command \(command.quotedForDisplay)\n\n\(usage)")
                return 2
            }
        } catch let failure as CommandLineArguments.Failure {
            printError("stroke-tool \(command): \(failure)")
            return 2
        } catch {
            printError("stroke-tool \(command): \(error)")
            return 1
        }
    }

    /// Prints `value` as one line of JSON with sorted keys (every command's `--json`).
    static func printJSON(_ value: some Encodable) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        print(String(decoding: try encoder.encode(value), as: UTF8.self))
    }

    /// CURVE for a command that connects as a client (`ping`, `watch`): `--curve-secret-key FILE` with
    /// `--curve-server-key KEY|FILE`, or nil without them.
    static func clientSecurity(_ args: CommandLineArguments) throws -> TransportSecurity? {
        let security = try TransportSecurity.load(
            secretKeyFile: args.value("curve-secret-key"), serverKey: args.value("curve-server-key"),
            authorizedKeysFile: nil)
        if let security, case .server = security.role {
            throw CommandLineArguments.Failure(description: "--curve-secret-key needs --curve-server-key")
        }
        return security
    }

    /// `--input EP` and `--output EP` of a command that talks to a worker as a producer and a consumer (`ping`,
    /// `send`).
    static func inputAndOutput(_ args: CommandLineArguments, usage: String) throws -> (input: String, output: String) {
        guard let input = args.value("input"), let output = args.value("output") else {
            throw CommandLineArguments.Failure(description: "--input and --output are required\n\n\(usage)")
        }
        try checkEndpoint(input, flag: "input")
        try checkEndpoint(output, flag: "output")
        return (input, output)
    }

    /// Checks a worker's endpoint as the worker checks its own (`WorkerConfiguration.Endpoint.check`): an address
    /// libzmq would misread, or `inproc://`, which no worker outside this process can serve, is refused.
    static func checkEndpoint(_ endpoint: String, flag: String) throws(CommandLineArguments.Failure) {
        try WorkerConfiguration.Endpoint(parsing: WatchCommand.connecting(endpoint)).check(flag: flag)
    }

    /// The logs of the subjects `--subjects` names (all of them when it is not given). A list that leaves none is a
    /// usage error naming the subjects the logs hold: `eval` printed 0.00% of nothing and exited 0, and `library
    /// build` wrote a library of no templates.
    static func bySubjects(_ logs: [DollarLog], _ args: CommandLineArguments) throws -> [DollarLog] {
        let subjects = Set(args.values("subjects"))
        guard !subjects.isEmpty else { return logs }
        let kept = logs.filter { subjects.contains($0.subject) }
        guard kept.isEmpty else { return kept }
        let held = Set(logs.map(\.subject)).sorted()
        throw CommandLineArguments.Failure(
            description: "--subjects \(subjects.sorted().joined(separator: ",")): no strokes of "
                + (held.isEmpty ? "any subject" : "these subjects (the logs hold \(held.joined(separator: ", ")))"))
    }

    /// `--session ID` (`defaultValue` when not given), checked against the protocol's rules for a session id.
    static func session(_ args: CommandLineArguments, default defaultValue: @autoclosure () -> String) throws -> String
    {
        let session = args.value("session") ?? defaultValue()
        let topic = Array(ShardKey.topic(for: session).utf8)
        guard (try? topic.withUnsafeBytes { try ShardKey.check(topic: $0) }) != nil else {
            throw CommandLineArguments.Failure(description: "--session: not a session id the protocol allows")
        }
        return session
    }

    /// The checkmark detector's tuning of `--checkmark-config FILE`, or the built-in one.
    static func checkmarkConfiguration(_ args: CommandLineArguments) throws -> CheckmarkConfiguration {
        try args.value("checkmark-config").map { try CheckmarkConfiguration(contentsOf: $0) } ?? .default
    }

    /// The library's stroke direction of `--stroke-direction drawn|any` (default: drawn).
    static func strokeDirection(_ args: CommandLineArguments) throws -> TemplateLibrary.StrokeDirection {
        guard let direction = TemplateLibrary.StrokeDirection(rawValue: args.value("stroke-direction") ?? "drawn")
        else {
            throw CommandLineArguments.Failure(description: "--stroke-direction: drawn or any")
        }
        return direction
    }

    /// A score in 0...1 given to `option` (scores lie in (0, 1]), or a failure naming the option and the text.
    static func score(_ text: some StringProtocol, option: String) throws -> Double {
        guard let value = Double(text), (0...1).contains(value) else {
            throw CommandLineArguments.Failure(description: "\(option): not a score in 0...1: \(text)")
        }
        return value
    }

    /// `--minimum-score S`: a library's threshold, in 0...1 (`defaultValue` when not given).
    static func minimumScore(_ args: CommandLineArguments, default defaultValue: Double) throws -> Double {
        let score: Double = try args.parsed("minimum-score", default: defaultValue)
        guard (0...1).contains(score) else {
            throw CommandLineArguments.Failure(description: "--minimum-score: a score in 0...1")
        }
        return score
    }

    /// The gestures' own scores of a repeatable `--OPTION NAME=S` (the name taken whole, up to its last `=`; S in
    /// 0...1).
    static func gestureScores(_ args: CommandLineArguments, option: String) throws -> [String: Double] {
        var scores = [String: Double]()
        for entry in args.wholeValues(option) {
            guard let equals = entry.lastIndex(of: "="), equals != entry.startIndex,
                let score = Double(entry[entry.index(after: equals)...]), (0...1).contains(score)
            else {
                throw CommandLineArguments.Failure(
                    description: "--\(option): NAME=S, S a score in 0...1, got \"\(entry)\"")
            }
            scores[String(entry[..<equals])] = score
        }
        return scores
    }

    /// Refuses a name in `given` (from `option`) that is no gesture of `library`, naming it and the library's
    /// gestures: it would choose or score nothing, and the command would answer as if it were not given (session 81
    /// found that for `recognize --gestures`, session 82 for `--gesture-score` and `thresholds --gesture`).
    /// `called`, when given, says what the library is (`the library each subject is left out of`).
    static func checkGestures(
        _ given: some Sequence<String>, option: String, in library: TemplateLibrary, called: String? = nil
    ) throws {
        let names = library.gestureNames
        guard let unknown = given.first(where: { !names.contains($0) }) else { return }
        throw CommandLineArguments.Failure(
            description:
                "\(option): \(unknown.quotedForDisplay) is no gesture of \(called ?? "the library \(library.name)") "
                + "(its gestures: \(names.joined(separator: ", ")))")
    }

    /// `--neighbors K` (`TemplateLibrary.neighbors`), or `defaultValue`.
    static func neighbors(_ args: CommandLineArguments, default defaultValue: Int) throws -> Int {
        let neighbors: Int = try args.parsed("neighbors", default: defaultValue)
        guard (1...TemplateLibrary.maximumNeighbors).contains(neighbors) else {
            throw CommandLineArguments.Failure(
                description: "--neighbors: a number of templates in 1...\(TemplateLibrary.maximumNeighbors)")
        }
        return neighbors
    }

    /// `--elastic-dead-zone DEG|none` (`TemplateLibrary.elasticDeadZoneDegrees`), or `defaultValue`.
    static func elasticDeadZone(_ args: CommandLineArguments, default defaultValue: Double?) throws -> Double? {
        guard let text = args.value("elastic-dead-zone") else { return defaultValue }
        if text == "none" { return nil }
        guard let degrees = Double(text), degrees.isFinite, (0...180).contains(degrees) else {
            throw CommandLineArguments.Failure(
                description: "--elastic-dead-zone: degrees in 0...180, or none, got \"\(text)\"")
        }
        return degrees
    }

    /// Checks `ping`'s and `send`'s `--timeout`: seconds, above 0 and up to an hour.
    static func checkTimeout(_ timeout: Double) throws {
        guard timeout > 0, timeout <= 3600 else {
            throw CommandLineArguments.Failure(
                description: "--timeout: seconds, above 0 and up to 3,600, got \(timeout)")
        }
    }

    static func printError(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }

    /// The command line of a command whose flags are `flags` and whose options that take a value are `known`, with
    /// at most `positional` arguments that are not options (nil: any number). One more is refused, naming it: before
    /// session 82 `eval --dataset DIR extra` ran, the `extra` passed over.
    static func parse(_ arguments: [String], flags: Set<String>, known: Set<String>, positional: Int? = 0) throws
        -> CommandLineArguments
    {
        let parsed = try CommandLineArguments(
            arguments.map { $0 == "-o" ? "--output" : $0 }, flagNames: flags.union(["help"]), known: known,
            environment: ProcessInfo.processInfo.environment)
        if let positional, parsed.positional.count > positional, !parsed.flag("help") {
            throw CommandLineArguments.Failure(
                description: "unexpected argument \(parsed.positional[positional].quotedForDisplay)"
                    + (positional == 0 ? " (options only: each begins with --)" : ""))
        }
        return parsed
    }
}
