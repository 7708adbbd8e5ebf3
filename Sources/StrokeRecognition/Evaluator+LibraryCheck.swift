// MARK: - Checking a library's gestures against each other

/// How well a library's gestures stand apart: each template recognized by the rest of the library, as a stroke
/// drawn like it would be (`Evaluator.check(library:)`).
///
/// A template its own gesture's other templates do not win is a stroke of that gesture that the worker would answer
/// with another gesture; one they win by little is a gesture whose strokes will now and then be taken for another.
public struct LibraryCheckReport: Sendable, Codable, Hashable {
    /// What the rest of the library makes of one template.
    public enum Verdict: String, Sendable, Codable, Hashable, CaseIterable {
        /// Its gesture's other templates win by at least the margin, at the library's threshold or above.
        case clear
        /// Another gesture scores at least as high as its own, at the library's threshold or above: a stroke like
        /// it is answered with that gesture.
        case confused
        /// Its gesture's other templates score under the library's threshold, and no other gesture reaches it
        /// with a higher score: a stroke like it is a `nomatch`.
        case belowThreshold = "below_threshold"
        /// Its gesture's other templates win, by less than the margin: strokes like it will sometimes be taken for
        /// the nearest other gesture.
        case close
        /// The only template of its gesture, so nothing else can speak for it; `nearest` says how near another
        /// gesture comes (at or above the threshold, a stroke like it drawn a little off may be taken for that).
        case onlyTemplate = "only_template"
    }

    /// One template's verdict.
    public struct Template: Sendable, Codable, Hashable {
        /// Its gesture.
        public var gesture: String
        /// Its position among its gesture's templates (as `stroke-tool library remove --index` counts).
        public var index: Int
        /// The best score of its gesture's other templates; nil for the only template of its gesture.
        public var ownScore: Double?
        /// The best other gesture and its score, if the library has another.
        public var nearest: String?
        /// `nearest`'s score.
        public var nearestScore: Double?
        /// What the rest of the library makes of it.
        public var verdict: Verdict
    }

    /// Two gestures that some template of the first was confused with, or close to, the second.
    public struct Pair: Sendable, Codable, Hashable {
        /// The gesture of the templates.
        public var gesture: String
        /// The gesture they were taken for, or came close to.
        public var nearest: String
        /// How many of `gesture`'s templates were taken for `nearest`.
        public var confused: Int
        /// How many came within the margin.
        public var close: Int
        /// The smallest lead of `gesture`'s own score over `nearest`'s among those templates (negative when
        /// `nearest` won).
        public var smallestLead: Double
    }

    /// The library's threshold (`minimumScore`).
    public var minimumScore: Double
    /// The lead under which a template is `close`.
    public var margin: Double
    /// Templates checked.
    public var templates: Int
    /// How many templates got each verdict, by its raw value.
    public var verdicts: [String: Int]
    /// The templates that are not `clear`, in the library's order.
    public var findings: [Template]
    /// The pairs of gestures behind the `confused` and `close` findings, the worst first.
    public var pairs: [Pair]

    /// Whether a stroke drawn like one of the templates would be answered with another gesture or with no match:
    /// some template is `confused` or `belowThreshold`.
    public var failed: Bool { findings.contains { $0.verdict == .confused || $0.verdict == .belowThreshold } }
}

