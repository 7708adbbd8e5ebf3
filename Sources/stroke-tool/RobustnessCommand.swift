import Foundation
import StrokeRecognition
import StrokeWorker

/// `stroke-tool robustness`: the recognizer and the checkmark detector under perturbed strokes.
enum RobustnessCommand {
    static let usage = """
        USAGE: stroke-tool robustness --dataset DIR [options]

        How the recognizer and the checkmark detector hold up when the strokes of $1-format logs are drawn by
        other hands on other devices: tilted, slanted, squashed, shaky, sampled at other rates, in another
        rhythm (`stroke-tool eval --help`, --perturb). For each perturbation of the tested strokes:
          accuracy   leave one subject out: each subject's strokes against a library of 8 medoids per
                     gesture built from the other subjects (unperturbed), as the built-in library is built
          unknown    the same libraries, each stroke against the other gestures only (its own left out, as
                     if the library lacked it): the share turned away (no template reaches the threshold)
          checkmark  true positives over the checks, false positives over the rest, median lead

        OPTIONS
          --dataset DIR            the logs (required)
          --perturbations LIST     perturbations separated by ";" (default: the sweep in docs/Recognition.md:
                                   \(defaultSweep.joined(separator: "; ")))
          --checkmark-config FILE  the checkmark detector's tuning (default: the built-in one)
          --checkmark-margin M     the detector's verdict in the match, as `stroke-tool eval` (default 0.04)
          --stroke-direction D     drawn (default) or any: the libraries match their templates either way
                                   round too (reverse=1 draws the tested strokes the other way)
          --seed S                 seeds the jitter (default 1)
          --minimum-score S        the libraries' threshold (default: the built-in library's)
          --neighbors K            how many of a gesture's nearest templates its score stands for (default:
                                   the built-in library's, 3; 1 scores by the nearest alone)
          --json                   print exactly one JSON object
        """

    /// The default sweep: each change alone at a moderate and a strong setting, then a phone's finger, then a
    /// producer that stamps the points of a message with one time.
    static let defaultSweep = [
        "none", "rotate=10", "rotate=-10", "shear=0.2", "shear=-0.2", "aspect=0.8", "aspect=1.25", "jitter=0.005",
        "jitter=0.01", "jitter=0.02", "rate=30", "rate=60", "rate=120", "rate=240", "ease=0.7", "ease=1.4",
        "rate=120,jitter=0.005,quantize=1", "stamp=4", "stamp=8",
    ]

    /// One perturbation's figures.
    struct Row: Codable {
        var perturbation: String
        var accuracy: Double
        /// The share of strokes turned away where the library lacks their gesture.
        var unknownRejected: Double
        var checkmark: EvaluationReport.Checkmark
    }

    static func run(_ arguments: [String]) throws -> Int32 {
        let args = try StrokeTool.parse(
            arguments, flags: ["json"],
            known: [
                "dataset", "perturbations", "checkmark-config", "checkmark-margin", "seed", "stroke-direction",
                "minimum-score", "neighbors",
            ])
        if args.flag("help") {
            print(usage)
            return 0
        }
        guard let dataset = args.value("dataset") else {
            throw CommandLineArguments.Failure(description: "--dataset DIR is required\n\n\(usage)")
        }
        let perturbations = try (args.value("perturbations")?.split(separator: ";").map(String.init) ?? defaultSweep)
            .map { text throws(RecognitionError) in
                try StrokePerturbation(parsing: text.trimmingCharacters(in: .whitespaces) == "none" ? "" : text)
            }
        // An empty list printed the table's head alone and exited 0 (before session 86).
        guard !perturbations.isEmpty else {
            throw CommandLineArguments.Failure(
                description: "--perturbations: at least one perturbation (\"none\": the strokes as drawn)")
        }
        // Every option is checked before the data set is read, so that a mistyped one is told at once.
        let checkmark = try StrokeTool.checkmarkConfiguration(args)
        var recognizer = RecognizerConfiguration.default
        if let text = args.value("checkmark-margin") {
            recognizer.checkmarkMargin = try WorkerConfiguration.checkmarkMargin(text)
        }
        try recognizer.validate()
        let seed: UInt64 = try args.parsed("seed", default: 1)
        let direction = try StrokeTool.strokeDirection(args)
        let builtIn = try TemplateLibrary.builtIn()
        let minimumScore = try StrokeTool.minimumScore(args, default: builtIn.minimumScore)
        let neighbors = try StrokeTool.neighbors(args, default: builtIn.neighbors)
        let samples = try DollarLog.loadDataset(dataset)
        // Each subject's evaluator, with its library built once from the other subjects.
        let heldOut = try StrokeTool.leftOutLibraries(
            samples, dataset: dataset, minimumScore: minimumScore, neighbors: neighbors, direction: direction
        ).map { subject in
            let evaluator = Evaluator(
                samples: subject.samples, recognizerConfiguration: recognizer, checkmarkConfiguration: checkmark)
            return (evaluator, subject.library)
        }
        var rows = [Row]()
        for perturbation in perturbations {
            var correct = 0.0
            var rejected = 0.0
            for (evaluator, library) in heldOut {
                var evaluator = evaluator
                evaluator.perturbation = perturbation
                evaluator.perturbationSeed = seed
                correct += try evaluator.userIndependent(library: library).accuracy * Double(evaluator.samples.count)
                // Among all the other gestures, as if the library lacked the stroke's own: right when turned away.
                evaluator.chosenGestures = Set(library.templates.map(\.name)).count - 1
                evaluator.choiceIncludesOwn = false
                evaluator.recognizerConfiguration.choiceMargin = .infinity
                rejected += try evaluator.userIndependent(library: library).accuracy * Double(evaluator.samples.count)
            }
            var all = Evaluator(samples: samples, checkmarkConfiguration: checkmark)
            all.perturbation = perturbation
            all.perturbationSeed = seed
            rows.append(
                Row(
                    perturbation: perturbation.description, accuracy: correct / Double(samples.count),
                    unknownRejected: rejected / Double(samples.count), checkmark: all.checkmarkFigures()))
        }
        if args.flag("json") {
            try StrokeTool.printJSON(["rows": rows])
        } else {
            printTable(rows, samples: samples.count, subjects: heldOut.count)
        }
        return 0
    }

    static func printTable(_ rows: [Row], samples: Int, subjects: Int) {
        func percent(_ value: Double) -> String { String(format: "%6.2f%%", value * 100) }
        print("\(samples) strokes of \(subjects) subjects; accuracy with each subject left out of its library")
        print(
            "perturbation                        accuracy  unknown   checks  false pos.  lead   false positives by gesture"
        )
        for row in rows {
            let check = row.checkmark
            let gestures = check.falsePositivesByGesture.sorted { ($0.value, $1.key) > ($1.value, $0.key) }
                .map { "\($0.key) \($0.value)" }.joined(separator: ", ")
            print(
                row.perturbation.padding(toLength: 34, withPad: " ", startingAt: 0) + "  " + percent(row.accuracy)
                    + "  " + percent(row.unknownRejected) + "  " + percent(check.truePositiveRate) + "  "
                    + percent(check.falsePositiveRate)
                    + String(format: "  %.3f  ", check.medianLeadFraction) + gestures)
        }
    }
}
