import Foundation

/// The elastic stage's turn of a stroke toward each shortlisted template, worked out once for a library, so that no
/// stroke computes an arc tangent, sine or cosine: the cosine and sine of a template's Protractor angle θ are
/// `a / r` and `b / r` (`r² = a² + b²`), and those of θ less the dead zone (or of the rotation bound less it, past
/// the bound) follow by the angle difference identities. |θ| passes an angle in 0...π where cos θ falls below that
/// angle's cosine.
struct ElasticTurn: Sendable {
    /// The dead zone, in radians: 0 in a rotation-invariant library, infinite in a sensitive one without.
    let deadZone: Float
    /// Whether any angle can pass the dead zone: it is narrower than the rotation bound.
    let rotates: Bool
    /// The cosine and sine of the dead zone (-2 and 0 where it is infinite: no angle passes it).
    let deadCosine: Float
    let deadSine: Float
    /// The cosine of the rotation bound; -2 (no angle passes it) from π on.
    let boundCosine: Float
    /// The cosine and sine of the bound less the dead zone.
    let clampedCosine: Float
    let clampedSine: Float

    init(library: TemplateLibrary, maxRotation: Float) {
        let degrees = library.orientation == .invariant ? 0 : library.elasticDeadZoneDegrees
        deadZone = degrees.map { Float($0 * .pi / 180) } ?? .infinity
        rotates = deadZone < maxRotation
        (deadCosine, deadSine) = deadZone < .infinity ? (cos(deadZone), sin(deadZone)) : (-2, 0)
        boundCosine = maxRotation < .pi ? cos(maxRotation) : -2
        (clampedCosine, clampedSine) =
            maxRotation < .pi && rotates ? (cos(maxRotation - deadZone), sin(maxRotation - deadZone)) : (1, 0)
    }

    /// The cosine and sine of the turn toward each template of `group`, one per lane: by its Protractor angle
    /// less the dead zone (none within it, nor for a template that `asDrawn` marks). Nil when no lane turns: the
    /// stroke is then compared with the whole group as drawn.
    func lanes(of group: Slice<UnsafeBufferPointer<Recognizer.Shortlisted>>, except asDrawn: [Bool])
        -> (cosine: ElasticMatcher.Lanes, sine: ElasticMatcher.Lanes)?
    {
        var cosine = ElasticMatcher.Lanes(repeating: 1)
        var sine = ElasticMatcher.Lanes.zero
        var turned = false
        for (lane, entry) in group.enumerated() where asDrawn.isEmpty || !asDrawn[entry.index] {
            let r = (entry.a * entry.a + entry.b * entry.b).squareRoot()
            let (c, s) = (entry.a / r, entry.b / r)
            // Also false for r = 0 (NaN): no angle.
            guard c < deadCosine else { continue }
            turned = true
            let sign: Float = s < 0 ? -1 : 1
            if c < boundCosine {
                cosine[lane] = clampedCosine
                sine[lane] = sign * clampedSine
            } else {
                cosine[lane] = c * deadCosine + abs(s) * deadSine
                sine[lane] = sign * (abs(s) * deadCosine - c * deadSine)
            }
        }
        return turned ? (cosine, sine) : nil
    }
}
