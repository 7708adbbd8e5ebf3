import Foundation
import StrokeRecognition
import StrokeWorker

/// `stroke-tool eval`.
enum EvalCommand {
    static let usage = """
        USAGE: stroke-tool eval --dataset DIR [options]

        Reads $1-format XML logs laid out as DIR/sNN/{slow,medium,fast}/<gesture>NN.xml.

        OPTIONS
          --dataset DIR                 the logs (required)
          --protocol P                  user-dependent (default) or user-independent
          --templates-per-gesture E     user-dependent: templates per gesture (default 1)
          --trials T                    user-dependent: repetitions (default 10)
          --library FILE|default        user-independent: the library to test (default: the built-in one)
          --subjects s01,s02            only these subjects' samples (default: all)
          --seed S                      random seed (default 1)
          --shortlist K                 templates re-ranked by the elastic matcher, 0 = plain Protractor (default 8)
          --shortlist-divisor D         large libraries re-rank templates/D (default 8)
          --points N                    resampled points (default 32)
          --band B                      elastic matcher band (default 4)
          --tangent-weight W            elastic tangent weight (default 1.0)
          --checkmark-margin M          a check the detector fired on is the match within M of the best
                                        score, and a best check it did not fire on yields to a runner-up
                                        that close, as in the worker (default 0.04; 0: the matcher alone)
          --orientation O               user-dependent libraries: sensitive (default) or invariant
          --max-rotation DEG            user-dependent libraries: rotation bound (default 30)
          --elastic-dead-zone DEG|none  user-dependent libraries: strokes turned past DEG from a template
                                        are compared with it as if drawn upright (default none: as drawn;
                                        `stroke-tool library build` gives 10)
          --neighbors K                 user-dependent libraries: how many of a gesture's nearest templates its
                                        score stands for (default 1, the nearest alone)
          --stroke-direction D          drawn (default: as the library says) or any: templates match either
                                        way round too (--perturb reverse=1 draws the strokes backward)
          --checkmark-config FILE       the checkmark detector's tuning: a JSON object with any of the
                                        fields of CheckmarkConfiguration (the rest keep their defaults)
          --perturb SPEC                change every tested stroke (never the templates), as other hands and
                                        devices would, in this order: reverse=1 (drawn backward: the last
                                        point first), ease=G (time fraction u → u^G), rate=HZ (resampled in
                                        time), rotate=DEG (clockwise), shear=F (x += F·y), aspect=F (width ÷
                                        height), jitter=F (noise, a fraction of the stroke's diagonal, drawn
                                        from --seed), quantize=Q (coordinates rounded to Q), stamp=K (runs
                                        of K samples carry their last one's time, as a producer that stamps
                                        a message's points with one time sends them); comma-separated.
                                        `stroke-tool robustness` runs a sweep
          --among K                     recognize each stroke among K of the library's gestures only: its
                                        own and K − 1 others drawn from --seed, as a session that chooses
                                        the gestures it expects (default 0: among all)
          --among-others K              recognize each stroke among K gestures that are not its own, drawn
                                        from --seed, as a session that chose gestures the player did not
                                        draw: right when no chosen gesture answers it
          --choice-margin M             how far above the best chosen match a gesture outside the choice
                                        must score to answer not_chosen (default 0.05, as the worker's;
                                        inf: only where no chosen gesture matched)
          --json                        print exactly one JSON object
        """

