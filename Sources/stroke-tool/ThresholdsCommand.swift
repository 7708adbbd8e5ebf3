import Foundation
import StrokeRecognition
import StrokeWorker

/// `stroke-tool thresholds`: what raising or lowering one gesture's threshold trades, gesture by gesture.
enum ThresholdsCommand {
    static let usage = """
        USAGE: stroke-tool thresholds (--dataset DIR | --strokes FILE [--library FILE|default]) [options]

        What each gesture's own threshold (`stroke-tool library threshold`) trades: for each gesture and
        threshold, the share of its strokes still recognized, and how many strokes of gestures the library
        lacks it takes; then the whole library with every gesture at each threshold, and with its gestures' own.
        Strokes are matched as a worker matches them, once among all gestures and once with their own left out
        (a gesture the game does not know).
          --dataset DIR    $1-format logs: each subject's strokes against a library of 8 medoids per gesture
                           built from the other subjects (as `robustness`)
          --strokes FILE   strokes of your own players, named, one stroke each (as `recognize` reads them),
                           against --library; strokes of a name the library lacks are tested as unknown only.
                           Strokes the library was built from score higher than new players' will

        OPTIONS
          --library FILE|default   with --strokes: the library (default: the built-in one); its gestures' own
                                   thresholds are the last row's
          --thresholds LIST        thresholds to report, in 0...1 (default: the library's, 0.65, 0.7, 0.75)
          --minimum-score S        the threshold of the gestures without one of their own in the last row
                                   (default: the library's; the built-in library's 0.6 with --dataset)
          --neighbors K            how many of a gesture's nearest templates its score stands for (default:
                                   the library's; the built-in library's 3 with --dataset)
          --gesture NAME=S         a gesture's own threshold for the last row (repeatable)
          --checkmark-config FILE  the checkmark detector's tuning (default: the built-in one)
          --json                   print exactly one JSON object
        """

    static func run(_ arguments: [String]) throws -> Int32 {
        let args = try StrokeTool.parse(
            arguments, flags: ["json"],
            known: [
                "dataset", "strokes", "library", "thresholds", "minimum-score", "gesture", "checkmark-config",
                "neighbors",
            ])
        if args.flag("help") {
            print(usage)
            return 0
        }
        let thresholds = try args.values("thresholds").map { try StrokeTool.score($0, option: "--thresholds") }
        let asked = try StrokeTool.gestureScores(args, option: "gesture")
        var own = asked
        let checkmark = try StrokeTool.checkmarkConfiguration(args)
        let subjects: [(samples: [DollarLog], library: TemplateLibrary)]
        let minimumScore: Double
        let heading: String
        switch (args.value("dataset"), args.value("strokes")) {
        case (let dataset?, nil):
            guard args.value("library") == nil else {
                throw CommandLineArguments.Failure(
                    description: "--library goes with --strokes; --dataset builds its own")
            }
            let builtIn = try TemplateLibrary.builtIn()
            minimumScore = try StrokeTool.minimumScore(args, default: builtIn.minimumScore)
            let neighbors = try StrokeTool.neighbors(args, default: builtIn.neighbors)
            let samples = try DollarLog.loadDataset(dataset)
            subjects = try StrokeTool.leftOutLibraries(
                samples, dataset: dataset, minimumScore: minimumScore, neighbors: neighbors)
            heading = "\(samples.count) strokes of \(subjects.count) subjects, each left out of its library"
        case (nil, let path?):
            var library = try LibraryCommand.load(args.value("library") ?? "default")
            minimumScore = try StrokeTool.minimumScore(args, default: library.minimumScore)
            library.neighbors = try StrokeTool.neighbors(args, default: library.neighbors)
            own = library.gestureMinimumScores.merging(own) { $1 }
            subjects = [(try strokes(path), library)]
            heading = "\(subjects[0].samples.count) strokes of \(path) against the library \(library.name)"
        default:
            throw CommandLineArguments.Failure(description: "give one of --dataset DIR and --strokes FILE\n\n\(usage)")
        }
        // A gesture the library lacks would leave the last row as if its threshold were not given.
        try StrokeTool.checkGestures(
            asked.keys.sorted(), option: "--gesture", in: subjects[0].library,
            called: args.value("dataset") != nil ? "the library each subject is left out of" : nil)
        let trial = try ThresholdTrial(subjects: subjects, checkmark: checkmark)
        let report = trial.report(
            thresholds: thresholds.isEmpty
                ? [minimumScore] + [0.65, 0.7, 0.75].filter { $0 > minimumScore } : thresholds)
        let given = own.isEmpty ? nil : trial.overall(minimumScore: minimumScore, gestureMinimumScores: own)
        if args.flag("json") {
            try StrokeTool.printJSON(Output(report: report, given: given))
        } else {
            printTable(report, heading: heading, given: given)
        }
        return 0
    }

    /// The strokes of a STROKES.json file, each named and of one stroke, as logs of one subject.
    static func strokes(_ path: String) throws -> [DollarLog] {
        try RecognizeCommand.Stroke.read(path).enumerated().map { index, stroke in
            guard let name = stroke.name else {
                throw CommandLineArguments.Failure(
                    description: "--strokes \(path): stroke \(index) has no \"name\": a stroke is tested as its gesture"
                )
            }
            guard stroke.strokeStarts.isEmpty else {
                throw CommandLineArguments.Failure(
                    description: "--strokes \(path): stroke \(index) has several strokes; thresholds tests single ones")
            }
            return DollarLog(gesture: name, subject: "strokes", speed: "", points: stroke.points)
        }
    }

    /// The `--json` object: the report, and the library with the thresholds of --gesture when given.
    struct Output: Encodable {
        var report: GestureThresholdReport
        var given: GestureThresholdReport.Overall?
    }

    /// The report as a table: each gesture at each threshold, then the whole library.
    static func printTable(_ report: GestureThresholdReport, heading: String, given: GestureThresholdReport.Overall?) {
        func percent(_ value: Double) -> String { String(format: "%6.2f%%", value * 100) }
        let columns = report.thresholds.map { String(format: "%.2f", $0) }
        print(heading)
        print("recognized (share of the gesture's strokes) | unknown strokes taken (of \(report.strokes))")
        print(
            "gesture".padding(toLength: 18, withPad: " ", startingAt: 0)
                + columns.map { "   " + $0 }.joined() + "  |" + columns.map { "  " + $0 }.joined())
        for gesture in report.gestures {
            print(
                gesture.name.padding(toLength: 18, withPad: " ", startingAt: 0)
                    + gesture.recognized.map { " " + percent($0) }.joined() + "  |"
                    + gesture.unknownTaken.map { String(format: "%6d", $0) }.joined())
        }
        print("\nthe library              recognized  unknown turned away")
        let rows = report.uniform.map { (String(format: "all at %.2f", $0.minimumScore), $0) }
        for (label, row) in rows + (given.map { [("as given", $0)] } ?? []) {
            print(
                "  " + label.padding(toLength: 22, withPad: " ", startingAt: 0) + percent(row.recognizedShare)
                    + "   " + percent(row.unknownTurnedAwayShare))
        }
    }
}
