/// Evaluates the template matcher and the checkmark detector on recorded strokes.
public struct Evaluator: Sendable {
    /// The samples, e.g. from `DollarLog.loadDataset`.
    public var samples: [DollarLog]
    /// Matcher tuning.
    public var recognizerConfiguration: RecognizerConfiguration
    /// Detector tuning.
    public var checkmarkConfiguration: CheckmarkConfiguration
    /// Options of the libraries built for user-dependent runs (orientation, rotation bound, threshold).
    public var libraryTemplate: TemplateLibrary
    /// A change made to every tested stroke, never to the templates. Default: none.
    public var perturbation = StrokePerturbation()
    /// Seeds the perturbation's jitter; each stroke draws its own from it and its points. Default: `1`.
    public var perturbationSeed: UInt64 = 1
    /// When above 0, each stroke is recognized among that many of the library's gestures only: its own and others
    /// drawn at random from `choiceSeed`, as a session that chooses the gestures it expects is answered (the
    /// worker's `options` with `gestures`). Default: `0` (among all of them).
    public var chosenGestures = 0
    /// Seeds the draw of `chosenGestures`. Default: `1`.
    public var choiceSeed: UInt64 = 1
    /// Whether the gestures a stroke is recognized among (`chosenGestures`) include its own. Without it, each
    /// stroke is a gesture the session did not choose, and it counts as right when it is not answered with a
    /// chosen one (`RecognizerConfiguration.choiceMargin`). Default: `true`.
    public var choiceIncludesOwn = true

    /// Creates an evaluator.
    public init(
        samples: [DollarLog],
        recognizerConfiguration: RecognizerConfiguration = .default,
        checkmarkConfiguration: CheckmarkConfiguration = .default,
        libraryTemplate: TemplateLibrary = TemplateLibrary(name: "evaluation")
    ) {
        self.samples = samples
        self.recognizerConfiguration = recognizerConfiguration
        self.checkmarkConfiguration = checkmarkConfiguration
        self.libraryTemplate = libraryTemplate
    }

    private struct Tally {
        /// Draws the gestures a stroke is recognized among (`chosenGestures`).
        var chooser: SeededGenerator
        var tests = 0
        var correct = 0
        var perGesture = [String: (correct: Int, total: Int)]()
        var confusions = [String: Int]()
        var elapsed = Duration.zero
        var templates = 0

        /// Counts a recognition of a stroke of `expected` answered with `actual` (a gesture, `(none)`, or
        /// `(not chosen: NAME)`), right when `right` says so (default: when `actual` is `expected`).
        mutating func record(
            expected: String, actual: String, right: Bool? = nil, elapsed: Duration, templates: Int
        ) {
            tests += 1
            self.elapsed += elapsed
            self.templates += templates
            var entry = perGesture[expected, default: (0, 0)]
            entry.total += 1
            if right ?? (actual == expected) {
                correct += 1
                entry.correct += 1
            } else {
                confusions["\(expected)\u{1}\(actual)", default: 0] += 1
            }
            perGesture[expected] = entry
        }
    }

    // MARK: - Protocols

    /// The user-dependent protocol of Wobbrock et al. (2007): per subject and speed, `templatesPerGesture`
    /// random samples of each gesture are the templates and one other random sample of each is tested, `trials`
    /// times.
    ///
    /// - Throws: `.invalidConfiguration` for fewer than 1 template per gesture or trial, or where no subject drew
    ///   any gesture more often than `templatesPerGesture` times at one speed (nothing would be left to test).
    public func userDependent(templatesPerGesture: Int, trials: Int, seed: UInt64) throws(RecognitionError)
        -> EvaluationReport
    {
        guard templatesPerGesture >= 1, trials >= 1 else {
            throw RecognitionError(
                .invalidConfiguration,
                "the user-dependent protocol needs at least 1 template per gesture and 1 trial, got "
                    + "\(templatesPerGesture) and \(trials)")
        }
        var generator = SeededGenerator(seed: seed)
        var tally = Tally(chooser: SeededGenerator(seed: choiceSeed))
        let groups = Dictionary(grouping: samples) { "\($0.subject)/\($0.speed)" }
        for key in groups.keys.sorted() {
            let byGesture = Dictionary(grouping: groups[key]!, by: \.gesture)
            for _ in 0..<trials {
                var library = libraryTemplate
                var tests = [DollarLog]()
                for gesture in byGesture.keys.sorted() {
                    let shuffled = byGesture[gesture]!.shuffled(using: &generator)
                    guard shuffled.count > templatesPerGesture else { continue }
                    library.add(
                        contentsOf: shuffled.prefix(templatesPerGesture).map {
                            GestureTemplate(name: $0.gesture, strokePoints: $0.points)
                        })
                    tests.append(shuffled[templatesPerGesture])
                }
                let recognizer = try Recognizer(library: library, configuration: recognizerConfiguration)
                for test in tests { try run(recognizer, on: test, into: &tally) }
            }
        }
        guard tally.tests > 0 || samples.isEmpty else {
            throw RecognitionError(
                .invalidConfiguration,
                "no gesture was drawn more than \(templatesPerGesture) times by one subject at one speed: with "
                    + "\(templatesPerGesture) templates per gesture, none is left to test")
        }
        return report(tally, protocolName: "user-dependent")
    }

