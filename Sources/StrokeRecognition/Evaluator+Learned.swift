// MARK: - Learned gestures

/// What a gesture a session learned achieves: how often it is recognized, and how often the library's own
/// gestures are still recognized next to it (`Evaluator.learnedGestures`).
public struct LearnedGestureReport: Sendable, Codable, Hashable {
    /// Examples learned per gesture (E).
    public var templatesPerGesture: Int
    /// The learned gesture's other strokes (same subject and speed) that were recognized as it.
    public var learnedRecognized: Double
    /// Strokes of the library's gestures (one of each per round) recognized as their own gesture.
    public var othersRecognized: Double
    /// Strokes of the library's gestures taken for the learned one.
    public var othersTakenForLearned: Double
    /// `learnedRecognized` by gesture.
    public var byGesture: [String: Double]
    /// Learned-gesture strokes tested, and library-gesture strokes tested.
    public var learnedTested: Int
    /// Library-gesture strokes tested.
    public var othersTested: Int
}

extension Evaluator {
    /// A session's learned gestures on these logs ("draw your own spell"). For each subject and gesture X: a
    /// library of `libraryPerGesture` medoids per gesture built from the other subjects, without X (X is new to
    /// the library); then for each speed, `templatesPerGesture` random strokes of X by the subject are learned,
    /// and the subject's other strokes of X at that speed are tested, with one random stroke of each other
    /// gesture. A stroke is matched as the worker matches it (`RecognitionResult.merged`): the library and the
    /// learned templates together, a learned one winning only with a higher score, and no match under the
    /// library's `minimumScore`, and the checkmark detector (tuned by `checkmark`) deciding between close candidates.
    /// The library's and the learned gestures' scores stand for their `neighbors` nearest templates
    /// (`TemplateLibrary.neighbors`).
    public static func learnedGestures(
        samples: [DollarLog], templatesPerGesture: Int, libraryPerGesture: Int = 8, neighbors: Int = 1,
        seed: UInt64 = 1, configuration: RecognizerConfiguration = .default,
        checkmark: CheckmarkConfiguration = .default
    ) throws(RecognitionError) -> LearnedGestureReport {
        guard templatesPerGesture >= 1 else {
            throw RecognitionError(.invalidConfiguration, "templates per gesture must be 1 or more")
        }
        var generator = SeededGenerator(seed: seed)
        let subjects = Set(samples.map(\.subject)).sorted()
        let gestures = Set(samples.map(\.gesture)).sorted()
        guard subjects.count >= 2 else {
            throw RecognitionError(.invalidConfiguration, "learned gestures need logs of two or more subjects")
        }
        var learnedHits = 0
        var learnedTested = 0
        var othersHits = 0
        var othersTaken = 0
        var othersTested = 0
        var byGesture = [String: (hits: Int, tested: Int)]()
        for subject in subjects {
            var full = try TemplateLibrary.medoids(
                name: "without-\(subject)", samples: samples.filter { $0.subject != subject },
                perGesture: libraryPerGesture, configuration: configuration)
            full.neighbors = neighbors
            let own = samples.filter { $0.subject == subject }
            for gesture in gestures {
                var library = full
                library.removeAll(named: gesture)
                let recognizer = try Recognizer(library: library, configuration: configuration)
                for speed in Set(own.map(\.speed)).sorted() {
                    let strokes = own.filter { $0.speed == speed }
                    var examples = strokes.filter { $0.gesture == gesture }.shuffled(using: &generator)
                    guard examples.count > templatesPerGesture else { continue }
                    var learned = TemplateLibrary(name: "learned")
                    learned.neighbors = neighbors
                    for example in examples.prefix(templatesPerGesture) {
                        learned.add(
                            GestureTemplate(
                                name: "learned",
                                points: StrokeGeometry.resample(
                                    example.points.map(\.position), count: configuration.pointCount)))
                    }
                    examples.removeFirst(templatesPerGesture)
                    let session = try Recognizer(library: learned, configuration: configuration)
                    /// The learned gesture (nil), a library gesture's name, or "" for no match: the first of the
                    /// merged candidates, when it reaches the library's minimum score, with the checkmark
                    /// detector's verdict between close ones (as the worker answers).
                    func answer(_ log: DollarLog) throws(RecognitionError) -> String? {
                        let (fromLibrary, fromLearned) = try log.points.map(\.position).withUnsafeBufferPointer {
                            (points) throws(RecognitionError) in
                            try recognizer.recognize(points: points, alongWith: session)
                        }
                        let merged = RecognitionResult.merged(
                            library: fromLibrary.candidates, learned: fromLearned.candidates, limit: configuration.topK)
                        guard var best = merged.first,
                            best.candidate.score >= library.threshold(for: best.candidate.name)
                        else { return "" }
                        var detector = CheckmarkDetector(configuration: checkmark)
                        let fired = detector.add(contentsOf: log.points) != nil
                        if !detector.timesLookLikeSeconds,
                            let index = configuration.checkmarkChoice(
                                among: merged, fired: fired, threshold: { library.threshold(for: $0.candidate.name) },
                                bestDrawnBackward: best.candidate.drawnBackward, name: { $0.candidate.name },
                                score: { $0.candidate.score })
                        {
                            best = merged[index]
                        }
                        return best.learned ? nil : best.candidate.name
                    }
                    for example in examples {
                        let hit = try answer(example) == nil
                        learnedHits += hit ? 1 : 0
                        learnedTested += 1
                        byGesture[gesture, default: (0, 0)].hits += hit ? 1 : 0
                        byGesture[gesture, default: (0, 0)].tested += 1
                    }
                    for other in gestures where other != gesture {
                        guard let stroke = strokes.filter({ $0.gesture == other }).randomElement(using: &generator)
                        else { continue }
                        let result = try answer(stroke)
                        othersHits += result == other ? 1 : 0
                        othersTaken += result == nil ? 1 : 0
                        othersTested += 1
                    }
                }
            }
        }
        func share(_ part: Int, _ whole: Int) -> Double { whole == 0 ? 0 : Double(part) / Double(whole) }
        return LearnedGestureReport(
            templatesPerGesture: templatesPerGesture, learnedRecognized: share(learnedHits, learnedTested),
            othersRecognized: share(othersHits, othersTested), othersTakenForLearned: share(othersTaken, othersTested),
            byGesture: byGesture.mapValues { share($0.hits, $0.tested) }, learnedTested: learnedTested,
            othersTested: othersTested)
    }
}