extension Evaluator {
    /// Recognizes each template of `library` by the library without it (leave one out), as the worker would
    /// recognize a stroke drawn exactly like it, and says which gestures stand apart and which do not.
    ///
    /// The checkmark detector's verdict plays no part (templates hold no times). A template's own gesture is
    /// built into a recognizer without it, so the check takes about the template count times the build of one
    /// gesture's templates.
    ///
    /// - Parameter margin: the lead of a template's own gesture under which it is `close`. Default: the
    ///   configuration's `choiceMargin` (0.05), the lead the worker asks of a gesture outside a session's choice.
    /// - Throws: `RecognitionError` `.invalidConfiguration` for a negative or non-finite margin, or what building a
    ///   recognizer or recognizing a template throws.
    public static func check(
        library: TemplateLibrary, margin: Double? = nil, configuration: RecognizerConfiguration = .default
    ) throws(RecognitionError) -> LibraryCheckReport {
        let margin = margin ?? configuration.choiceMargin
        guard margin.isFinite, margin >= 0 else {
            throw RecognitionError(.invalidConfiguration, "library check: the margin must be 0 or more, not \(margin)")
        }
        let names = library.gestureNames
        let counts = Dictionary(uniqueKeysWithValues: library.gestureCounts.map { ($0.name, $0.count) })
        // The other gestures' best comes from the whole library (the template's own gesture is not among them);
        // its own gesture's from the gesture's other templates, with the whole library's shortlist size (its
        // paths: templates of several strokes, or drawn either way round, count more than once).
        let whole = try Recognizer(library: library, configuration: configuration)
        var alone = configuration
        alone.shortlist = max(
            configuration.shortlist,
            min(whole.templateCount / max(configuration.shortlistDivisor, 1), configuration.shortlistLimit))
        var gestureLibraries = [String: TemplateLibrary]()
        var positions = [String: Int]()
        var verdicts = [String: Int]()
        var findings = [LibraryCheckReport.Template]()
        for template in library.templates {
            let index = positions[template.name, default: 0]
            positions[template.name] = index + 1
            func best(by recognizer: Recognizer, among gestures: [String]?) throws(RecognitionError)
                -> RecognitionResult.Candidate?
            {
                try template.points.withUnsafeBufferPointer { (points) throws(RecognitionError) in
                    try template.strokeStarts.withUnsafeBufferPointer { (starts) throws(RecognitionError) in
                        try recognizer.recognize(points: points, strokeStarts: starts, among: gestures)
                    }
                }.candidates.first
            }
            var own: Double?
            if counts[template.name, default: 0] > 1 {
                var rest = gestureLibraries[template.name] ?? library.only(template.name)
                gestureLibraries[template.name] = rest
                try rest.remove(named: template.name, at: index)
                own = try best(by: try Recognizer(library: rest, configuration: alone), among: nil)?.score
            }
            let others = names.filter { $0 != template.name }
            let nearest = others.isEmpty ? nil : try best(by: whole, among: others)
            // Each gesture's match must reach its own threshold, where it has one.
            let verdict = Self.verdict(
                own: own, alone: counts[template.name] == 1, nearest: nearest?.score,
                minimumScore: library.threshold(for: template.name),
                nearestMinimumScore: nearest.map { library.threshold(for: $0.name) }, margin: margin)
            verdicts[verdict.rawValue, default: 0] += 1
            if verdict != .clear {
                findings.append(
                    LibraryCheckReport.Template(
                        gesture: template.name, index: index, ownScore: own, nearest: nearest?.name,
                        nearestScore: nearest?.score, verdict: verdict))
            }
        }
        return LibraryCheckReport(
            minimumScore: library.minimumScore, margin: margin, templates: library.templates.count,
            verdicts: verdicts, findings: findings, pairs: pairs(of: findings))
    }

    /// A template's verdict from its own gesture's best score and the best other gesture's, each held to its
    /// threshold (`minimumScore` the template's gesture's; `nearestMinimumScore` the other's, the same when nil).
    static func verdict(
        own: Double?, alone: Bool, nearest: Double?, minimumScore: Double, nearestMinimumScore: Double? = nil,
        margin: Double
    ) -> LibraryCheckReport.Verdict {
        if alone { return .onlyTemplate }
        let own = own ?? 0
        // The other gesture scores best: the match, or no match under its threshold.
        if let nearest, nearest >= own {
            return nearest >= nearestMinimumScore ?? minimumScore ? .confused : .belowThreshold
        }
        if own < minimumScore { return .belowThreshold }
        if let nearest, own - nearest < margin { return .close }
        return .clear
    }

    /// The gesture pairs behind `confused` and `close` findings, the most confused first, then the closest.
    private static func pairs(of findings: [LibraryCheckReport.Template]) -> [LibraryCheckReport.Pair] {
        var pairs = [String: LibraryCheckReport.Pair]()
        for finding in findings where finding.verdict == .confused || finding.verdict == .close {
            guard let nearest = finding.nearest, let nearestScore = finding.nearestScore else { continue }
            let key = finding.gesture + "\u{0}" + nearest
            var pair =
                pairs[key]
                ?? LibraryCheckReport.Pair(
                    gesture: finding.gesture, nearest: nearest, confused: 0, close: 0, smallestLead: .infinity)
            if finding.verdict == .confused { pair.confused += 1 } else { pair.close += 1 }
            pair.smallestLead = min(pair.smallestLead, (finding.ownScore ?? 0) - nearestScore)
            pairs[key] = pair
        }
        return pairs.values.sorted {
            ($1.confused, $0.smallestLead, $0.gesture, $0.nearest) < (
                $0.confused, $1.smallestLead, $1.gesture, $1.nearest
            )
        }
    }
}

extension TemplateLibrary {
    /// The library with the templates of the gesture `name` only, its settings kept.
    fileprivate func only(_ name: String) -> TemplateLibrary {
        var library = self
        for other in gestureNames where other != name { library.removeAll(named: other) }
        return library
    }
}
