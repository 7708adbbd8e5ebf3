import Foundation

/// A template library compiled for matching: a cascade of Protractor and elastic matching.
///
/// Every template is preprocessed once. A stroke is compared with all templates by the closed-form Protractor
/// similarity (rotation bounded in orientation-sensitive libraries); the `shortlist` best are re-ranked by
/// banded dynamic time warping over positions and tangents, after rotating the stroke by the Protractor angle.
/// A `Recognizer` is immutable and `Sendable`: share one across threads.
public struct Recognizer: Sendable {
    /// The compiled library, held by reference: copying a recognizer (per stroke, in the worker) costs one
    /// reference count, not one per array.
    private final class Storage: Sendable {
        let library: TemplateLibrary
        let configuration: RecognizerConfiguration
        /// Each template's gesture as a small integer, so that ranking compares integers, not strings.
        let gestureIDs: [Int32]
        let gestureNames: [String]
        /// The gestures by name, and where their templates lie: for recognitions among some gestures.
        let gestureIndex: GestureIndex
        /// Protractor vectors, eight templates to a group and two groups to a pair: component `k` of templates
        /// `8g…8g+7` is at `(g / 2) × 4N + 2k + g % 2` (`MatchingKernels.protractorSimilarities`; zero in the
        /// unused lanes of the last group).
        let protractorLanes: [ElasticMatcher.Lanes]
        let elastic: [Float]  // templates.count × 4N
        let maxRotation: Float
        /// Which templates are paths drawn the other way round (`TemplateLibrary.StrokeDirection.any`); empty
        /// when none is.
        let drawnBackward: [Bool]
        /// Which templates the elastic stage compares with strokes as drawn whatever the library's dead zone
        /// (`Recognizer.keepsDirection`); empty when none does.
        let asDrawn: [Bool]
        /// Which templates' rotations tell a hand's tilt (`Recognizer.showsTilt`); all false in a rotation-invariant
        /// library.
        let showsTilt: [Bool]
        /// The elastic stage's turn toward each template (`TemplateLibrary.elasticDeadZoneDegrees`).
        let turn: ElasticTurn
        /// The templates that are straight lines (`Recognizer.isLine`), as `Selection.lanes` marks templates; empty
        /// when none is.
        let lines: [UInt8]
        /// What decides how strokes are preprocessed, read without copying `configuration` (and retaining its
        /// strings) for each stroke.
        let preprocessing: Preprocessing
        /// The score a match of each gesture must reach, by gesture id (`TemplateLibrary.threshold(for:)`).
        let minimumScores: [Double]
        /// The library's `minimumScore` and `gestureMinimumScores`, read for each stroke in the worker without
        /// copying the library out (and retaining its fields).
        let minimumScore: Double
        let gestureMinimumScores: [String: Double]
        /// Whether some gesture has a threshold of its own: where none has (most libraries), a stroke's threshold
        /// is the library's, with no lookup.
        let hasGestureThresholds: Bool
        /// Whether some gesture's score stands for more than its nearest template (`gestureNeighbors`): where none's
        /// does, the scored templates go to the candidates' scan as they are.
        let averagesNearest: Bool
        /// The library's template each compiled path comes from, where some template is several paths (a gesture
        /// of several strokes, a stroke either way round), so that a gesture's nearest templates are counted once
        /// each; empty when every template is one path.
        let sources: [Int32]
        /// How many nearest templates each gesture's score stands for, by gesture id: the library's `neighbors`, but
        /// 1 for a gesture of several strokes matched in any order (`TemplateLibrary.neighbors`).
        let gestureNeighbors: [Int32]

        /// `gestureNeighbors` for `library`, whose gestures have the ids of their places in `names`.
        static func gestureNeighbors(of library: TemplateLibrary, names: [String]) -> [Int32] {
            var neighbors = [Int32](repeating: Int32(library.neighbors), count: names.count)
            guard library.neighbors > 1, library.strokeOrder == .any else { return neighbors }
            let several = Set(library.templates.filter { $0.strokeCount > 1 }.map(\.name))
            for (id, name) in names.enumerated() where several.contains(name) { neighbors[id] = 1 }
            return neighbors
        }

