/// What the template matcher says about a stroke.
public struct RecognitionResult: Sendable, Hashable {
    /// One gesture considered for a stroke.
    public struct Candidate: Sendable, Hashable {
        /// The gesture's name.
        public var name: String
        /// Similarity in `(0, 1]`: `1 / (1 + distance)`. 1 means identical to a template; 0.5 means the stroke
        /// deviates from its closest template by, on average, its own RMS radius per point.
        public var score: Double
        /// The elastic distance to the closest template of this gesture: the mean per-point deviation, after
        /// optimal alignment, in units of the shape's RMS radius (0 for an identical stroke).
        public var distance: Double
        /// Whether that template matched drawn the other way round (a library whose strokes go either way,
        /// `TemplateLibrary.StrokeDirection.any`): a stroke reversed, or in a template of several strokes matched
        /// in their drawn order, one or more of them. Never for a template of several strokes in a library that
        /// matches any order, which takes them every way anyway.
        public var drawnBackward: Bool
        /// How far the stroke is turned from that template, in degrees (−180 to 180): the turn that carries the
        /// template onto the stroke, from the x axis toward the y axis (clockwise on a screen whose y grows
        /// downward). The Protractor's best angle, bounded by the library's `maxRotationDegrees` in an
        /// orientation-sensitive library; any in a rotation-invariant one, where it tells which way an arrow was
        /// drawn.
        public var rotation: Double
        /// Whether `rotation` tells how the hand that drew the stroke was tilted (`TiltEstimate`): the template is
        /// a shape of one stroke, not a line (whose rotation is the direction it was drawn in) nor a path of
        /// several strokes, in an orientation-sensitive library.
        public var showsTilt: Bool

        /// Creates a candidate.
        public init(
            name: String, score: Double, distance: Double, drawnBackward: Bool = false, rotation: Double = 0,
            showsTilt: Bool = false
        ) {
            self.name = name
            self.score = score
            self.distance = distance
            self.drawnBackward = drawnBackward
            self.rotation = rotation
            self.showsTilt = showsTilt
        }
    }

    /// The best candidate when its score reaches the library's `minimumScore`; `nil` means "no match".
    public var match: Candidate?
    /// The best candidates, one per gesture, best first (at most `RecognizerConfiguration.topK`).
    public var candidates: [Candidate]

    /// Creates a result.
    public init(match: Candidate?, candidates: [Candidate]) {
        self.match = match
        self.candidates = candidates
    }
}
