import Foundation

// MARK: - A tilted player's gestures of several strokes

/// What following a player's tilt (`TiltEstimate`) does for gestures drawn in several strokes
/// (`Evaluator.multistrokeTilt`): each subject's strokes, tilted alike, in a library of both kinds, as drawn and
/// turned back by the estimate that the session's strokes of one piece give.
public struct MultistrokeTiltReport: Sendable, Codable, Hashable {
    /// One tilt, matched as drawn or turned back by the session's estimate.
    public struct Row: Sendable, Codable, Hashable {
        /// The tilt given to every stroke, in degrees (`StrokePerturbation.rotateDegrees`).
        public var tilt: Double
        /// Whether the library matched each gesture turned back by the session's estimate.
        public var following: Bool
        /// Gestures of several strokes (`Evaluator.mixedGestures`, cut) matched with their own gesture.
        public var cut: Double
        /// Gestures of one stroke (the others, drawn whole) matched with their own gesture.
        public var whole: Double
        /// The median distance, in degrees, between the estimate in use for a gesture and the tilt, over the
        /// gestures after each session's first `TiltEstimate.minimumSamples` matches that tell its tilt.
        public var medianEstimateError: Double
    }

    /// Strokes each gesture of several is drawn in.
    public var strokesPerGesture: Int
    /// Gestures of several strokes tested per row.
    public var cutTested: Int
    /// Gestures of one stroke tested per row.
    public var wholeTested: Int
    /// Two rows per tilt: as drawn, then following.
    public var rows: [Row]
}

extension Evaluator {
    /// Plays each subject's strokes, all tilted by each of `tilts`, in an order drawn from `seed`, as one session
    /// that groups strokes, against a library of both kinds built from the other subjects (as `multistroke`'s
    /// mixed library): the gestures of `mixedGestures` come cut into `strokesPerGesture` pieces in a random order
    /// and directions, the others whole. The library matches each gesture as drawn, or turned back by the estimate
    /// that the session's earlier matches give (the worker's `--match-follow-tilt`): only matches of open shapes
    /// of one stroke feed it (`RecognitionResult.Candidate.showsTilt`), so a gesture of several strokes is turned
    /// by what the player's other gestures showed. Every library's threshold is `minimumScore`, where given. No
    /// checkmark detector runs.
    public static func multistrokeTilt(
        samples: [DollarLog], tilts: [Double], strokesPerGesture: Int = 2, libraryPerGesture: Int = 8,
        neighbors: Int = 1, minimumScore: Double? = nil, seed: UInt64 = 1,
        configuration: RecognizerConfiguration = .default
    ) throws(RecognitionError) -> MultistrokeTiltReport {
        let subjects = try multistrokeSubjects(samples, strokesPerGesture: strokesPerGesture)
        let recognizers = try subjects.map { subject throws(RecognitionError) in
            var whole = try TemplateLibrary.medoids(
                name: "without-\(subject)", samples: samples.filter { $0.subject != subject },
                perGesture: libraryPerGesture, configuration: configuration)
            whole.neighbors = neighbors
            if let minimumScore { whole.minimumScore = minimumScore }
            let cut = cutLibrary(whole, strokesPerGesture: strokesPerGesture)
            return try Recognizer(library: mixedLibrary(whole: whole, cut: cut), configuration: configuration)
        }
        var rows = [MultistrokeTiltReport.Row]()
        var tested = (cut: 0, whole: 0)
        for tilt in tilts {
            for following in [false, true] {
                var hits = (cut: 0, whole: 0)
                tested = (0, 0)
                var errors = [Double]()
                for (index, subject) in subjects.enumerated() {
                    var generator = SeededGenerator(seed: seed &+ UInt64(index))
                    var turn = StrokePerturbation()
                    turn.rotateDegrees = tilt
                    var estimate = TiltEstimate()
                    for sample in samples.filter({ $0.subject == subject }).shuffled(using: &generator) {
                        let points = turn.apply(to: sample.points, using: &generator).map(\.position)
                        let isCut = mixedGestures.contains(sample.gesture)
                        let gesture =
                            isCut
                            ? shuffled(
                                pieces(of: points, count: strokesPerGesture), name: sample.gesture,
                                using: &generator)
                            : GestureTemplate(name: sample.gesture, points: points)
                        if estimate.samples >= TiltEstimate.minimumSamples {
                            errors.append(abs(Double(estimate.degrees) - tilt))
                        }
                        let applied = following ? Double(estimate.correction) : 0
                        let turned =
                            applied == 0
                            ? gesture.points : StrokeGeometry.rotated(gesture.points, by: applied * .pi / 180)
                        var result = try recognizers[index].recognize(
                            points: turned, strokeStarts: gesture.strokeStarts)
                        result.turnRotations(by: -applied)
                        if let match = result.match, match.showsTilt { estimate.observe(match.rotation) }
                        let right = result.match?.name == sample.gesture ? 1 : 0
                        if isCut {
                            hits.cut += right
                            tested.cut += 1
                        } else {
                            hits.whole += right
                            tested.whole += 1
                        }
                    }
                }
                func share(_ part: Int, _ whole: Int) -> Double { whole == 0 ? 0 : Double(part) / Double(whole) }
                errors.sort()
                rows.append(
                    .init(
                        tilt: tilt, following: following, cut: share(hits.cut, tested.cut),
                        whole: share(hits.whole, tested.whole),
                        medianEstimateError: errors.isEmpty ? 0 : errors[errors.count / 2]))
            }
        }
        return MultistrokeTiltReport(
            strokesPerGesture: strokesPerGesture, cutTested: tested.cut, wholeTested: tested.whole, rows: rows)
    }
}