        init(
            library: TemplateLibrary, configuration: RecognizerConfiguration, gestureIDs: [Int32],
            gestureNames: [String], protractorLanes: [ElasticMatcher.Lanes], elastic: [Float], maxRotation: Float,
            drawnBackward: [Bool], asDrawn: [Bool], showsTilt: [Bool], lines: [UInt8], sources: [Int32]
        ) {
            self.library = library
            self.configuration = configuration
            self.gestureIDs = gestureIDs
            self.gestureNames = gestureNames
            self.gestureIndex = GestureIndex(
                names: gestureNames, gestureIDs: gestureIDs, laneCount: ElasticMatcher.Lanes.scalarCount)
            self.protractorLanes = protractorLanes
            self.elastic = elastic
            self.maxRotation = maxRotation
            self.drawnBackward = drawnBackward
            self.asDrawn = asDrawn
            self.showsTilt = showsTilt
            self.turn = ElasticTurn(library: library, maxRotation: maxRotation)
            self.lines = lines
            self.preprocessing = Preprocessing(configuration)
            self.minimumScores = gestureNames.map(library.threshold(for:))
            self.minimumScore = library.minimumScore
            self.gestureMinimumScores = library.gestureMinimumScores
            self.hasGestureThresholds = !library.gestureMinimumScores.isEmpty
            self.sources = sources
            self.gestureNeighbors = Self.gestureNeighbors(of: library, names: gestureNames)
            self.averagesNearest = self.gestureNeighbors.contains { $0 > 1 }
        }
    }

    private let storage: Storage

    private init(storage: Storage) { self.storage = storage }

    /// A recognizer of the same compiled library behind a handle of its own, for one more thread.
    ///
    /// Copies of a `Recognizer` share one reference-counted handle. A thread that recognizes strokes retains and
    /// releases it, and two threads doing so pass its cache line back and forth between their cores (about 100 ns
    /// a stroke, measured in the worker's lane). Each thread can hold its own copy instead. The large matching
    /// tables stay shared; the small arrays read for every stroke, and the gesture names, are copied.
    public func independentCopy() -> Recognizer {
        Recognizer(
            storage: Storage(
                library: storage.library, configuration: storage.configuration,
                gestureIDs: storage.gestureIDs.map { $0 },
                gestureNames: storage.gestureNames.map { String(decoding: Array($0.utf8), as: UTF8.self) },
                protractorLanes: storage.protractorLanes, elastic: storage.elastic, maxRotation: storage.maxRotation,
                drawnBackward: storage.drawnBackward, asDrawn: storage.asDrawn, showsTilt: storage.showsTilt,
                lines: storage.lines, sources: storage.sources))
    }

    /// What decides how this recognizer preprocesses a stroke.
    var preprocessing: Preprocessing { storage.preprocessing }

    /// The library this recognizer was compiled from.
    public var library: TemplateLibrary { storage.library }
    /// The matcher's tuning.
    public var configuration: RecognizerConfiguration { storage.configuration }
    /// The library's `minimumScore`, read without copying the library (its name and templates) out.
    public var minimumScore: Double { storage.minimumScore }

    /// The score a match of the gesture `name` must reach (`TemplateLibrary.threshold(for:)`), read without
    /// copying the library out.
    public func threshold(for name: String) -> Double {
        guard storage.hasGestureThresholds else { return storage.minimumScore }
        return storage.gestureMinimumScores[name] ?? storage.minimumScore
    }

    var gestureIDs: [Int32] { storage.gestureIDs }
    /// The gestures' names, by gesture id.
    var gestureNames: [String] { storage.gestureNames }
    var gestureIndex: GestureIndex { storage.gestureIndex }
    var protractorLanes: [ElasticMatcher.Lanes] { storage.protractorLanes }
    var elastic: [Float] { storage.elastic }
    var maxRotation: Float { storage.maxRotation }

    /// Whether the recognizer matches a stroke at any rotation (its library's orientation, or the one a session
    /// chose): turning a stroke before it is recognized then changes nothing but its match's `rotation`.
    public var isOrientationInvariant: Bool { storage.maxRotation >= .pi }
    /// Which templates are compared as drawn whatever the dead zone (`keepsDirection`); empty when none is.
    var asDrawn: [Bool] { storage.asDrawn }
    /// The elastic stage's turn toward each template.
    var elasticTurn: ElasticTurn { storage.turn }
    /// Which templates are straight lines, a bit per template as `Selection.lanes`; empty when none is.
    var lines: [UInt8] { storage.lines }

