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
    ///
    /// The lanes are worked out side by side, from the group's `a` and `b` written to memory and loaded once: a
    /// vector built lane by lane went through the stack for every lane, and its reload waited on the store before
    /// it (`perf annotate` of the worker's helper thread: 4% of its samples, most on those reloads). The same
    /// operations in the same order as one lane at a time, so the same bits.
    func lanes(of group: Slice<UnsafeBufferPointer<Recognizer.Shortlisted>>, except asDrawn: [Bool])
        -> (cosine: ElasticMatcher.Lanes, sine: ElasticMatcher.Lanes)?
    {
        typealias Lanes = ElasticMatcher.Lanes
        let count = min(group.count, Lanes.scalarCount)
        // a, b and whether the lane may turn (1 or 0), a lane vector each; lanes past the group stay 0: no angle.
        let (a, b, eligible) = withUnsafeTemporaryAllocation(of: Float.self, capacity: 3 * Lanes.scalarCount) {
            column in
            let base = column.baseAddress!
            base.initialize(repeating: 0, count: 3 * Lanes.scalarCount)
            for (lane, entry) in group.prefix(count).enumerated() {
                base[lane] = entry.a
                base[Lanes.scalarCount + lane] = entry.b
                base[2 * Lanes.scalarCount + lane] = asDrawn.isEmpty || !asDrawn[entry.index] ? 1 : 0
            }
            let raw = UnsafeRawPointer(base)
            let size = MemoryLayout<Float>.stride * Lanes.scalarCount
            return (
                raw.loadUnaligned(as: Lanes.self), raw.loadUnaligned(fromByteOffset: size, as: Lanes.self),
                raw.loadUnaligned(fromByteOffset: 2 * size, as: Lanes.self)
            )
        }
        let r = (a * a + b * b).squareRoot()
        let (c, s) = (a / r, b / r)
        // Also false for r = 0 (NaN): no angle.
        let turns = c .< deadCosine .& (eligible .== 1)
        guard any(turns) else { return nil }
        let sign = Lanes(repeating: 1).replacing(with: -1, where: s .< 0)
        let clamped = c .< boundCosine
        // |s|, the sign bit cleared as `abs` clears it (a comparison would leave -0).
        let magnitude = unsafeBitCast(unsafeBitCast(s, to: Lanes.MaskStorage.self) & 0x7fff_ffff, to: Lanes.self)
        let cosine = (c * deadCosine + magnitude * deadSine).replacing(with: clampedCosine, where: clamped)
        let sine = sign * (magnitude * deadCosine - c * deadSine).replacing(with: clampedSine, where: clamped)
        return (
            Lanes(repeating: 1).replacing(with: cosine, where: turns), Lanes.zero.replacing(with: sine, where: turns)
        )
    }
}
