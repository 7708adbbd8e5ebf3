/// A named set of gesture templates with its matching options.
///
/// Libraries are values: edit them with `add`, `remove` and friends, then compile them into a `Recognizer`.
/// The file format is specified in `Protocol/template-library.md` and read and written by
/// `TemplateLibrary+File.swift`.
public struct TemplateLibrary: Sendable, Hashable {
    /// How a library treats the orientation of strokes.
    public enum Orientation: String, Sendable, Hashable, Codable, CaseIterable {
        /// Any rotation matches: a "v" drawn upside down is still a "v" (and so is a caret).
        case invariant
        /// Rotation is allowed only up to `maxRotationDegrees`, so a "v" is not a caret.
        case sensitive
    }

    /// How a library matches gestures of several strokes.
    public enum StrokeOrder: String, Sendable, Hashable, Codable, CaseIterable {
        /// In every order of their strokes, each either way (`GestureTemplate.unistrokes`): people draw an x or
        /// a plus in any order. A template has at most `GestureTemplate.maximumStrokes` strokes.
        case any
        /// Only in the order and directions the template was drawn in (a player's own gesture, or a game that
        /// teaches stroke order): one path per template, however many strokes.
        case drawn
    }

    /// Which way a template's strokes may be drawn.
    public enum StrokeDirection: String, Sendable, Hashable, Codable, CaseIterable {
        /// As the template was drawn: a circle drawn the other way round is another gesture (the $1 study's
        /// convention, and the default).
        case drawn
        /// Either way: each stroke of a template is matched as drawn and reversed, so that a circle is a circle
        /// whichever way the finger goes round. A template of one stroke costs two to match, one of k strokes
        /// matched in their drawn order 2^k (in any order, `StrokeOrder.any` matches every direction already).
        case any
    }

    /// The library's name, by which sessions select it.
    public var name: String
    /// Whether matching is rotation-invariant or orientation-sensitive. Default: `.sensitive`.
    public var orientation: Orientation
    /// The largest rotation, in degrees, tried in `.sensitive` mode. Default: `30`.
    public var maxRotationDegrees: Double
    /// The lowest score (see `RecognitionResult.Candidate.score`) accepted as a match; below it the result is
    /// "no match". Default: `0.5`.
    public var minimumScore: Double
    /// In `.sensitive` mode, how far (degrees, either way) a stroke may be turned from a shortlisted template and
    /// still be compared with it as drawn by the elastic re-ranking; past it, the stroke is compared turned toward
    /// the template by the rest of their Protractor angle. A hand that tilts its strokes is then matched as if it
    /// drew them upright, while the small turns that tell a v from a check stay. `nil`: always as drawn, for a
    /// library whose gestures differ by direction alone (swipes). Libraries that `medoids` and `condensed` build,
    /// and the built-in one, have `shapeElasticDeadZoneDegrees`; a file without the field reads as `nil`.
    /// Default: `nil`.
    public var elasticDeadZoneDegrees: Double?
    /// How templates of several strokes are matched. Default: `.any`.
    public var strokeOrder: StrokeOrder = .any
    /// Which way the templates' strokes may be drawn. Default: `.drawn`.
    public var strokeDirection: StrokeDirection = .drawn
    /// Gestures with a threshold of their own instead of `minimumScore`, by name: a spell that must be drawn well
    /// in a library whose other gestures need not be, or a hard shape allowed a little less. A match of the gesture,
    /// of the library's templates or of ones a session learned under that name, must reach it. Names the library
    /// has no template of are kept (a session may learn them). Default: `[:]`.
    public var gestureMinimumScores: [String: Double] = [:]
    /// How many of a gesture's nearest templates its score stands for: the mean of their distances from the stroke,
    /// among the templates the elastic stage compares (the shortlist; a template of several paths counts once, by
    /// its nearest), or fewer where fewer of the gesture's are there. 1 scores a gesture by its nearest template
    /// alone (as $1 and Protractor do). A stroke that one template of a gesture happens to fit, and the others do
    /// not, then scores less than one that all of them fit: on the $1 logs, 3 turns away more strokes of gestures
    /// the library lacks at the same share of strokes recognized, and recognizes a few more (docs/Recognition.md,
    /// "A gesture's nearest templates"). A gesture with a template of several strokes, in a library that matches any
    /// stroke order, is scored by its nearest template alone (averaged, such gestures lost accuracy). The built-in
    /// library has 3. At most `maximumNeighbors`. Default: `1`.
    public var neighbors: Int = 1
    /// The templates, in insertion order.
    public private(set) var templates: [GestureTemplate]

