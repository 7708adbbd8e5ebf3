import Foundation
import StrokeRecognition
import StrokeWorker

/// `stroke-tool thresholds`: what raising or lowering one gesture's threshold trades, gesture by gesture.
enum ThresholdsCommand {
    static let usage = """
        USAGE: stroke-tool thresholds --dataset DIR [options]

        What each gesture's own threshold (`stroke-tool library threshold`) trades, on $1-format logs: each
        subject's strokes against a library of 8 medoids per gesture built from the other subjects (as
        `robustness`), matched as a worker matches them, once among all gestures and once with the stroke's
        own left out (a gesture the game does not know). For each gesture and threshold: the share of its
        strokes still recognized, and how many unknown strokes it takes. Then the whole library with every
        gesture at each threshold, and with the thresholds given by --gesture.

        OPTIONS
          --dataset DIR            the logs (required)
          --thresholds LIST        thresholds to report, in 0...1 (default 0.59,0.65,0.7,0.75)
          --minimum-score S        the threshold of the gestures without one of their own in the last row
                                   (default: the built-in library's, 0.59)
          --gesture NAME=S         a gesture's own threshold for the last row (repeatable)
          --checkmark-config FILE  the checkmark detector's tuning (default: the built-in one)
          --json                   print exactly one JSON object
        """

    static func run(_ arguments: [String]) throws -> Int32 {
        let args = try StrokeTool.parse(
            arguments, flags: ["json"],
            known: ["dataset", "thresholds", "minimum-score", "gesture", "checkmark-config"])
        if args.flag("help") {
            print(usage)
            return 0
        }
        guard let dataset = args.value("dataset") else {
            throw CommandLineArguments.Failure(description: "--dataset DIR is required\n\n\(usage)")
        }
        func score(_ text: some StringProtocol, _ option: String) throws -> Double {
            guard let value = Double(text), (0...1).contains(value) else {
                throw CommandLineArguments.Failure(description: "\(option): not a score in 0...1: \(text)")
            }
            return value
        }
        let thresholds = try args.values("thresholds").map { try score($0, "--thresholds") }
        var own = [String: Double]()
        for entry in args.wholeValues("gesture") {
            guard let equals = entry.lastIndex(of: "="), equals != entry.startIndex else {
                throw CommandLineArguments.Failure(description: "--gesture: NAME=S, got \"\(entry)\"")
            }
            own[String(entry[..<equals])] = try score(entry[entry.index(after: equals)...], "--gesture \(entry)")
        }
        let minimumScore = try StrokeTool.minimumScore(args, default: try TemplateLibrary.builtIn().minimumScore)
        let samples = try DollarLog.loadDataset(dataset)
        let subjects = try StrokeTool.leftOutLibraries(samples, dataset: dataset, minimumScore: minimumScore)
        let checkmark = try StrokeTool.checkmarkConfiguration(args)
        let trial = try ThresholdTrial(subjects: subjects, checkmark: checkmark)
        let report = trial.report(thresholds: thresholds.isEmpty ? [0.59, 0.65, 0.7, 0.75] : thresholds)
        let given = own.isEmpty ? nil : trial.overall(minimumScore: minimumScore, gestureMinimumScores: own)
        if args.flag("json") {
            try StrokeTool.printJSON(Output(report: report, given: given))
        } else {
            printTable(report, subjects: subjects.count, given: given)
        }
        return 0
    }

    /// The `--json` object: the report, and the library with the thresholds of --gesture when given.
    struct Output: Encodable {
        var report: GestureThresholdReport
        var given: GestureThresholdReport.Overall?
    }

    /// The report as a table: each gesture at each threshold, then the whole library.
    static func printTable(_ report: GestureThresholdReport, subjects: Int, given: GestureThresholdReport.Overall?) {
        func percent(_ value: Double) -> String { String(format: "%6.2f%%", value * 100) }
        let columns = report.thresholds.map { String(format: "%.2f", $0) }
        print("\(report.strokes) strokes of \(subjects) subjects, each left out of its library")
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
