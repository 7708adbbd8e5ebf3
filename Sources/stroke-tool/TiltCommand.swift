import Foundation
import StrokeRecognition
import StrokeWorker

/// `stroke-tool tilt`: the checkmark detector on a tilted player's strokes, as drawn and turned back by the tilt
/// their matches show.
enum TiltCommand {
    static let usage = """
        USAGE: stroke-tool tilt --dataset DIR [options]

        The checkmark detector knows upright checks, and an orientation-sensitive library upright gestures. A
        player whose hand is tilted draws every stroke turned alike, and each match says by how much (its
        rotation): a session can follow that tilt and judge its strokes turned back upright. For each tilt,
        every subject's strokes, turned by it, are played in a seeded order as one session against the built-in
        library's recipe on the other subjects (as `stroke-tool robustness`): as drawn ("as drawn"), with the
        detector following the tilt ("detector", the worker's --checkmark-follow-tilt alone), and with the
        detector and the library following it ("both", with --match-follow-tilt); the match follows the
        detector's verdict. Printed: accuracy (over all strokes, and over each session's first 5), the checks and the v's and the other strokes the detector fired
        on, and how far the estimate was from the tilt (median, after a session's first two matches).

        With --multistroke K, the gestures people draw in pieces (x, arrow, rectangle, triangle) come cut into K
        strokes in a random order and directions, against a library of both kinds built from the other subjects
        (as `stroke-tool multistroke`'s mixed library, with the built-in library's threshold), as one session that groups strokes: matched as drawn
        ("as drawn") and turned back by the estimate ("follows"), which only the other gestures, drawn whole,
        feed. Printed: the accuracy of the cut gestures and of the whole ones, and the estimate's distance. No
        checkmark detector runs.

        OPTIONS
          --dataset DIR            the logs (required)
          --tilts LIST             degrees, comma-separated (default: -45,-30,-20,-10,0,10,20,30,45)
          --checkmark-config FILE  the checkmark detector's tuning (default: the built-in one)
          --seed S                 seeds each session's order (default 1)
          --multistroke K          gestures drawn in K pieces, 2 to 4, as above
          --given-tilt             each session's estimate starts from the tilt, as a session given its
                                   player's tilt (`options` with `tilt`) does
          --json                   print exactly one JSON object
        """

    static func run(_ arguments: [String]) throws -> Int32 {
        let args = try StrokeTool.parse(
            arguments, flags: ["json", "given-tilt"],
            known: ["dataset", "tilts", "checkmark-config", "seed", "multistroke"])
        if args.flag("help") {
            print(usage)
            return 0
        }
        guard let dataset = args.value("dataset") else {
            throw CommandLineArguments.Failure(description: "--dataset DIR is required\n\n\(usage)")
        }
        let tilts = try (args.value("tilts") ?? "-45,-30,-20,-10,0,10,20,30,45").split(separator: ",").map { text in
            guard let value = Double(text.trimmingCharacters(in: .whitespaces)), value.isFinite, abs(value) <= 180
            else {
                throw CommandLineArguments.Failure(description: "--tilts: \"\(text)\" is not an angle in -180...180")
            }
            return value
        }
        // Every option is checked before the data set is read, so that a mistyped one is told at once.
        let seed: UInt64 = try args.parsed("seed", default: 1)
        let pieces = args.value("multistroke") == nil ? nil : try multistrokePieces(args)
        let checkmark = try StrokeTool.checkmarkConfiguration(args)
        let samples = try DollarLog.loadDataset(dataset)
        if let pieces {
            return try runMultistroke(args, samples: samples, tilts: tilts, pieces: pieces, seed: seed)
        }
        let builtIn = try TemplateLibrary.builtIn()
        let subjects = try StrokeTool.leftOutLibraries(
            samples, dataset: dataset, minimumScore: builtIn.minimumScore, neighbors: builtIn.neighbors)
        let report = try Evaluator.tiltTracking(
            subjects: subjects, tilts: tilts, checkmarkConfiguration: checkmark, seed: seed,
            givenTilt: args.flag("given-tilt"))
        if args.flag("json") {
            try StrokeTool.printJSON(report)
        } else {
            func percent(_ value: Double) -> String { String(format: "%7.2f%%", value * 100) }
            print("\(samples.count) strokes of \(subjects.count) subjects, each subject one session")
            print(
                "  tilt  follows    accuracy  first \(TiltReport.firstStrokes)   checks      v's   others  estimate off by"
            )
            for row in report.rows {
                print(
                    String(format: "%6.1f  ", row.tilt)
                        + (row.matching ? "both    " : row.tracking ? "detector" : "as drawn") + " "
                        + percent(row.accuracy) + " " + percent(row.firstStrokesAccuracy) + " "
                        + percent(row.checksFired) + " " + percent(row.vsFired) + " "
                        + percent(row.othersFired) + String(format: "  %.1f°", row.medianEstimateError))
            }
        }
        return 0
    }

    /// `--multistroke K`: the number of strokes each gesture is cut into.
    private static func multistrokePieces(_ args: CommandLineArguments) throws -> Int {
        let counts = try StrokeTool.counts(
            args, "multistroke", defaults: [2], range: 2...GestureTemplate.maximumStrokes)
        guard counts.count == 1, let pieces = counts.first else {
            throw CommandLineArguments.Failure(description: "--multistroke takes one count of pieces")
        }
        return pieces
    }

    /// `--multistroke K`: the cut gestures and the whole ones, as drawn and following the tilt.
    private static func runMultistroke(
        _ args: CommandLineArguments, samples: [DollarLog], tilts: [Double], pieces: Int, seed: UInt64
    ) throws -> Int32 {
        let builtIn = try TemplateLibrary.builtIn()
        let report = try Evaluator.multistrokeTilt(
            samples: samples, tilts: tilts, strokesPerGesture: pieces, neighbors: builtIn.neighbors,
            minimumScore: builtIn.minimumScore, seed: seed)
        if args.flag("json") {
            try StrokeTool.printJSON(report)
            return 0
        }
        func percent(_ value: Double) -> String { String(format: "%7.2f%%", value * 100) }
        print(
            "\(report.cutTested) gestures cut into \(pieces) strokes, \(report.wholeTested) drawn whole, "
                + "each subject one session")
        print("  tilt  matched       cut    whole  estimate off by")
        for row in report.rows {
            print(
                String(format: "%6.1f  ", row.tilt) + (row.following ? "follows " : "as drawn") + " "
                    + percent(row.cut) + " " + percent(row.whole) + String(format: "  %.1f°", row.medianEstimateError))
        }
        return 0
    }
}
