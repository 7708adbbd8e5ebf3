import Foundation
import StrokeRecognition
import StrokeWorker

// MARK: - stroke-tool library check

extension LibraryCommand {
    /// The usage of `library check`, part of `usage`.
    static let checkUsage = """
          stroke-tool library check FILE|default [--margin M] [--json]
              Each template recognized by the rest of the library, as a stroke drawn like it would be: which
              gestures stand apart and which a player's strokes will be taken for another. A template is
              confused when another gesture scores at least as high as its own gesture's other templates and
              reaches the library's minimum score, below threshold when neither reaches it first, close when its
              own gesture wins by less than M (default 0.05, the worker's --choice-margin), only template when no
              other template of its gesture can speak for it.
              Exit status 3 when a template is confused or below threshold, 0 otherwise.
        """

    /// `library check FILE|default`: the check's findings as text or, with `--json`, one JSON object; exit status 3
    /// when the check failed.
    static func check(_ args: CommandLineArguments, path: String) throws -> Int32 {
        // A margin past 1 would call every template close.
        let margin = try args.value("margin").map { try StrokeTool.score($0, option: "--margin") }
        let library = try load(path)
        let report = try Evaluator.check(library: library, margin: margin)
        if args.flag("json") {
            try StrokeTool.printJSON(report)
        } else {
            print(text(of: report, library: library))
        }
        return report.failed ? 3 : 0
    }

    /// The report as lines for a person: the tally, each finding, the pairs of gestures behind them, a verdict.
    static func text(of report: LibraryCheckReport, library: TemplateLibrary) -> String {
        let score = { (value: Double?) in value.map { String(format: "%.3f", $0) } ?? "none" }
        var lines = [
            "\(library.name): \(report.templates) templates of \(library.gestureNames.count) gestures, each "
                + "recognized by the rest of the library (minimum score \(score(report.minimumScore))"
                + library.gestureMinimumScores.sorted { $0.key < $1.key }.map { ", \($0.key) \(score($0.value))" }
                .joined() + ", margin \(score(report.margin)))",
            "  "
                + LibraryCheckReport.Verdict.allCases.map { "\($0.rawValue) \(report.verdicts[$0.rawValue] ?? 0)" }
                .joined(separator: ", "),
        ]
        for verdict in LibraryCheckReport.Verdict.allCases where verdict != .clear {
            let findings = report.findings.filter { $0.verdict == verdict }
            guard !findings.isEmpty else { continue }
            lines.append("  \(verdict.rawValue):")
            for finding in findings {
                let nearest =
                    finding.nearest.map { "nearest \($0) \(score(finding.nearestScore))" } ?? "no other gesture"
                let own = finding.ownScore.map { "\(finding.gesture) \(score($0)), " } ?? ""
                let reaches =
                    finding.verdict == .onlyTemplate
                        && (finding.nearestScore ?? 0) >= library.threshold(for: finding.nearest ?? "")
                    ? " (at the threshold or above: add templates)" : ""
                lines.append("    \(finding.gesture)[\(finding.index)]: \(own)\(nearest)\(reaches)")
            }
        }
        if !report.pairs.isEmpty {
            lines.append("  gestures that come close (confused, close, smallest lead of the gesture's own score):")
            for pair in report.pairs {
                lines.append(
                    "    \(pair.gesture) → \(pair.nearest): \(pair.confused), \(pair.close), "
                        + String(format: "%+.3f", pair.smallestLead))
            }
        }
        let failing = report.findings.filter { $0.verdict == .confused || $0.verdict == .belowThreshold }.count
        let (verb, them) = failing == 1 ? ("is", "it") : ("are", "them")
        lines.append(
            report.failed
                ? "check failed: \(String(counting: failing, "template")) \(verb) taken for another gesture, or "
                    + "turned away, by the rest of the library; strokes drawn like \(them) would be too. Add templates "
                    + "drawn like \(them), or make the gestures that come close differ more."
                : "check passed: every template that has others of its gesture is recognized by them")
        return lines.joined(separator: "\n")
    }
}
