import Foundation
import StrokeRecognition
import StrokeWorker

/// `stroke-tool multistroke`: what templates of several strokes achieve.
enum MultistrokeCommand {
    static let usage = """
        USAGE: stroke-tool multistroke --dataset DIR [options]

        What templates of several strokes (Protocol/template-library.md, version 2) achieve on $1-format logs,
        whose strokes were each drawn in one piece: every stroke is cut at its K − 1 sharpest corners, as if the
        pen had been lifted there. For each subject, a library of 8 medoids per gesture built from the other
        subjects and cut the same way; the subject's strokes are matched with their pieces joined end to start
        (as the worker joins a session's strokes, Protocol/README.md §4.2):
          drawn      in the order and directions drawn
          any        in a random order, each piece either way
          unexpanded the same, against the templates kept whole (one order, one direction)
          mixed      a library of both kinds: x, arrow, rectangle and triangle cut (their strokes in any order),
                     the other gestures whole (drawn whole)

        OPTIONS
          --dataset DIR   the logs (required)
          --strokes LIST  pieces per stroke, K, 2 to 4 (default 2,3)
          --neighbors K   how many of a gesture's nearest templates its score stands for, a template of
                          several paths counting once (default: the built-in library's, 3)
          --seed S        random seed (default 1)
          --json          print exactly one JSON object
        """

    static func run(_ arguments: [String]) throws -> Int32 {
        let args = try StrokeTool.parse(arguments, flags: ["json"], known: ["dataset", "strokes", "seed", "neighbors"])
        if args.flag("help") {
            print(usage)
            return 0
        }
        let counts = try StrokeTool.counts(
            args, "strokes", defaults: [2, 3], range: 2...GestureTemplate.maximumStrokes)
        let neighbors = try StrokeTool.neighbors(args, default: try TemplateLibrary.builtIn().neighbors)
        let reports = try StrokeTool.reports(args, usage: usage, counts: counts) {
            (samples, count, seed) throws(RecognitionError) in
            try Evaluator.multistroke(samples: samples, strokesPerGesture: count, neighbors: neighbors, seed: seed)
        }
        if args.flag("json") {
            try StrokeTool.printJSON(["rows": reports])
            return 0
        }
        let percent = StrokeTool.percent
        for report in reports {
            print(
                "K=\(report.strokesPerGesture): drawn order \(percent(report.drawnOrder)), any order "
                    + "\(percent(report.anyOrder)), any order without expansion "
                    + "\(percent(report.anyOrderWithoutExpansion)) of \(report.tested) strokes; "
                    + "\(report.compiledTemplates) templates compiled, "
                    + String(format: "%.1f µs per recognition", report.microsecondsPerRecognition))
            print(
                "  library of both kinds: cut gestures \(percent(report.mixedCut)), whole gestures "
                    + "\(percent(report.mixedWhole)) (\(percent(report.mixedWholeUncut)) with nothing cut)")
            print("  weakest in any order: " + StrokeTool.weakest(report.anyOrderByGesture))
        }
        return 0
    }
}
