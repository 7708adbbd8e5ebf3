// MARK: - Gestures' own thresholds

/// What each gesture's threshold trades (`ThresholdTrial.report`): the share of the gesture's strokes still
/// recognized, and how many strokes of gestures the library lacks it takes, at each threshold; and the whole
/// library's figures, at each threshold for all and with the gestures' own thresholds asked for.
public struct GestureThresholdReport: Sendable, Codable, Hashable {
    /// One gesture's figures, a value for each threshold in the order asked.
    public struct Gesture: Sendable, Codable, Hashable {
        /// The gesture.
        public var name: String
        /// Its strokes tested.
        public var strokes: Int
        /// The share of its strokes matched as it, with every gesture at the threshold.
        public var recognized: [Double]
        /// How many strokes of other gestures, each with its own gesture left out of the library (as if the
        /// player drew a gesture the game does not know), it was the match of.
        public var unknownTaken: [Int]
    }

    /// The whole library's figures under one set of thresholds.
    public struct Overall: Sendable, Codable, Hashable {
        /// The threshold of every gesture without one of its own.
        public var minimumScore: Double
        /// The gestures' own thresholds.
        public var gestureMinimumScores: [String: Double]
        /// Strokes tested as unknown: all of them.
        public var strokes: Int
        /// Strokes tested as known: those of the library's gestures.
        public var known: Int
        /// How many strokes were matched as their gesture.
        public var recognized: Int
        /// How many strokes, each with its own gesture left out, no gesture took.
        public var unknownTurnedAway: Int

        /// Creates the figures.
        public init(
            minimumScore: Double, gestureMinimumScores: [String: Double] = [:], strokes: Int = 0, known: Int = 0,
            recognized: Int = 0, unknownTurnedAway: Int = 0
        ) {
            self.minimumScore = minimumScore
            self.gestureMinimumScores = gestureMinimumScores
            self.strokes = strokes
            self.known = known
            self.recognized = recognized
            self.unknownTurnedAway = unknownTurnedAway
        }

        /// `recognized` as a share of `known`.
        public var recognizedShare: Double { Double(recognized) / Double(max(known, 1)) }
        /// `unknownTurnedAway` as a share of `strokes`.
        public var unknownTurnedAwayShare: Double { Double(unknownTurnedAway) / Double(max(strokes, 1)) }
    }

    /// The thresholds, in the order asked.
    public var thresholds: [Double]
    /// Strokes tested (each once as known, where the library has its gesture, and once as unknown).
    public var strokes: Int
    /// Each of the library's gestures' figures, by name.
    public var gestures: [Gesture]
    /// The library's figures with every gesture at each threshold.
    public var uniform: [Overall]
}

/// Strokes recognized by libraries that left their subjects out, once among all gestures and once with each
/// stroke's own left out (a gesture the game does not know), kept so that they can be judged at any thresholds:
/// the measurements behind a gesture's own threshold (`TemplateLibrary.gestureMinimumScores`). A stroke of a
/// gesture its library lacks is tested as unknown only.
public struct ThresholdTrial: Sendable {
    /// A stroke's candidates as known and as unknown, and the checkmark detector's verdict where it applies.
    struct Answer: Sendable {
        var gesture: String
        var known: RecognitionResult
        var unknown: RecognitionResult
        var fired: Bool?
        /// Whether the library has the stroke's gesture.
        var inLibrary: Bool
    }

    var answers: [Answer]
    let configuration: RecognizerConfiguration

