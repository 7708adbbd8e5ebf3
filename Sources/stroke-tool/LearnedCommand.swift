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
          --neighbors K                 how many of a gesture's nearest templates its score stands for, in
                                        the library and among the learned (default: the built-in library's, 3)
          --seed S                      random seed (default 1)
          --json                        print exactly one JSON object
        """

    static func run(_ arguments: [String]) throws -> Int32 {
        let args = try StrokeTool.parse(
            arguments, flags: ["json"], known: ["dataset", "templates-per-gesture", "seed", "neighbors"])
        if args.flag("help") {
            print(usage)
            return 0
        }
        let counts = try StrokeTool.counts(args, "templates-per-gesture", defaults: [1, 3], range: 1...Int.max)
        let neighbors = try StrokeTool.neighbors(args, default: try TemplateLibrary.builtIn().neighbors)
        let reports = try StrokeTool.reports(args, usage: usage, counts: counts) {
            (samples, count, seed) throws(RecognitionError) in
            try Evaluator.learnedGestures(
                samples: samples, templatesPerGesture: count, neighbors: neighbors, seed: seed)
        }
        if args.flag("json") {
            try StrokeTool.printJSON(["rows": reports])
            return 0
        }
        let percent = StrokeTool.percent
        for report in reports {
            guard report.learnedTested > 0 else {
                print(
                    "E=\(report.templatesPerGesture): no gesture was drawn more than "
                        + "\(report.templatesPerGesture) times by one subject at one speed: none is left to test")
                continue
            }
            print(
                "E=\(report.templatesPerGesture): learned gesture recognized \(percent(report.learnedRecognized)) of "
                    + "\(report.learnedTested); the library's gestures \(percent(report.othersRecognized)) of "
                    + "\(report.othersTested), taken for the learned one \(percent(report.othersTakenForLearned))")
            print("  weakest learned: " + StrokeTool.weakest(report.byGesture))
        }
        return 0
    }
}
