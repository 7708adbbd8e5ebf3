/// Tuning of the streaming checkmark detector.
///
/// Angles are in degrees in screen coordinates (x right, y down): 0° points right, 90° down, −90° up. Every
/// parameter is a ratio or an angle, except `initialSpacing` when it is set, which is in the stroke's own units.
/// The resampling spacing doubles as the stroke grows, so the decisions do not depend on the stroke's size.
public struct CheckmarkConfiguration: Sendable, Hashable, Codable {
    /// First resampling step, in the stroke's units (absolute), or `nil` to take the length of the stroke's first
    /// movement, which works for pixels and for normalized `0...1` coordinates alike. Default: `nil`.
    public var initialSpacing: Double?
    /// Resampled points kept; when full, every other one is dropped and the spacing doubled. Default: `64`.
    public var capacity: Int
    /// Resampled points needed in each leg before a decision. Default: `3`.
    public var minimumLegPoints: Int
    /// Allowed directions of the first (downward) leg. Default: `0...120`.
    public var firstLegDirection: ClosedRange<Double>
    /// Allowed directions of the second (upward) leg: up to a little past vertical, as the second leg of a hand
    /// that slants to the left goes. Default: `-92 ... -30`.
    public var secondLegDirection: ClosedRange<Double>
    /// Allowed turn between the legs (first direction minus second). Default: `58...165`.
    public var turn: ClosedRange<Double>
    /// Largest path length ÷ chord length of the first leg, the path measured through nine of the leg's resampled
    /// points (eight segments), so that jitter does not lengthen it. Default: `1.5`.
    public var firstLegMaxCurl: Double
    /// Largest path length ÷ chord length of the second leg, measured as the first leg's. Default: `1.18`.
    public var secondLegMaxCurl: Double
    /// Smallest corner sharpness: the turn measured over a few resampled points on each side of the corner
    /// (`max(2, count / 12)`) divided by the turn between the whole legs. A check's corner is sharp (≥ 0.66 in
    /// the $1 logs); the rounded bottom of a pigtail's first loop is not (≤ 0.38). Default: `0.5`.
    public var minimumSharpness: Double
    /// Largest share of the legs' turn by which the first leg already turns the same way: the direction of its
    /// first half against that of its second half, as `secondLegMaxTurn` measures it. A check's first leg runs
    /// straight into its corner (at most 0.24 where the $1 logs' checks fire, under every change of `stroke-tool
    /// robustness`); a pigtail, whose round bottom noise can make look sharp, curves into it. `1000` turns the
    /// limit off. Default: `0.5`.
    public var firstLegMaxTurn: Double
    /// Largest share of the legs' turn by which the second leg goes on turning the same way: the direction of its
    /// second half against that of its first half (from the corner to its middle resampled point, and from there
    /// to the last), over the turn between the whole legs. The turn of a check's corner is over when its second
    /// leg starts, which then runs straight or bends back (at most 0.19 where the $1 logs' checks fire, under
    /// every change of `stroke-tool robustness`); a pigtail's loop, whose round bottom noise can make look sharp,
    /// keeps turning. `1000` turns the limit off. Default: `0.3`.
    public var secondLegMaxTurn: Double
    /// Second leg ÷ first leg at which the detector fires. Default: `1.15`.
    public var fireRatio: Double
    /// The fire ratio for steep, v-like second legs (both legs steep, as in a v). Default: `1.45`.
    public var steepFireRatio: Double
    /// Second-leg direction (degrees above the horizontal) from which `steepFireRatio` may apply. Default: `50`.
    public var steepAngle: Double
    /// First-leg direction (degrees below the horizontal) from which `steepFireRatio` may apply; both legs must
    /// be steep, as in a v. Default: `40`.
    public var steepFirstAngle: Double
    /// Whether the second leg's rise ÷ the first leg's drop must reach the fire ratio as well as the ratio of
    /// their lengths (when the first leg falls and the second rises, as the default directions require). A check's
    /// second leg rises far above where the first began; a v's ends near that height, and a slant to the right (as
    /// handwriting leans) makes its second leg longer but not higher. Default: `true`.
    public var compareHeights: Bool
    /// The fraction of `fireRatio` (or `steepFireRatio`) at which the detector fires while the second leg is
    /// still at speed (`earlyFireSpeed`): a check's second leg goes on well past the first, where a v's slows down
    /// to stop near its length. `1` fires on the legs' lengths alone. Default: `0.85`.
    public var earlyFireFactor: Double
    /// The second leg's speed over its last fifth (at least two resampled points) ÷ its mean speed from the corner,
    /// from which `earlyFireFactor` applies. A hand that moves from one point to another speeds up and then slows
    /// down; near the end of its movement it goes slower than its mean, in the middle faster. Needs times that
    /// advance. Default: `1.2`.
    public var earlyFireSpeed: Double
    /// Milliseconds from the stroke's first point before the detector may fire (absolute: time, not size). A
    /// small hook where the finger lands looks like a check to a detector that knows no size; a check takes longer
    /// (the fastest of the $1 logs fires 232 ms in). A stroke whose times do not advance is not held back, and a
    /// check drawn faster than this is still matched as a gesture when it ends. Default: `100`.
    public var minimumDuration: Double
    /// Milliseconds from the stroke's first point to the corner, below which the legs are not a check (absolute:
    /// time, not size). Where the finger lands it often draws a hook of a few pixels, in a few tens of
    /// milliseconds, which dense samples (120-240 Hz) resolve into a small check; a check's first leg takes longer
    /// (at least 101 ms in the $1 logs). Read only where the stroke's times advance. Default: `60`.
    public var minimumFirstLegDuration: Double
    /// Degrees within which a corner counts as square and aligned with the screen, and is no check's: a first leg
    /// within this many degrees of the horizontal (rightward) and a second within as many of the vertical
    /// (upward) draw the corner of an L, a right square bracket drawn backward or a box, which the other bounds
    /// admit. Measured with `stroke-tool robustness --stroke-direction any --perturbations "reverse=1;…"`: at 10,
    /// the right brackets drawn backward that fire it fall from 68 of 150 to 30, and no check is lost anywhere
    /// in the sweep, tilted by up to 20° either way included (docs/Recognition.md, "Strokes either way round"). `0`
    /// turns the rule off. Default: `10`.
    public var squareCornerTolerance: Double

