import StrokeWorker

// MARK: - The options each action reads

extension LibraryCommand {
    /// The options each action reads. Any other given is refused, naming it: before session 81 each action passed
    /// over the others' without a word (`library list default --json` printed text, `library remove FILE --gesture
    /// x --dataset …` removed every x).
    static let optionsOf: [String: Set<String>] = {
        let settings: Set<String> = ["stroke-direction", "minimum-score", "elastic-dead-zone", "neighbors"]
        return [
            "build": settings.union([
                "dataset", "subjects", "gesture", "output", "orientation", "name", "per-gesture", "all", "seed",
            ]),
            "add": settings.union([
                "dataset", "subjects", "gesture", "strokes", "library", "orientation", "name", "stroke-order",
            ]),
            "remove": ["gesture", "index"], "list": [], "check": ["margin", "json"],
            "threshold": ["gesture", "minimum-score"], "export-default": settings.union(["output", "name"]),
        ]
    }()

    /// Refuses an argument past those `action` takes (its FILE, or none where it writes `-o FILE`), naming it:
    /// before session 82 `library export-default -o FILE extra` wrote the file and passed `extra` over. An unknown
    /// action is left to `run`.
    static func checkArguments(_ args: CommandLineArguments, of action: String) throws {
        let takes = ["build": 1, "export-default": 1][action] ?? 2
        guard optionsOf[action] != nil, args.positional.count > takes else { return }
        throw CommandLineArguments.Failure(
            description: "library \(action) takes \(takes == 1 ? "no FILE but -o FILE" : "one FILE"); "
                + "unexpected argument \(args.positional[takes].quotedForDisplay)")
    }

    /// Refuses an option `action` does not read, naming it and the options the action takes; an unknown action is
    /// left to `run`.
    static func checkOptions(_ args: CommandLineArguments, of action: String) throws {
        guard let options = optionsOf[action], let stray = args.givenNames.subtracting(options).sorted().first else {
            return
        }
        func spelled(_ option: String) -> String { option == "output" ? "-o" : "--\(option)" }
        let takes = options.isEmpty ? "no options" : options.sorted().map(spelled).joined(separator: ", ")
        throw CommandLineArguments.Failure(
            description: "library \(action) does not take \(spelled(stray)) (it takes \(takes))")
    }
}