    /// The dead zone of libraries of shapes (`elasticDeadZoneDegrees`): measured with `stroke-tool robustness` on
    /// the $1 logs' subjects left out (docs/Recognition.md, "Tilted strokes"), 10° keeps what upright strokes
    /// score (0° costs 0.24 points) and recognizes 99.00–99.29% of strokes tilted by 20° either way, against
    /// 95.08–96.38% compared as drawn.
    public static let shapeElasticDeadZoneDegrees = 10.0

    /// The most templates a gesture's score may stand for (`neighbors`): the elastic stage compares at least 8.
    public static let maximumNeighbors = 8

    /// Creates a library.
    public init(
        name: String,
        orientation: Orientation = .sensitive,
        maxRotationDegrees: Double = 30,
        elasticDeadZoneDegrees: Double? = nil,
        minimumScore: Double = 0.5,
        templates: [GestureTemplate] = []
    ) {
        self.name = name
        self.orientation = orientation
        self.maxRotationDegrees = maxRotationDegrees
        self.elasticDeadZoneDegrees = elasticDeadZoneDegrees
        self.minimumScore = minimumScore
        self.templates = templates
    }

    // MARK: - Editing

    /// Appends a template.
    public mutating func add(_ template: GestureTemplate) {
        templates.append(template)
    }

    /// Appends templates.
    public mutating func add(contentsOf newTemplates: some Sequence<GestureTemplate>) {
        templates.append(contentsOf: newTemplates)
    }

    /// Appends those of `newTemplates` that the library does not hold yet, passing over each that is the same (the
    /// gesture's name, its strokes and their normalized points) as one it holds or as one appended before it;
    /// returns how many were passed over. A template held twice counts twice among a gesture's nearest
    /// (`neighbors`), and otherwise only makes recognition slower: a file of strokes added twice, or a library
    /// added to itself, gains nothing from the second time.
    @discardableResult
    public mutating func addNew(contentsOf newTemplates: some Sequence<GestureTemplate>) -> Int {
        var held = Set(templates)
        var passedOver = 0
        for template in newTemplates {
            if held.insert(template).inserted {
                templates.append(template)
            } else {
                passedOver += 1
            }
        }
        return passedOver
    }

    /// Removes every template of the gesture `name` and returns how many were removed.
    @discardableResult
    public mutating func removeAll(named name: String) -> Int {
        let before = templates.count
        templates.removeAll { $0.name == name }
        return before - templates.count
    }

    /// Removes the template at `index` among those of the gesture `name` (0-based, in insertion order).
    ///
    /// - Throws: `RecognitionError.Code.notFound` when there is no such template.
    public mutating func remove(named name: String, at index: Int) throws(RecognitionError) {
        let positions = templates.indices.filter { templates[$0].name == name }
        guard positions.indices.contains(index) else {
            throw RecognitionError(
                .notFound,
                "gesture \"\(name)\" has \(positions.count) template\(positions.count == 1 ? "" : "s"); "
                    + "no index \(index)"
            )
        }
        templates.remove(at: positions[index])
    }

    // MARK: - Listing

    /// The gesture names with their template counts, sorted by name.
    public var gestureCounts: [(name: String, count: Int)] {
        var counts = [String: Int]()
        for template in templates { counts[template.name, default: 0] += 1 }
        return counts.sorted { $0.key < $1.key }.map { (name: $0.key, count: $0.value) }
    }

    /// The distinct gesture names, sorted.
    public var gestureNames: [String] { gestureCounts.map(\.name) }

    // MARK: - Thresholds

    /// The score a match of the gesture `name` must reach: its own threshold (`gestureMinimumScores`), or the
    /// library's `minimumScore`.
    public func threshold(for name: String) -> Double {
        gestureMinimumScores.isEmpty ? minimumScore : gestureMinimumScores[name] ?? minimumScore
    }
}
