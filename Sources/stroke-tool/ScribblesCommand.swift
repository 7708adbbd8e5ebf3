import Foundation
import StrokeRecognition
import StrokeWorker

/// `stroke-tool scribbles`: how often a library turns away strokes that are no gesture.
enum ScribblesCommand {
    static let usage = """
        USAGE: stroke-tool scribbles [options]

        How a library answers strokes that are no gesture: random curves through 3 to 7 points and random
        wanderings, drawn at a steady speed and sampled at 125 Hz (seeded: the same strokes for a seed). Each is
        matched as a worker matches a stroke. Reports the share turned away (a nomatch) at the library's
        threshold and at the others asked for, by kind of scribble, what the rest were taken for, and how often
        the checkmark detector fired on them. Needs no dataset: with `stroke-tool eval` or `robustness` on
        strokes of your own gestures, it shows what a threshold (`library build --minimum-score`) trades.

        OPTIONS
          --library FILE|default   the template library (default: the built-in one)
          --count N                scribbles (default 2000)
          --seed S                 seeds them (default 1)
          --thresholds LIST        other thresholds to report, in 0...1 (default 0.5,0.55,0.6,0.65,0.7)
          --checkmark-config FILE  the checkmark detector's tuning (default: the built-in one)
          --json                   print exactly one JSON object
        """

    static func run(_ arguments: [String]) throws -> Int32 {
        let args = try StrokeTool.parse(
            arguments, flags: ["json"], known: ["library", "count", "seed", "thresholds", "checkmark-config"])
        if args.flag("help") {
            print(usage)
            return 0
        }
        let count: Int = try args.parsed("count", default: 2000)
        guard (1...1_000_000).contains(count) else {
            throw CommandLineArguments.Failure(description: "--count: not a count from 1 to 1000000: \(count)")
        }
        let thresholds = try args.values("thresholds").map { try StrokeTool.score($0, option: "--thresholds") }
        let report = try Evaluator.scribbles(
            library: try LibraryCommand.load(args.value("library") ?? "default"), count: count,
            seed: try args.parsed("seed", default: 1),
            thresholds: thresholds.isEmpty ? [0.5, 0.55, 0.6, 0.65, 0.7] : thresholds,
            checkmark: try StrokeTool.checkmarkConfiguration(args))
        if args.flag("json") {
            try StrokeTool.printJSON(report)
            return 0
        }
        let percent = StrokeTool.percent
        print(
            "\(report.tested) scribbles: \(percent(report.turnedAway)) turned away at the library's threshold "
                + String(format: "%.2f", report.minimumScore))
        print(
            "  by kind: "
                + report.turnedAwayByKind.sorted { $0.key < $1.key }.map { "\($0.key) \(percent($0.value))" }
                .joined(separator: ", "))
        print(
            "  at other thresholds: "
                + report.thresholds.map { String(format: "%.2f", $0.minimumScore) + " " + percent($0.turnedAway) }
                .joined(separator: ", "))
        let taken = report.takenFor.sorted { ($1.value, $0.key) < ($0.value, $1.key) }
        print(
            "  taken for: "
                + (taken.isEmpty ? "nothing" : taken.map { "\($0.key) \($0.value)" }.joined(separator: ", ")))
        print("  checkmark detector fired on \(percent(report.checkmarkFired))")
        return 0
    }
}