    /// Creates a configuration; every argument defaults to its documented value.
    public init(
        initialSpacing: Double? = nil,
        capacity: Int = 64,
        minimumLegPoints: Int = 3,
        firstLegDirection: ClosedRange<Double> = 0...120,
        secondLegDirection: ClosedRange<Double> = -92 ... -30,
        turn: ClosedRange<Double> = 58...165,
        firstLegMaxCurl: Double = 1.5,
        secondLegMaxCurl: Double = 1.18,
        minimumSharpness: Double = 0.5,
        firstLegMaxTurn: Double = 0.5,
        secondLegMaxTurn: Double = 0.3,
        fireRatio: Double = 1.15,
        steepFireRatio: Double = 1.45,
        steepAngle: Double = 50,
        steepFirstAngle: Double = 40,
        compareHeights: Bool = true,
        earlyFireFactor: Double = 0.85,
        earlyFireSpeed: Double = 1.2,
        minimumDuration: Double = 100,
        minimumFirstLegDuration: Double = 60,
        squareCornerTolerance: Double = 10
    ) {
        self.initialSpacing = initialSpacing
        self.capacity = capacity
        self.minimumLegPoints = minimumLegPoints
        self.firstLegDirection = firstLegDirection
        self.secondLegDirection = secondLegDirection
        self.turn = turn
        self.firstLegMaxCurl = firstLegMaxCurl
        self.secondLegMaxCurl = secondLegMaxCurl
        self.minimumSharpness = minimumSharpness
        self.firstLegMaxTurn = firstLegMaxTurn
        self.secondLegMaxTurn = secondLegMaxTurn
        self.fireRatio = fireRatio
        self.steepFireRatio = steepFireRatio
        self.steepAngle = steepAngle
        self.steepFirstAngle = steepFirstAngle
        self.compareHeights = compareHeights
        self.earlyFireFactor = earlyFireFactor
        self.earlyFireSpeed = earlyFireSpeed
        self.minimumDuration = minimumDuration
        self.minimumFirstLegDuration = minimumFirstLegDuration
        self.squareCornerTolerance = squareCornerTolerance
    }

    /// The defaults.
    public static let `default` = CheckmarkConfiguration()
}
