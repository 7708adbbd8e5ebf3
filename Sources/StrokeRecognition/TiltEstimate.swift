/// A running estimate of how far one player's hand turns what they draw, from the rotations of their matches, so
/// that the checkmark detector, which knows upright checks, can judge their strokes turned back upright.
///
/// Each match of a shape in an orientation-sensitive library says how far the stroke is turned from the template
/// it matched (`RecognitionResult.Candidate.rotation`, `showsTilt`). One stroke's rotation is mostly its own
/// variation (a median of 2.8° either way on the $1 logs); a player's tilt is what stays from stroke to stroke.
/// The estimate is the mean of the first three rotations, then an exponential average that gives each new one a
/// quarter of the weight, in whole degrees: two bytes, so that the worker keeps it in a session's state (a new
/// rotation within 2° of the estimate leaves it where it is, well inside `deadZone`).
public struct TiltEstimate: Sendable, Hashable, Codable {
    /// The estimate, in whole degrees, positive from the x axis toward the y axis (clockwise on a screen whose y
    /// grows downward), as `RecognitionResult.Candidate.rotation`.
    public private(set) var degrees: Int8
    /// Rotations observed so far, up to `warmUp`.
    public private(set) var samples: UInt8

    /// Rotations averaged plainly before the exponential average takes over (and the most `samples` counts).
    public static let warmUp: UInt8 = 3
    /// Rotations needed before the estimate turns the detector's input.
    public static let minimumSamples: UInt8 = 2
    /// Estimates within this many degrees either way leave the detector's input as drawn: it fires on upright
    /// checks tilted by up to 10° as on upright ones (docs/Recognition.md, "A tilted player's checks").
    public static let deadZone: Int8 = 8
    /// Rotations beyond this many degrees either way are not taken for a hand's tilt.
    public static let largest = 45.0

    /// Creates an estimate with no rotation observed.
    public init() {
        degrees = 0
        samples = 0
    }

    /// Decodes `{"degrees": …, "samples": …}`, held within ±`largest` and `warmUp` as `init(degrees:samples:)` holds
    /// them.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let degrees = try container.decode(Int.self, forKey: .degrees)
        let samples = try container.decode(Int.self, forKey: .samples)
        self.init(
            degrees: Int8(max(-Int(Self.largest), min(Int(Self.largest), degrees))),
            samples: UInt8(max(0, min(Int(Self.warmUp), samples))))
    }

    /// Creates an estimate from its parts, as a caller that packs them stored them.
    public init(degrees: Int8, samples: UInt8) {
        self.degrees = max(-Int8(Self.largest), min(Int8(Self.largest), degrees))
        self.samples = min(samples, Self.warmUp)
    }

    /// Takes in the rotation of one match, in degrees; a non-finite one or one beyond `largest` is ignored.
    public mutating func observe(_ rotation: Double) {
        guard rotation.isFinite, abs(rotation) <= Self.largest else { return }
        let weight = 1 / Double(min(samples, Self.warmUp) + 1)
        let updated = Double(degrees) + weight * (rotation - Double(degrees))
        degrees = Int8(updated.rounded())
        if samples < Self.warmUp { samples += 1 }
    }

    /// The turn to give a stroke's points before the detector judges them, in whole degrees: the estimate's
    /// opposite once it rests on `minimumSamples` rotations and leaves the dead zone, else 0.
    public var correction: Int {
        samples >= Self.minimumSamples && abs(degrees) > Self.deadZone ? -Int(degrees) : 0
    }
}
