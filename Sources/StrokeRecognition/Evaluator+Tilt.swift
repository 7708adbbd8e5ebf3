/// What following a player's tilt (`TiltEstimate`) does for the checkmark detector and the match: each subject's
/// strokes, tilted alike, played in a seeded order as one session's, as drawn, with the detector following the
/// tilt, and with the detector and the match following it.
public struct TiltReport: Sendable, Codable, Hashable {
    /// One tilt, with the detector judging strokes as drawn or turned back by the session's estimate.
    public struct Row: Sendable, Codable, Hashable {
        /// The tilt given to every stroke, in degrees (`StrokePerturbation.rotateDegrees`).
        public var tilt: Double
        /// Whether the detector judged each stroke turned by the session's estimate.
        public var tracking: Bool
        /// Whether the library, too, matched each stroke turned by the estimate (`tracking` is then true).
        public var matching: Bool
        /// Strokes matched with their own gesture.
        public var accuracy: Double
        /// The same over each session's first `TiltReport.firstStrokes` strokes, before (or while) its matches show
        /// its tilt.
        public var firstStrokesAccuracy: Double
        /// The checks on which the detector fired.
        public var checksFired: Double
        /// The v's on which it fired.
        public var vsFired: Double
        /// The other strokes but checks on which it fired.
        public var othersFired: Double
        /// The median distance, in degrees, between the estimate in use for a stroke and the tilt, over the strokes
        /// after each session's first `TiltEstimate.minimumSamples` matches.
        public var medianEstimateError: Double
    }

    /// One row per tilt, as drawn and with tracking.
    public var rows: [Row]

    /// How many of a session's first strokes `Row.firstStrokesAccuracy` counts.
    public static let firstStrokes = 5
}

extension Evaluator {
    /// Plays each subject's strokes, all tilted by each of `tilts`, in an order drawn from `seed`, as one session
    /// against that subject's library: the detector judges each stroke as drawn, or turned by the estimate its
    /// earlier matches give, and the library matches it as drawn, or turned alike (the worker's
    /// `--match-follow-tilt`, its match's rotation then given as drawn); the match follows the detector's verdict,
    /// as the worker's does. With `givenTilt`, each session's estimate starts from the tilt (within
    /// `TiltEstimate.largest`, rounded), as a session given its player's tilt does (`options` with `tilt`).
    public static func tiltTracking(
        subjects: [(samples: [DollarLog], library: TemplateLibrary)], tilts: [Double],
        recognizerConfiguration: RecognizerConfiguration = .default,
        checkmarkConfiguration: CheckmarkConfiguration = .default, seed: UInt64 = 1, givenTilt: Bool = false
    ) throws(RecognitionError) -> TiltReport {
        var rows = [TiltReport.Row]()
        let recognizers = try subjects.map { subject throws(RecognitionError) in
            try Recognizer(library: subject.library, configuration: recognizerConfiguration)
        }
        for tilt in tilts {
            for (tracking, matching) in [(false, false), (true, false), (true, true)] {
                var counts = (right: 0, all: 0, checks: 0, checksFired: 0, vs: 0, vsFired: 0, others: 0, othersFired: 0)
                var first = (right: 0, all: 0)
                var errors = [Double]()
                for (index, subject) in subjects.enumerated() {
                    var generator = SeededGenerator(seed: seed &+ UInt64(index))
                    var turn = StrokePerturbation()
                    turn.rotateDegrees = tilt
                    var estimate = TiltEstimate()
                    if givenTilt && tracking {
                        let degrees = max(-TiltEstimate.largest, min(TiltEstimate.largest, tilt)).rounded()
                        estimate = TiltEstimate(degrees: Int8(degrees), samples: TiltEstimate.warmUp)
                    }
                    let recognizer = recognizers[index]
                    for (position, sample) in subject.samples.shuffled(using: &generator).enumerated() {
                        var points = turn.apply(to: sample.points, using: &generator)
                        // Turned back for the detector and the library alike.
                        let applied = matching ? Double(estimate.correction) : 0
                        if applied != 0 {
                            var back = StrokePerturbation()
                            back.rotateDegrees = applied
                            points = back.apply(to: points, using: &generator)
                        }
                        if estimate.samples >= TiltEstimate.minimumSamples {
                            errors.append(abs(Double(estimate.degrees) - tilt))
                        }
                        var detector = CheckmarkDetector(
                            configuration: checkmarkConfiguration,
                            turnedBy: tracking && !matching ? Double(estimate.correction) : 0)
                        let fired = detector.add(contentsOf: points) != nil
                        var result = try recognizer.recognize(points)
                        result.turnRotations(by: -applied)
                        if !detector.timesLookLikeSeconds {
                            result = result.applyingCheckmark(
                                fired: fired, configuration: recognizerConfiguration,
                                threshold: recognizer.threshold(for:))
                        }
                        if let match = result.match, match.showsTilt { estimate.observe(match.rotation) }
                        counts.all += 1
                        if result.match?.name == sample.gesture { counts.right += 1 }
                        if position < TiltReport.firstStrokes {
                            first.all += 1
                            if result.match?.name == sample.gesture { first.right += 1 }
                        }
                        switch sample.gesture {
                        case recognizerConfiguration.checkmarkGesture:
                            counts.checks += 1
                            if fired { counts.checksFired += 1 }
                        default:
                            counts.others += 1
                            if fired { counts.othersFired += 1 }
                            if sample.gesture == "v" {
                                counts.vs += 1
                                if fired { counts.vsFired += 1 }
                            }
                        }
                    }
                }
                func share(_ part: Int, _ whole: Int) -> Double { whole == 0 ? 0 : Double(part) / Double(whole) }
                errors.sort()
                rows.append(
                    .init(
                        tilt: tilt, tracking: tracking, matching: matching, accuracy: share(counts.right, counts.all),
                        firstStrokesAccuracy: share(first.right, first.all),
                        checksFired: share(counts.checksFired, counts.checks),
                        vsFired: share(counts.vsFired, counts.vs),
                        othersFired: share(counts.othersFired, counts.others),
                        medianEstimateError: errors.isEmpty ? 0 : errors[errors.count / 2]))
            }
        }
        return TiltReport(rows: rows)
    }
}