    /// Compiles `library`.
    ///
    /// - Throws: `RecognitionError` when the configuration is out of range or a template is degenerate.
    public init(library: TemplateLibrary, configuration: RecognizerConfiguration = .default) throws(RecognitionError) {
        try configuration.validate()
        try library.validate(source: library.name)
        // A template of several strokes is matched as every unistroke it could be drawn as, and one whose strokes
        // may go either way as each of them; each template's first path is the one drawn.
        var paths = [GestureTemplate]()
        var drawnBackward = [Bool]()
        var sources = [Int32]()
        for (index, template) in library.templates.enumerated() {
            let variants = template.paths(order: library.strokeOrder, direction: library.strokeDirection)
            paths.append(contentsOf: variants)
            sources.append(contentsOf: repeatElement(Int32(index), count: variants.count))
            if library.strokeDirection == .any {
                let reversed = template.reversesStrokes(order: library.strokeOrder, direction: .any)
                drawnBackward.append(contentsOf: variants.indices.map { reversed && $0 > 0 })
            }
        }
        if sources.count == library.templates.count { sources = [] }
        var asDrawn = paths.map(Self.keepsDirection)
        if !asDrawn.contains(true) { asDrawn = [] }
        let showsTilt = library.orientation == .invariant ? paths.map { _ in false } : paths.map(Self.showsTilt)
        var vectors = [Float]()
        var elastic = [Float]()
        vectors.reserveCapacity(paths.count * configuration.pointCount * 2)
        elastic.reserveCapacity(paths.count * configuration.pointCount * ElasticMatcher.stride)
        for path in paths {
            let features = try ShapeFeatures(
                points: path.points, strokeStarts: path.strokeStarts, configuration: configuration)
            vectors.append(contentsOf: features.vector)
            elastic.append(contentsOf: features.elastic)
        }
        var ids = [String: Int32]()
        var gestureNames = [String]()
        let gestureIDs = paths.map { path in
            let name = path.name
            if let id = ids[name] { return id }
            let id = Int32(gestureNames.count)
            ids[name] = id
            gestureNames.append(name)
            return id
        }
        let n2 = configuration.pointCount * 2
        let lanes = ElasticMatcher.Lanes.scalarCount
        let groups = (paths.count + lanes - 1) / lanes
        var protractorLanes = [ElasticMatcher.Lanes](
            repeating: .zero, count: ElasticMatcher.protractorLayoutCount(groups: groups, length: n2))
        for template in 0..<paths.count {
            let group = template / lanes
            for k in 0..<n2 {
                protractorLanes[(group / 2) * 2 * n2 + 2 * k + group % 2][template % lanes] =
                    vectors[template * n2 + k]
            }
        }
        self.storage = Storage(
            library: library, configuration: configuration, gestureIDs: gestureIDs, gestureNames: gestureNames,
            protractorLanes: protractorLanes, elastic: elastic,
            maxRotation: library.orientation == .invariant
                ? .infinity : Float(library.maxRotationDegrees * .pi / 180),
            drawnBackward: drawnBackward, asDrawn: asDrawn, showsTilt: showsTilt,
            lines: Self.lineLanes(vectors: vectors, pointCount: configuration.pointCount), sources: sources)
    }

    /// Whether a match of a template's path tells how the hand that drew the stroke was tilted
    /// (`RecognitionResult.Candidate.showsTilt`): a shape of one stroke that is neither a line (`keepsDirection`),
    /// whose rotation is the direction it was drawn in, nor closed (its ends less than a fifth of its length apart:
    /// the $1 logs' circles, rectangles, triangles and stars), whose rotation is also where it was begun. On the
    /// logs the mean rotation of one subject's circles was −26.4° in the library built from the others, where
    /// that of any open gesture was within 14.6°.
    static func showsTilt(_ path: GestureTemplate) -> Bool {
        guard path.strokeCount == 1, let (ends, length) = endsAndLength(path) else { return false }
        return ends < lineShare * length && ends >= 0.2 * length
    }

