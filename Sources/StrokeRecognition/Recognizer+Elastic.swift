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
            let deadZone = elasticDeadZone
            // Lines and paths of several strokes are compared as drawn where a dead zone leaves angles so (not in
            // invariant libraries).
            let asDrawn = deadZone > 0 ? self.asDrawn : []
            // Past the tangent of the dead zone (below a right angle) a template's angle leaves it; a dead zone as
            // wide as the rotation bound leaves no angle past it.
            let rotates = deadZone < maxRotation
            let tangent = deadZone < .pi / 2 ? tan(deadZone) : .infinity
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
                        if rotates,
                            group.contains(where: {
                                Self.turned($0, past: deadZone, tangent: tangent)
                                    && (asDrawn.isEmpty || !asDrawn[$0.index])
                            })
                        {
                            rotate(
                                feature, by: group, beyond: deadZone, except: asDrawn, into: candidates + offset,
                                count: length, step: step)
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

    /// The dead zone of the elastic stage's rotation, in radians: 0 in a rotation-invariant library, infinite in a
    /// sensitive one without (strokes compared as drawn).
    var elasticDeadZone: Float {
        guard library.orientation == .sensitive else { return 0 }
        return library.elasticDeadZoneDegrees.map { Float($0 * .pi / 180) } ?? .infinity
    }

    /// Whether a shortlisted template's Protractor angle (`atan2(b, a)`) is past `deadZone` either way: `tangent`
    /// is its tangent (`.infinity` from a right angle on), so that no angle is computed.
    @inline(__always)
    static func turned(_ entry: Shortlisted, past deadZone: Float, tangent: Float) -> Bool {
        guard tangent < .infinity else { return abs(atan2(entry.b, entry.a)) > deadZone }
        return entry.a <= 0 ? entry.b != 0 || entry.a < 0 : abs(entry.b) > entry.a * tangent
    }

    /// Writes the stroke's elastic features rotated by each shortlisted template's Protractor angle less
    /// `deadZone` (none within it, nor for a template that `asDrawn` marks), one template per lane (positions and
    /// tangents alike: both are pairs), into every `step`-th lane vector.
    private func rotate(
        _ feature: UnsafeBufferPointer<Float>, by group: Slice<UnsafeBufferPointer<Shortlisted>>,
        beyond deadZone: Float, except asDrawn: [Bool], into candidates: UnsafeMutablePointer<ElasticMatcher.Lanes>,
        count: Int, step: Int
    ) {
        typealias Lanes = ElasticMatcher.Lanes
        // No arc tangent, sine or cosine per template: the cosine and sine of its Protractor angle θ are a / r and
        // b / r, and those of θ less the dead zone (or of the bound less it, past the bound) follow by the angle
        // difference identities. |θ| passes an angle in 0...π where cos θ falls below that angle's cosine.
        let (deadCosine, deadSine) = (cos(deadZone), sin(deadZone))
        let boundCosine = maxRotation < .pi ? cos(maxRotation) : -2
        let (clampedCosine, clampedSine) =
            maxRotation < .pi ? (cos(maxRotation - deadZone), sin(maxRotation - deadZone)) : (1, 0)
        var cosine = Lanes(repeating: 1)
        var sine = Lanes.zero
        for (lane, entry) in group.enumerated() where asDrawn.isEmpty || !asDrawn[entry.index] {
            let r = (entry.a * entry.a + entry.b * entry.b).squareRoot()
            guard r > 0 else { continue }
            let (c, s) = (entry.a / r, entry.b / r)
            guard c < deadCosine else { continue }
            let sign: Float = s < 0 ? -1 : 1
            if c < boundCosine {
                cosine[lane] = clampedCosine
                sine[lane] = sign * clampedSine
            } else {
                cosine[lane] = c * deadCosine + abs(s) * deadSine
                sine[lane] = sign * (abs(s) * deadCosine - c * deadSine)
            }
        }
        ElasticMatcher.rotatePairs(
            feature.baseAddress!, count: count, cosine: cosine, sine: sine, into: candidates, step: step)
    }
}