    /// Recognizes each subject's strokes with its library (thresholds set aside), as the worker matches them: with
    /// the checkmark detector (tuned by `checkmark`) deciding between close candidates.
    public init(
        subjects: [(samples: [DollarLog], library: TemplateLibrary)],
        configuration: RecognizerConfiguration = .default, checkmark: CheckmarkConfiguration = .default
    ) throws(RecognitionError) {
        self.configuration = configuration
        answers = []
        var detector = CheckmarkDetector(configuration: checkmark)
        for (samples, library) in subjects {
            var open = library
            open.minimumScore = 0
            open.gestureMinimumScores = [:]
            let recognizer = try Recognizer(library: open, configuration: configuration)
            let names = open.gestureNames
            for sample in samples {
                detector.reset()
                let fired = detector.add(contentsOf: sample.points) != nil
                let positions = sample.points.map(\.position)
                let (known, unknown) = try positions.withUnsafeBufferPointer { (points) throws(RecognitionError) in
                    try recognizer.withPreparedStroke(points: points) { stroke in
                        (
                            recognizer.recognize(stroke, among: nil),
                            recognizer.recognize(stroke, among: names.filter { $0 != sample.gesture })
                        )
                    }
                }
                answers.append(
                    Answer(
                        gesture: sample.gesture, known: known, unknown: unknown,
                        fired: detector.timesLookLikeSeconds ? nil : fired,
                        inLibrary: names.contains(sample.gesture)))
            }
        }
    }

    /// Strokes tested.
    public var strokes: Int { answers.count }

    /// The match of a result under `threshold`, as the worker answers.
    private func match(_ result: RecognitionResult, fired: Bool?, threshold: (String) -> Double) -> String? {
        guard let best = result.candidates.first, best.score >= threshold(best.name) else { return nil }
        guard let fired else { return best.name }
        return RecognitionResult(match: best, candidates: result.candidates)
            .applyingCheckmark(fired: fired, configuration: configuration, threshold: threshold).match?.name
    }

    /// The library's figures with `gestureMinimumScores`, and `minimumScore` for the other gestures.
    public func overall(minimumScore: Double, gestureMinimumScores: [String: Double] = [:])
        -> GestureThresholdReport.Overall
    {
        var result = GestureThresholdReport.Overall(
            minimumScore: minimumScore, gestureMinimumScores: gestureMinimumScores, strokes: answers.count,
            known: answers.count { $0.inLibrary })
        let threshold = { (name: String) in gestureMinimumScores[name] ?? minimumScore }
        for answer in answers {
            result.recognized +=
                match(answer.known, fired: answer.fired, threshold: threshold) == answer.gesture ? 1 : 0
            result.unknownTurnedAway += match(answer.unknown, fired: answer.fired, threshold: threshold) == nil ? 1 : 0
        }
        return result
    }

    /// Each gesture's figures, and the library's, with every gesture at each of `thresholds`.
    public func report(thresholds: [Double]) -> GestureThresholdReport {
        let names = Set(answers.filter(\.inLibrary).map(\.gesture)).sorted()
        var strokes = [String: Int]()
        for answer in answers { strokes[answer.gesture, default: 0] += 1 }
        var recognized = [String: [Int]]()
        var taken = [String: [Int]]()
        let zeros = [Int](repeating: 0, count: thresholds.count)
        var uniform = [GestureThresholdReport.Overall]()
        for (index, score) in thresholds.enumerated() {
            var overall = GestureThresholdReport.Overall(
                minimumScore: score, strokes: answers.count, known: answers.count { $0.inLibrary })
            for answer in answers {
                if match(answer.known, fired: answer.fired, threshold: { _ in score }) == answer.gesture {
                    recognized[answer.gesture, default: zeros][index] += 1
                    overall.recognized += 1
                }
                if let other = match(answer.unknown, fired: answer.fired, threshold: { _ in score }) {
                    taken[other, default: zeros][index] += 1
                } else {
                    overall.unknownTurnedAway += 1
                }
            }
            uniform.append(overall)
        }
        return GestureThresholdReport(
            thresholds: thresholds, strokes: answers.count,
            gestures: names.map { name in
                let count = strokes[name] ?? 0
                return .init(
                    name: name, strokes: count,
                    recognized: (recognized[name] ?? zeros).map { Double($0) / Double(max(count, 1)) },
                    unknownTaken: taken[name] ?? zeros)
            },
            uniform: uniform)
    }
}
