// MARK: - Scribbles

/// How a library answers strokes that are no gesture (`Scribble`): how many it turns away, at its own threshold
/// and at others, what it takes the rest for, and how often the checkmark detector fires on them
/// (`Evaluator.scribbles`).
public struct ScribbleReport: Sendable, Codable, Hashable {
    /// The share turned away at one threshold.
    public struct Threshold: Sendable, Codable, Hashable {
        /// The score a match would need.
        public var minimumScore: Double
        /// The share of the scribbles whose best candidate scores under it.
        public var turnedAway: Double
    }

    /// Scribbles tested.
    public var tested: Int
    /// The library's threshold.
    public var minimumScore: Double
    /// The share answered with no match, as a worker answers them (the detector's verdict included).
    public var turnedAway: Double
    /// `turnedAway` by kind of scribble (`Scribble.Kind`).
    public var turnedAwayByKind: [String: Double]
    /// The gestures that the others were taken for, and how many each.
    public var takenFor: [String: Int]
    /// The share on which the streaming checkmark detector fired.
    public var checkmarkFired: Double
    /// The share turned away at each threshold asked for, in the order asked.
    public var thresholds: [Threshold]
}

extension Evaluator {
    /// `count` scribbles from `seed` (`Scribble.make`), each matched as the worker matches a stroke: the library,
    /// then the checkmark detector's verdict (tuned by `checkmark`) between close candidates. `thresholds` are
    /// other scores a match might need: for each, the share of scribbles whose best candidate, after the verdict,
    /// scores under it.
    public static func scribbles(
        library: TemplateLibrary, count: Int, seed: UInt64 = 1, thresholds: [Double] = [],
        configuration: RecognizerConfiguration = .default, checkmark: CheckmarkConfiguration = .default
    ) throws(RecognitionError) -> ScribbleReport {
        guard count >= 1 else { throw RecognitionError(.invalidConfiguration, "scribbles: count must be 1 or more") }
        let recognizer = try Recognizer(library: library, configuration: configuration)
        var detector = CheckmarkDetector(configuration: checkmark)
        var turnedAway = 0
        var fired = 0
        var byKind: [String: (turnedAway: Int, tested: Int)] = [:]
        var takenFor: [String: Int] = [:]
        var under = [Int](repeating: 0, count: thresholds.count)
        let scribbles = Scribble.make(count: count, seed: seed)
        for (kind, points) in scribbles {
            detector.reset()
            let detected = detector.add(contentsOf: points) != nil
            if detected { fired += 1 }
            var result = try recognizer.recognize(points)
            if !detector.timesLookLikeSeconds {
                result = result.applyingCheckmark(
                    fired: detected, configuration: configuration, threshold: recognizer.threshold(for:))
            }
            let best = result.candidates.first?.score ?? 0
            for (index, threshold) in thresholds.enumerated() where best < threshold { under[index] += 1 }
            var tally = byKind[kind] ?? (0, 0)
            tally.tested += 1
            if let match = result.match {
                takenFor[match.name, default: 0] += 1
            } else {
                turnedAway += 1
                tally.turnedAway += 1
            }
            byKind[kind] = tally
        }
        let share = { (part: Int) in Double(part) / Double(scribbles.count) }
        return ScribbleReport(
            tested: scribbles.count, minimumScore: recognizer.minimumScore, turnedAway: share(turnedAway),
            turnedAwayByKind: byKind.mapValues { Double($0.turnedAway) / Double($0.tested) }, takenFor: takenFor,
            checkmarkFired: share(fired),
            thresholds: zip(thresholds, under).map { ScribbleReport.Threshold(minimumScore: $0, turnedAway: share($1)) }
        )
    }
}
