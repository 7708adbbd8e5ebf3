import StrokeRecognition
import StrokeWorker

// MARK: - The matcher's tuning

extension EvalCommand {
    /// The recognizer's tuning from `--shortlist`, `--points`, `--band`, `--shortlist-divisor`, `--tangent-weight`,
    /// `--checkmark-margin` and `--choice-margin`; a value out of range is refused naming its option.
    static func recognizerConfiguration(_ args: CommandLineArguments) throws -> RecognizerConfiguration {
        var configuration = RecognizerConfiguration.default
        configuration.shortlist = try whole(args, "shortlist", "templates", default: configuration.shortlist, least: 0)
        configuration.pointCount = try args.parsed("points", default: configuration.pointCount)
        let counts = RecognizerConfiguration.pointCounts
        guard counts.contains(configuration.pointCount) else {
            throw CommandLineArguments.Failure(
                description: "--points: a number of points from \(counts.lowerBound) to \(counts.upperBound), got "
                    + "\(configuration.pointCount)")
        }
        configuration.band = try whole(args, "band", "points", default: configuration.band, least: 0)
        configuration.shortlistDivisor = try whole(
            args, "shortlist-divisor", "a divisor", default: configuration.shortlistDivisor, least: 1)
        configuration.tangentWeight = try args.parsed("tangent-weight", default: configuration.tangentWeight)
        guard configuration.tangentWeight.isFinite, configuration.tangentWeight >= 0 else {
            throw CommandLineArguments.Failure(
                description: "--tangent-weight: a weight, 0 or more, got \(configuration.tangentWeight)")
        }
        if let text = args.value("checkmark-margin") {
            configuration.checkmarkMargin = try WorkerConfiguration.checkmarkMargin(text)
        }
        if let text = args.value("choice-margin") {
            configuration.choiceMargin = try WorkerConfiguration.choiceMargin(text)
        }
        try configuration.validate()
        return configuration
    }

    /// `--max-rotation DEG`: the rotation bound of the libraries built, 0 to 180 degrees. Default: `30`.
    static func maxRotation(_ args: CommandLineArguments) throws -> Double {
        let degrees: Double = try args.parsed("max-rotation", default: 30)
        guard degrees.isFinite, (0...180).contains(degrees) else {
            throw CommandLineArguments.Failure(description: "--max-rotation: degrees from 0 to 180, got \(degrees)")
        }
        return degrees
    }

    /// The gestures each stroke is recognized among: `--among K` (its own and K − 1 others) or `--among-others K`
    /// (K that are not its own). Default: all of them (`count` 0).
    static func gestureChoice(_ args: CommandLineArguments) throws -> (count: Int, includesOwn: Bool) {
        let among: Int = try args.parsed("among", default: 0)
        guard among >= 0 else {
            throw CommandLineArguments.Failure(description: "--among: a number of gestures, at least 0, got \(among)")
        }
        guard args.value("among-others") != nil else { return (among, true) }
        guard among == 0 else {
            throw CommandLineArguments.Failure(description: "--among and --among-others: one or the other")
        }
        let others: Int = try args.parsed("among-others", default: 0)
        guard others >= 1 else {
            throw CommandLineArguments.Failure(
                description: "--among-others: a number of gestures, at least 1, got \(others)")
        }
        return (others, false)
    }

    /// Refuses a choice of more gestures than the strokes are recognized among: the library's (user-independent)
    /// or the data set's (user-dependent). Before session 86 `--among 99` among 16 gestures ran as among all of
    /// them, and `--among-others 99` as among the 15 others, without a word.
    static func checkChoice(_ choice: (count: Int, includesOwn: Bool), _ run: Evaluation, samples: [DollarLog]) throws {
        guard choice.count > 0 else { return }
        let gestures: Int
        let holder: String
        switch run {
        case .userDependent:
            gestures = Set(samples.map(\.gesture)).count
            holder = "the strokes tested are of"
        case .userIndependent(let library):
            gestures = library.gestureNames.count
            holder = "the library has"
        }
        let most = choice.includesOwn ? gestures : gestures - 1
        guard choice.count <= most else {
            let option = choice.includesOwn ? "--among" : "--among-others"
            throw CommandLineArguments.Failure(
                description: "\(option) \(choice.count): at most \(most), as \(holder) \(gestures) gestures")
        }
    }

    /// Options only the user-dependent protocol reads: how it builds its libraries from each subject's strokes.
    static let userDependentOptions = [
        "templates-per-gesture", "trials", "orientation", "max-rotation", "elastic-dead-zone", "neighbors",
    ]

    /// What `--protocol` runs, with its options checked: `--templates-per-gesture` and `--trials`, or the library
    /// (`--library`, turned to `--stroke-direction` where given). An option of the other protocol is refused: before
    /// session 87 it was passed over, and `eval --library mine.json` reported the user-dependent protocol's
    /// accuracy, nothing of that library's, with status 0.
    static func evaluation(_ args: CommandLineArguments, direction: TemplateLibrary.StrokeDirection?) throws
        -> Evaluation
    {
        switch args.value("protocol") ?? "user-dependent" {
        case "user-dependent":
            if args.value("library") != nil {
                throw CommandLineArguments.Failure(
                    description: "--library: the library --protocol user-independent tests; the user-dependent "
                        + "protocol (the default) builds its libraries from each subject's own strokes")
            }
            let trials: Int = try args.parsed("trials", default: 10)
            guard (1...100_000).contains(trials) else {
                throw CommandLineArguments.Failure(description: "--trials: a number from 1 to 100000, got \(trials)")
            }
            let perGesture = try whole(args, "templates-per-gesture", "templates", default: 1, least: 1)
            return .userDependent(templatesPerGesture: perGesture, trials: trials)
        case "user-independent":
            if let option = userDependentOptions.first(where: { args.value($0) != nil }) {
                throw CommandLineArguments.Failure(
                    description: "--\(option): the user-dependent protocol's, for the libraries it builds; "
                        + "--protocol user-independent tests the --library as its file sets it")
            }
            var library = try LibraryCommand.load(args.value("library") ?? "default")
            if let direction { library.strokeDirection = direction }
            return .userIndependent(library)
        case let other:
            throw CommandLineArguments.Failure(description: "--protocol \(other): user-dependent or user-independent")
        }
    }

    /// An evaluation protocol and what it needs.
    enum Evaluation {
        /// Templates drawn from each subject's own samples, tested on the rest, `trials` times.
        case userDependent(templatesPerGesture: Int, trials: Int)
        /// One library tested on every sample.
        case userIndependent(TemplateLibrary)
    }

    /// A whole-number option of at least `least` (`what` it counts, for the error).
    private static func whole(
        _ args: CommandLineArguments, _ name: String, _ what: String, default value: Int, least: Int
    ) throws -> Int {
        let parsed: Int = try args.parsed(name, default: value)
        guard parsed >= least else {
            let unit = what.hasPrefix("a ") ? what : "a number of \(what)"
            throw CommandLineArguments.Failure(description: "--\(name): \(unit), at least \(least), got \(parsed)")
        }
        return parsed
    }
}
