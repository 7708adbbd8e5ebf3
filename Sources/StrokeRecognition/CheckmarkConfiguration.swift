/// Tuning of the streaming checkmark detector.
///
/// Angles are in degrees in screen coordinates (x right, y down): 0° points right, 90° down, −90° up. Every
/// parameter is a ratio or an angle except `initialSpacing`, which is in the stroke's own units and only filters
/// jitter: the spacing doubles as the stroke grows, so the decisions do not depend on the stroke's size.
public struct CheckmarkConfiguration: Sendable, Hashable, Codable {
    /// First resampling step, in the stroke's units (absolute). Default: `1.5`.
    public var initialSpacing: Double
    /// Resampled points kept; when full, every other one is dropped and the spacing doubled. Default: `64`.
    public var capacity: Int
    /// Resampled points needed in each leg before a decision. Default: `3`.
    public var minimumLegPoints: Int
    /// Allowed directions of the first (downward) leg. Default: `10...120`.
    public var firstLegDirection: ClosedRange<Double>
    /// Allowed directions of the second (upward) leg. Default: `-88 ... -12`.
    public var secondLegDirection: ClosedRange<Double>
    /// Allowed turn between the legs (first direction minus second). Default: `50...165`.
    public var turn: ClosedRange<Double>
    /// Largest path length ÷ chord length of the first leg. Default: `1.25`.
    public var firstLegMaxCurl: Double
    /// Largest path length ÷ chord length of the second leg. Default: `1.12`.
    public var secondLegMaxCurl: Double
    /// Second leg ÷ first leg at which the detector fires. Default: `1.25`.
    public var fireRatio: Double
    /// The fire ratio for steep, v-like second legs (steeper than `steepAngle`). Default: `1.6`.
    public var steepFireRatio: Double
    /// Second-leg direction (degrees above the horizontal) from which `steepFireRatio` applies. Default: `55`.
    public var steepAngle: Double

    /// Creates a configuration; every argument defaults to its documented value.
    public init(
        initialSpacing: Double = 1.5,
        capacity: Int = 64,
        minimumLegPoints: Int = 3,
        firstLegDirection: ClosedRange<Double> = 10...120,
        secondLegDirection: ClosedRange<Double> = -88 ... -12,
        turn: ClosedRange<Double> = 50...165,
        firstLegMaxCurl: Double = 1.25,
        secondLegMaxCurl: Double = 1.12,
        fireRatio: Double = 1.25,
        steepFireRatio: Double = 1.6,
        steepAngle: Double = 55
    ) {
        self.initialSpacing = initialSpacing
        self.capacity = capacity
        self.minimumLegPoints = minimumLegPoints
        self.firstLegDirection = firstLegDirection
        self.secondLegDirection = secondLegDirection
        self.turn = turn
        self.firstLegMaxCurl = firstLegMaxCurl
        self.secondLegMaxCurl = secondLegMaxCurl
        self.fireRatio = fireRatio
        self.steepFireRatio = steepFireRatio
        self.steepAngle = steepAngle
    }

    /// The defaults.
    public static let `default` = CheckmarkConfiguration()
}
