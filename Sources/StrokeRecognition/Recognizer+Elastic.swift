import Foundation

// MARK: - Cascade stages

extension Recognizer {
    /// A template's gesture and its distance from the stroke.
    typealias Scored = (gesture: Int32, distance: Float)

    /// Elastic distances of the shortlisted templates, sixteen at a time in SIMD lanes (a group of eight when
    /// no more are left). In rotation-invariant libraries the stroke is first rotated by each template's
    /// Protractor angle. In orientation-sensitive ones it is rotated by the part of that angle beyond the dead
    /// zone (`TemplateLibrary.elasticDeadZoneDegrees`), and a group whose angles are all within it is compared
    /// with the stroke as drawn, no angle computed.
    func rerank(
        _ shortlist: UnsafeBufferPointer<Shortlisted>, elastic feature: UnsafeBufferPointer<Float>,
        into results: UnsafeMutableBufferPointer<Scored>
    ) {
        typealias Lanes = ElasticMatcher.Lanes
        typealias LanePair = ElasticMatcher.LanePair
        let n = configuration.pointCount
        let length = n * ElasticMatcher.stride
        let laneCount = Lanes.scalarCount
        let zeroVectors = (length + laneCount - 1) / laneCount
        // Room for a pair of groups: the candidates and templates of two, and two rows of pairs.
        let lanesNeeded = 4 * length + 4 * n + zeroVectors
        Workspace.with(byteCount: lanesNeeded * MemoryLayout<Lanes>.stride) { workspace in
            let candidates = workspace.bindMemory(to: Lanes.self, capacity: lanesNeeded)
            let templates = candidates + 2 * length
            let rows = templates + 2 * length
            let zeros = rows + 4 * n
            zeros.initialize(repeating: .zero, count: zeroVectors)
            let turn = elasticTurn
            // Lines and paths of several strokes are compared as drawn where a dead zone leaves angles so (not in
            // invariant libraries).
            let asDrawn = turn.deadZone > 0 ? self.asDrawn : []
            // The layout (1: groups alone, 2: in pairs) the stroke's features were last broadcast in; 0: none.
            // And which of its vectors (the first or second of a pair) hold them.
            var broadcastStep = 0
            var broadcastAt = (false, false)
            elastic.withUnsafeBufferPointer { all in
                withUnsafeTemporaryAllocation(of: UnsafePointer<Float>.self, capacity: laneCount) { sources in
                    let zeroFloats = UnsafeRawPointer(zeros).assumingMemoryBound(to: Float.self)
                    /// Lays out a group's templates and the stroke for it in every `step`-th lane vector from
                    /// `offset`: a group alone (1, 0), or the first (2, 0) or second (2, 1) of a pair.
                    func load(_ group: Slice<UnsafeBufferPointer<Shortlisted>>, step: Int, offset: Int) {
                        for lane in 0..<laneCount {
                            sources[lane] =
                                lane < group.count
                                ? all.baseAddress! + group[group.startIndex + lane].index * length : zeroFloats
                        }
                        ElasticMatcher.gather(
                            UnsafePointer(sources.baseAddress!), count: length, into: templates + offset, step: step)
                        if turn.rotates, let (cosine, sine) = Self.turns(of: group, turn: turn, except: asDrawn) {
                            ElasticMatcher.rotatePairs(
                                feature.baseAddress!, count: length, cosine: cosine, sine: sine,
                                into: candidates + offset, step: step)
                            if offset == 0 { broadcastAt.0 = false } else { broadcastAt.1 = false }
                        } else if broadcastStep != step || !(offset == 0 ? broadcastAt.0 : broadcastAt.1) {
                            if broadcastStep != step { (broadcastStep, broadcastAt) = (step, (false, false)) }
                            for k in 0..<length { candidates[k * step + offset] = Lanes(repeating: feature[k]) }
                            if offset == 0 { broadcastAt.0 = true } else { broadcastAt.1 = true }
                        }
                    }
                    var start = 0
                    while start < shortlist.count {
                        let end = min(start + 2 * laneCount, shortlist.count)
                        if end - start > laneCount {
                            load(shortlist[start..<(start + laneCount)], step: 2, offset: 0)
                            load(shortlist[(start + laneCount)..<end], step: 2, offset: 1)
                            let distances = candidates.withMemoryRebound(to: LanePair.self, capacity: length) {
                                candidates in
                                templates.withMemoryRebound(to: LanePair.self, capacity: length) { templates in
                                    rows.withMemoryRebound(to: LanePair.self, capacity: 2 * n) { rows in
                                        ElasticMatcher.distances(
                                            candidates: candidates, templates: templates, count: n,
                                            band: configuration.band, rows: rows)
                                    }
                                }
                            }
                            for k in start..<end {
                                results[k] = (gestureIDs[shortlist[k].index], distances[k - start])
                            }
                        } else {
                            load(shortlist[start..<end], step: 1, offset: 0)
                            let distances = ElasticMatcher.distances(
                                candidates: candidates, templates: templates, count: n, band: configuration.band,
                                rows: rows)
                            for k in start..<end { results[k] = (gestureIDs[shortlist[k].index], distances[k - start]) }
                        }
                        start = end
                    }
                }
            }
        }
    }

    /// The cosine and sine of the turn toward each template of `group`, one per lane: by its Protractor angle
    /// less the dead zone (none within it, nor for a template that `asDrawn` marks). Nil when no lane turns: the
    /// stroke is then compared with the whole group as drawn.
    static func turns(
        of group: Slice<UnsafeBufferPointer<Shortlisted>>, turn: ElasticTurn, except asDrawn: [Bool]
    ) -> (cosine: ElasticMatcher.Lanes, sine: ElasticMatcher.Lanes)? {
        var cosine = ElasticMatcher.Lanes(repeating: 1)
        var sine = ElasticMatcher.Lanes.zero
        var turned = false
        for (lane, entry) in group.enumerated() where asDrawn.isEmpty || !asDrawn[entry.index] {
            let r = (entry.a * entry.a + entry.b * entry.b).squareRoot()
            let (c, s) = (entry.a / r, entry.b / r)
            // Also false for r = 0 (NaN): no angle.
            guard c < turn.deadCosine else { continue }
            turned = true
            let sign: Float = s < 0 ? -1 : 1
            if c < turn.boundCosine {
                cosine[lane] = turn.clampedCosine
                sine[lane] = sign * turn.clampedSine
            } else {
                cosine[lane] = c * turn.deadCosine + abs(s) * turn.deadSine
                sine[lane] = sign * (abs(s) * turn.deadCosine - c * turn.deadSine)
            }
        }
        return turned ? (cosine, sine) : nil
    }
}

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
}
