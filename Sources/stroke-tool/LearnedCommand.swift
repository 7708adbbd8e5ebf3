import Foundation
import StrokeRecognition
import StrokeWorker

/// `stroke-tool learned`: what a gesture a session learns achieves.
enum LearnedCommand {
    static let usage = """
        USAGE: stroke-tool learned --dataset DIR [options]

        What a gesture a session learns (an end message with "learn", Protocol/README.md §4.1) achieves on
        $1-format logs. For each subject and each gesture X: a library of 8 medoids per gesture built from the
        other subjects, without X; then, for each speed, E strokes of X by the subject are learned, and the
        subject's other strokes of X at that speed are matched, with one stroke of each other gesture. A stroke
        is matched as the worker matches it: the library and the learned templates together.
          learned   the learned gesture's strokes recognized as it
          others    the library's gestures recognized as themselves, and taken for the learned one

        OPTIONS
          --dataset DIR                 the logs (required)
          --templates-per-gesture LIST  examples learned, E (default 1,3)
          --seed S                      random seed (default 1)
          --json                        print exactly one JSON object
        """

    static func run(_ arguments: [String]) throws -> Int32 {
        let args = try StrokeTool.parse(
            arguments, flags: ["json"], known: ["dataset", "templates-per-gesture", "seed"])
        if args.flag("help") {
            print(usage)
            return 0
        }
        guard let dataset = args.value("dataset") else {
            throw CommandLineArguments.Failure(description: "--dataset DIR is required\n\n\(usage)")
        }
        let counts = try
            (args.values("templates-per-gesture").isEmpty ? ["1", "3"] : args.values("templates-per-gesture"))
            .map { text in
                guard let count = Int(text), count >= 1 else {
                    throw CommandLineArguments.Failure(description: "--templates-per-gesture: not a count: \(text)")
                }
                return count
            }
        let samples = try DollarLog.loadDataset(dataset)
        let seed: UInt64 = try args.parsed("seed", default: 1)
        let reports = try counts.map { count throws(RecognitionError) in
            try Evaluator.learnedGestures(samples: samples, templatesPerGesture: count, seed: seed)
        }
        if args.flag("json") {
            try StrokeTool.printJSON(["rows": reports])
            return 0
        }
        func percent(_ value: Double) -> String { String(format: "%.2f%%", value * 100) }
        for report in reports {
            print(
                "E=\(report.templatesPerGesture): learned gesture recognized \(percent(report.learnedRecognized)) of "
                    + "\(report.learnedTested); the library's gestures \(percent(report.othersRecognized)) of "
                    + "\(report.othersTested), taken for the learned one \(percent(report.othersTakenForLearned))")
            let weakest = report.byGesture.sorted { ($0.value, $0.key) < ($1.value, $1.key) }.prefix(4)
            print("  weakest learned: " + weakest.map { "\($0.key) \(percent($0.value))" }.joined(separator: ", "))
        }
        return 0
    }
}