    static func run(_ arguments: [String]) throws -> Int32 {
        let args = try StrokeTool.parse(
            arguments, flags: ["json"],
            known: [
                "shortlist-divisor", "dataset", "protocol", "templates-per-gesture", "trials", "library", "subjects",
                "seed", "shortlist",
                "points", "band", "tangent-weight", "orientation", "max-rotation", "checkmark-config", "perturb",
                "elastic-dead-zone", "neighbors",
                "checkmark-margin", "among", "among-others", "choice-margin", "stroke-direction",
            ])
        if let ignored = ElasticMatcher.KernelBuild.requestIgnored { StrokeTool.printError("stroke-tool: \(ignored)") }
        if args.flag("help") {
            print(usage)
            return 0
        }
        guard let dataset = args.value("dataset") else {
            throw CommandLineArguments.Failure(description: "--dataset DIR is required\n\n\(usage)")
        }
        let configuration = try recognizerConfiguration(args)
        let checkmark = try StrokeTool.checkmarkConfiguration(args)
        var libraryTemplate = TemplateLibrary(name: "evaluation")
        if let orientation = args.value("orientation") {
            guard let parsed = TemplateLibrary.Orientation(rawValue: orientation) else {
                throw CommandLineArguments.Failure(description: "--orientation: sensitive or invariant")
            }
            libraryTemplate.orientation = parsed
        }
        libraryTemplate.maxRotationDegrees = try maxRotation(args)
        libraryTemplate.neighbors = try StrokeTool.neighbors(args, default: 1)
        libraryTemplate.elasticDeadZoneDegrees = try StrokeTool.elasticDeadZone(args, default: nil)
        let direction = args.value("stroke-direction") == nil ? nil : try StrokeTool.strokeDirection(args)
        if let direction { libraryTemplate.strokeDirection = direction }
        libraryTemplate.minimumScore = 0
        // Every option is checked before the data set is read, so that a mistyped one is told at once.
        let perturbation = try StrokePerturbation(parsing: args.value("perturb") ?? "")
        let seed: UInt64 = try args.parsed("seed", default: 1)
        let choice = try gestureChoice(args)
        let protocolRun = try evaluation(args, direction: direction)
        let samples = try StrokeTool.bySubjects(try DollarLog.loadDataset(dataset), args)
        try checkChoice(choice, protocolRun, samples: samples)
        var evaluator = Evaluator(
            samples: samples, recognizerConfiguration: configuration, checkmarkConfiguration: checkmark,
            libraryTemplate: libraryTemplate)
        evaluator.perturbation = perturbation
        evaluator.perturbationSeed = seed
        evaluator.choiceSeed = seed
        evaluator.chosenGestures = choice.count
        evaluator.choiceIncludesOwn = choice.includesOwn
        let report: EvaluationReport
        switch protocolRun {
        case .userDependent(let perGesture, let trials):
            report = try evaluator.userDependent(templatesPerGesture: perGesture, trials: trials, seed: seed)
        case .userIndependent(let library):
            report = try evaluator.userIndependent(library: library)
        }
        if args.flag("json") {
            try StrokeTool.printJSON(report)
        } else {
            printText(report, samples: samples.count)
        }
        return 0
    }

    static func printText(_ report: EvaluationReport, samples: Int) {
        let percent = StrokeTool.percent
        print("protocol: \(report.protocolName), \(samples) samples, \(report.tests) recognitions")
        print("accuracy: \(percent(report.accuracy))")
        print("per gesture:")
        for (name, accuracy) in report.perGesture.sorted(by: { $0.key < $1.key }) {
            print("  \(name.padding(toLength: 20, withPad: " ", startingAt: 0)) \(percent(accuracy))")
        }
        if !report.confusions.isEmpty {
            print("most frequent confusions:")
            for confusion in report.confusions {
                print("  \(confusion.expected) → \(confusion.actual): \(confusion.count)")
            }
        }
        let check = report.checkmark
        print(
            "checkmark: true positives \(percent(check.truePositiveRate)) of \(check.checkSamples), "
                + "false positives \(percent(check.falsePositiveRate)) of \(check.otherSamples), "
                + "median lead \(String(format: "%.3f", check.medianLeadFraction))")
        if !check.falsePositivesByGesture.isEmpty {
            let list = check.falsePositivesByGesture.sorted { $0.value > $1.value }.map { "\($0.key) \($0.value)" }
            print("  false positives by gesture: \(list.joined(separator: ", "))")
        }
        print(
            String(
                format: "time: %.2f µs per recognition (%.0f templates on average, ", report.microsecondsPerRecognition,
                report.templatesPerRecognition) + "\(ElasticMatcher.KernelBuild.current.rawValue) kernels)")
    }
}
