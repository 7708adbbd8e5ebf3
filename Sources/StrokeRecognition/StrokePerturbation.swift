import Foundation

/// A change to recorded strokes that stands for how other people, devices and moods draw the same gesture: a
/// tilted or slanted hand, a squashed or stretched shape, a shaky finger, another sampling rate, another rhythm,
/// whole-pixel coordinates. `stroke-tool eval --perturb` and `stroke-tool robustness` measure how the recognizer
/// and the checkmark detector hold up under them, which tuning on a handful of subjects cannot show.
///
/// They apply in the order of the properties below, as a stroke comes about: the way round it goes
/// (`reverse`), the hand's rhythm (`ease`), the
/// device's sampling (`rate`), the shape's geometry (around the stroke's centroid), the sensor's noise (`jitter`),
/// its resolution (`quantize`) and the producer's timestamps (`stamp`).
public struct StrokePerturbation: Sendable, Hashable, CustomStringConvertible {
    /// Draws the stroke the other way round: from its last point to its first, each segment taking as long as
    /// it did. Default: `false`.
    public var reverse = false
    /// Speed profile: the fraction `u` of the duration becomes `u^ease` (above 1: a slow start and a fast end;
    /// below 1: the opposite). Default: `1`.
    public var ease = 1.0
    /// Resamples the stroke in time at this rate (Hz, at most 10,000), interpolating positions linearly; `nil`
    /// keeps the samples. Default: `nil`.
    public var rateHertz: Double?
    /// Rotation in degrees, clockwise on screen (y grows downward). Default: `0`.
    public var rotateDegrees = 0.0
    /// Horizontal slant: `x += shear × y`. With y growing downward, a negative shear moves a stroke's top right of
    /// its bottom, as italic handwriting leans; a positive one leans it back. Default: `0`.
    public var shear = 0.0
    /// Width ÷ height factor: `x` is multiplied by its square root and `y` divided by it. Default: `1`.
    public var aspect = 1.0
    /// Gaussian noise on each coordinate of each sample, its standard deviation a fraction of the stroke's
    /// bounding-box diagonal. Default: `0`.
    public var jitter = 0.0
    /// Rounds coordinates to multiples of this (1: whole pixels); `0` keeps them. Default: `0`.
    public var quantize = 0.0
    /// Each run of this many samples (1–1,000) carries the time of its last one, as from a producer that stamps
    /// the points of a message with the message's time instead of their own; `1` keeps the times. Default: `1`.
    public var stamp = 1

    /// No change.
    public init() {}

    /// Parses `name=value` pairs separated by commas: `reverse` (0 or 1), `rotate`, `shear`, `aspect`,
    /// `jitter`, `rate`, `ease`, `quantize`, `stamp` (an empty text is no change).
    ///
    /// - Throws: `RecognitionError` `.invalidConfiguration` naming the pair that is not understood or out of range.
    public init(parsing text: String) throws(RecognitionError) {
        for pair in text.split(separator: ",") {
            let parts = pair.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2, let value = Double(parts[1]), value.isFinite else {
                throw RecognitionError(.invalidConfiguration, "perturbation \"\(pair)\": expected NAME=NUMBER")
            }
            switch parts[0] {
            case "reverse" where value == 0 || value == 1: reverse = value == 1
            case "rotate": rotateDegrees = value
            case "shear": shear = value
            case "aspect" where value > 0: aspect = value
            case "jitter" where value >= 0: jitter = value
            case "rate" where value > 0 && value <= 10_000: rateHertz = value
            case "ease" where value > 0: ease = value
            case "quantize" where value >= 0: quantize = value
            case "stamp" where value >= 1 && value <= 1000 && value == value.rounded(): stamp = Int(value)
            case "reverse", "aspect", "jitter", "rate", "ease", "quantize", "stamp":
                throw RecognitionError(.invalidConfiguration, "perturbation \"\(pair)\": out of range")
            default:
                throw RecognitionError(
                    .invalidConfiguration,
                    "perturbation \"\(pair)\": unknown; reverse, rotate, shear, aspect, jitter, rate, ease, quantize "
                        + "or stamp")
            }
        }
    }

