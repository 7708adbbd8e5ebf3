/// One sampled touch point of a stroke.
///
/// Coordinates are in any unit the producer likes (screen pixels, points, millimetres): the recognizers are
/// scale-invariant. `time` is in milliseconds on any monotonic clock; only differences matter.
public struct StrokePoint: Sendable, Hashable, Codable {
    /// Horizontal coordinate.
    public var x: Double
    /// Vertical coordinate; by touch convention it grows downward.
    public var y: Double
    /// Sample time in milliseconds.
    public var time: Double
    /// Normalized pressure in `0...1`, when the device reports it.
    public var pressure: Double?

    /// Creates a point.
    public init(x: Double, y: Double, time: Double = 0, pressure: Double? = nil) {
        self.x = x
        self.y = y
        self.time = time
        self.pressure = pressure
    }

    /// The point's position as a vector.
    @inlinable
    public var position: SIMD2<Double> { SIMD2(x, y) }

    /// Whether both coordinates and the time are finite numbers.
    @inlinable
    public var isFinite: Bool { x.isFinite && y.isFinite && time.isFinite }
}