    /// The given library against every sample.
    public func userIndependent(library: TemplateLibrary) throws(RecognitionError) -> EvaluationReport {
        let recognizer = try Recognizer(library: library, configuration: recognizerConfiguration)
        var tally = Tally(chooser: SeededGenerator(seed: choiceSeed))
        for sample in samples { try run(recognizer, on: sample, into: &tally) }
        return report(tally, protocolName: "user-independent")
    }

    private func run(_ recognizer: Recognizer, on sample: DollarLog, into tally: inout Tally) throws(RecognitionError) {
        let points = tested(sample)
        var chosen: [String]?
        if chosenGestures > 0 {
            let others = recognizer.gestureNames.filter { $0 != sample.gesture }.shuffled(using: &tally.chooser)
            chosen =
                choiceIncludesOwn
                ? [sample.gesture] + others.prefix(chosenGestures - 1) : Array(others.prefix(chosenGestures))
        }
        let positions = points.map(\.position)
        // As the worker answers: with the checkmark detector's verdict on the stroke.
        var detector = CheckmarkDetector(configuration: checkmarkConfiguration)
        let fired = detector.add(contentsOf: points) != nil
        let verdict = !detector.timesLookLikeSeconds
        let clock = ContinuousClock()
        let started = clock.now
        let actual = try positions.withUnsafeBufferPointer { (positions) throws(RecognitionError) in
            try recognizer.withPreparedStroke(points: positions) { stroke in
                func recognize(among names: [String]?) -> RecognitionResult {
                    let result = recognizer.recognize(stroke, among: names)
                    guard verdict else { return result }
                    return result.applyingCheckmark(
                        fired: fired, configuration: recognizerConfiguration, threshold: recognizer.threshold(for:))
                }
                let (result, answer, unchosen) = recognizerConfiguration.answer(
                    among: chosen, recognize: recognize(among:), match: { $0.match.map { ($0.name, $0.score) } })
                switch answer {
                case .chosen: return result.match!.name
                case .unchosen: return "(not chosen: \(unchosen!.match!.name))"
                case .none: return "(none)"
                }
            }
        }
        let elapsed = clock.now - started
        let right = chosen == nil || choiceIncludesOwn ? nil : !chosen!.contains(actual)
        tally.record(
            expected: sample.gesture, actual: actual, right: right, elapsed: elapsed,
            templates: recognizer.templateCount)
    }

    // MARK: - Checkmark detector

    /// Replays every sample point by point through the checkmark detector.
    public func checkmarkFigures() -> EvaluationReport.Checkmark {
        var checks = 0
        var hits = 0
        var others = 0
        var falsePositives = [String: Int]()
        var leads = [Double]()
        var detector = CheckmarkDetector(configuration: checkmarkConfiguration)
        for sample in samples {
            detector.reset()
            let points = tested(sample)
            let fired = detector.add(contentsOf: points)
            if sample.gesture == "check" {
                checks += 1
                if let fired, let first = points.first, let last = points.last {
                    hits += 1
                    let duration = last.time - first.time
                    leads.append(duration > 0 ? (last.time - fired.time) / duration : 0)
                }
            } else {
                others += 1
                if fired != nil { falsePositives[sample.gesture, default: 0] += 1 }
            }
        }
        leads.sort()
        let median = leads.isEmpty ? 0 : (leads[(leads.count - 1) / 2] + leads[leads.count / 2]) / 2
        return .init(
            truePositiveRate: checks > 0 ? Double(hits) / Double(checks) : 0,
            falsePositiveRate: others > 0 ? Double(falsePositives.values.reduce(0, +)) / Double(others) : 0,
            medianLeadFraction: median, checkSamples: checks, otherSamples: others,
            falsePositivesByGesture: falsePositives)
    }

    /// The sample's points as tested: with the perturbation, if any, drawn from a generator of its own.
    func tested(_ sample: DollarLog) -> [StrokePoint] {
        guard perturbation != StrokePerturbation() else { return sample.points }
        // Seeded from the stroke itself, so that a stroke gets the same jitter whatever the order of the run.
        var seed = perturbationSeed
        for point in sample.points {
            seed =
                (seed ^ point.x.bitPattern ^ (point.y.bitPattern << 17 | point.y.bitPattern >> 47)
                    ^ point.time.bitPattern)
                &* 0x100_0000_01B3
        }
        var generator = SeededGenerator(seed: seed)
        return perturbation.apply(to: sample.points, using: &generator)
    }

    private func report(_ tally: Tally, protocolName: String) -> EvaluationReport {
        let confusions = tally.confusions.map { key, count in
            let parts = key.split(separator: "\u{1}", omittingEmptySubsequences: false).map(String.init)
            return EvaluationReport.Confusion(expected: parts[0], actual: parts[1], count: count)
        }
        .sorted { ($0.count, $1.expected, $1.actual) > ($1.count, $0.expected, $0.actual) }
        let tests = max(tally.tests, 1)
        let seconds = Double(tally.elapsed.components.seconds) + Double(tally.elapsed.components.attoseconds) * 1e-18
        return EvaluationReport(
            protocolName: protocolName,
            accuracy: Double(tally.correct) / Double(tests),
            tests: tally.tests,
            perGesture: tally.perGesture.mapValues { Double($0.correct) / Double(max($0.total, 1)) },
            confusions: Array(confusions.prefix(10)),
            checkmark: checkmarkFigures(),
            microsecondsPerRecognition: seconds * 1e6 / Double(tests),
            templatesPerRecognition: Double(tally.templates) / Double(tests))
    }
}