    /// Whether the elastic stage compares strokes with a template's path as drawn, never turned through the
    /// library's dead zone. A line, its ends at least nine tenths of its length apart as a swipe's are (the
    /// built-in gestures' at most 0.77, a check's), tells its direction and nothing else: a swipe 20° off its axis
    /// would otherwise come as close to the neighbouring direction's line, turned 20° toward it. And a path of
    /// several strokes runs through jumps that no hand drew: turning it cost 0.05–0.33 points in `stroke-tool
    /// multistroke` on the $1 logs.
    static func keepsDirection(_ path: GestureTemplate) -> Bool {
        guard path.strokeCount == 1 else { return true }
        guard let (ends, length) = endsAndLength(path) else { return false }
        return ends >= lineShare * length
    }

    /// How far apart the ends of a template's path are, and its length, measured scale-free
    /// (`StrokeGeometry.measurable`), for `showsTilt` and `keepsDirection`; nil for a path of no points.
    private static func endsAndLength(_ path: GestureTemplate) -> (ends: Double, length: Double)? {
        let points = StrokeGeometry.measurable(path.points).points
        guard let first = points.first, let last = points.last else { return nil }
        return (StrokeGeometry.distance(first, last), StrokeGeometry.pathLength(points))
    }

    /// Number of templates compiled: a template of several strokes counts once for each unistroke it could be
    /// drawn as (`GestureTemplate.unistrokes`).
    public var templateCount: Int { gestureIDs.count }

    // MARK: - The result

    /// The result from the scored templates, in shortlist order: the best `topK` distinct gestures, best first,
    /// ties by shortlist order (as a stable sort by distance would give), their names looked up only for them.
    ///
    /// Each candidate is one scan for the lowest distance; its gesture's other entries are then set to infinity,
    /// so the next scan passes them over: `topK` scans in all, no sort. `shortlist[k]` is the template `scored[k]`
    /// scored. Where a gesture's score stands for several templates (`neighbors`), its nearest entry first takes
    /// their mean distance and the others infinity (`Recognizer.averageNearest`).
    func result(_ scored: UnsafeMutableBufferPointer<Scored>, shortlist: UnsafeBufferPointer<Shortlisted>)
        -> RecognitionResult
    {
        if storage.averagesNearest {
            Self.averageNearest(
                scored, sources: storage.sources, shortlist: shortlist, gestureNeighbors: storage.gestureNeighbors)
        }
        var candidates = [RecognitionResult.Candidate]()
        candidates.reserveCapacity(min(configuration.topK, scored.count))
        var first: Int32 = 0  // the best candidate's gesture
        let drawnBackward = storage.drawnBackward
        let showsTilt = storage.showsTilt
        while candidates.count < configuration.topK {
            var best = -1
            var lowest = Float.infinity
            for k in scored.indices where scored[k].distance < lowest {
                best = k
                lowest = scored[k].distance
            }
            guard best >= 0 else { break }
            let gesture = scored[best].gesture
            if candidates.isEmpty { first = gesture }
            for k in scored.indices where scored[k].gesture == gesture { scored[k].distance = .infinity }
            let distance = Double(lowest)
            let template = shortlist[best].index
            let backward = !drawnBackward.isEmpty && drawnBackward[template]
            candidates.append(
                RecognitionResult.Candidate(
                    name: gestureNames[Int(gesture)], score: 1 / (1 + distance), distance: distance,
                    drawnBackward: backward, rotation: rotation(of: shortlist[best]),
                    showsTilt: showsTilt[template]))
        }
        let threshold = storage.hasGestureThresholds ? storage.minimumScores[Int(first)] : storage.minimumScore
        let match = candidates.first.flatMap { $0.score >= threshold ? $0 : nil }
        return RecognitionResult(match: match, candidates: candidates)
    }

    /// The turn from a shortlisted template to the stroke, in degrees (`RecognitionResult.Candidate.rotation`): the
    /// Protractor rotates the stroke onto the template, so the stroke is the template turned the other way. The
    /// angle of `Protractor.alignment`, without the similarity, whose sine and cosine at a bound it does not need.
    func rotation(of entry: Shortlisted) -> Double {
        let turn = min(max(atan2(entry.b, entry.a), -maxRotation), maxRotation)
        let angle = -Double(turn) * 180 / .pi
        // Within ±180 (π in single precision is a little above it), and no -0 on the wire.
        return angle == 0 ? 0 : min(180, max(-180, angle))
    }
}