    /// The changes made, as `parsing` takes them; `none` for none.
    public var description: String {
        var parts = [String]()
        if reverse { parts.append("reverse=1") }
        if ease != 1 { parts.append("ease=\(Self.format(ease))") }
        if let rateHertz { parts.append("rate=\(Self.format(rateHertz))") }
        if rotateDegrees != 0 { parts.append("rotate=\(Self.format(rotateDegrees))") }
        if shear != 0 { parts.append("shear=\(Self.format(shear))") }
        if aspect != 1 { parts.append("aspect=\(Self.format(aspect))") }
        if jitter != 0 { parts.append("jitter=\(Self.format(jitter))") }
        if quantize != 0 { parts.append("quantize=\(Self.format(quantize))") }
        if stamp != 1 { parts.append("stamp=\(stamp)") }
        return parts.isEmpty ? "none" : parts.joined(separator: ",")
    }

    private static func format(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e6 ? String(Int(value)) : String(value)
    }

    // MARK: - Applying

    /// The stroke changed; `generator` draws the jitter.
    public func apply<G: RandomNumberGenerator>(to points: [StrokePoint], using generator: inout G) -> [StrokePoint] {
        guard points.count >= 2 else { return points }
        var result = points
        if reverse, let first = points.first?.time, let last = points.last?.time {
            // The k-th point drawn is the k-th from the end, as long after the start as it was before the end.
            for index in result.indices {
                result[index] = points[points.count - 1 - index]
                result[index].time = first + (last - result[index].time)
            }
        }
        if ease != 1, let first = result.first?.time, let last = result.last?.time, last > first {
            for index in result.indices {
                result[index].time = first + (last - first) * pow((result[index].time - first) / (last - first), ease)
            }
        }
        if let rateHertz { result = Self.resample(result, every: 1000 / rateHertz) }
        let centre = StrokeGeometry.centroid(result.map(\.position))
        let angle = rotateDegrees * .pi / 180
        let (sine, cosine) = (sin(angle), cos(angle))
        let stretch = aspect.squareRoot()
        for index in result.indices {
            var x = result[index].x - centre.x
            var y = result[index].y - centre.y
            (x, y) = (x * cosine - y * sine, x * sine + y * cosine)
            x += shear * y
            (x, y) = (x * stretch, y / stretch)
            result[index].x = x + centre.x
            result[index].y = y + centre.y
        }
        if jitter > 0 {
            let xs = result.map(\.x)
            let ys = result.map(\.y)
            let width = xs.max()! - xs.min()!
            let height = ys.max()! - ys.min()!
            let deviation = jitter * (width * width + height * height).squareRoot()
            for index in result.indices {
                result[index].x += deviation * Self.gaussian(using: &generator)
                result[index].y += deviation * Self.gaussian(using: &generator)
            }
        }
        if quantize > 0 {
            for index in result.indices {
                result[index].x = (result[index].x / quantize).rounded() * quantize
                result[index].y = (result[index].y / quantize).rounded() * quantize
            }
        }
        if stamp > 1 {
            for start in stride(from: 0, to: result.count, by: stamp) {
                let end = min(start + stamp, result.count)
                let time = result[end - 1].time
                for index in start..<end { result[index].time = time }
            }
        }
        return result
    }

    /// A standard normal draw (Box–Muller).
    static func gaussian<G: RandomNumberGenerator>(using generator: inout G) -> Double {
        let u = Double.random(in: Double.ulpOfOne..<1, using: &generator)
        let v = Double.random(in: 0..<1, using: &generator)
        return (-2 * log(u)).squareRoot() * cos(2 * .pi * v)
    }

    /// Positions at every `interval` milliseconds from the first sample to the last (which is kept), interpolated
    /// linearly in time; samples with equal times keep the later position. A stroke that would need a million
    /// samples or more is returned as it is.
    static func resample(_ points: [StrokePoint], every interval: Double) -> [StrokePoint] {
        guard let first = points.first, let last = points.last, last.time > first.time,
            (last.time - first.time) / interval < 1_000_000
        else { return points }
        var result = [StrokePoint]()
        result.reserveCapacity(Int((last.time - first.time) / interval) + 2)
        var segment = 1
        var time = first.time
        while time < last.time {
            while segment < points.count - 1 && points[segment].time <= time { segment += 1 }
            let (a, b) = (points[segment - 1], points[segment])
            let span = b.time - a.time
            let f = span > 0 ? min(max((time - a.time) / span, 0), 1) : 1
            result.append(StrokePoint(x: a.x + (b.x - a.x) * f, y: a.y + (b.y - a.y) * f, time: time))
            time += interval
        }
        result.append(StrokePoint(x: last.x, y: last.y, time: last.time))
        return result
    }
}
