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
                        if turn.rotates, let (cosine, sine) = turn.lanes(of: group, except: asDrawn) {
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
}
