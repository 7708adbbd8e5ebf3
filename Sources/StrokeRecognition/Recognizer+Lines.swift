extension Recognizer {
    // MARK: - Straight strokes

    /// How far apart the ends of a straight line are, at least, as a share of its length: a stroke that is one is
    /// answered only with a template that is one (`recognize(vector:elastic:selection:)`).
    ///
    /// On the $1 logs none of the 2,400 strokes reaches 0.85 (the straightest, right braces, 0.847), where the
    /// synthetic swipes of `scripts/swipes.py` without a hook, straight or bowed up to 0.15 of their length high, all
    /// reach 0.94 (docs/Recognition.md, "Straight strokes"). The bound is the one by which a template keeps its
    /// direction (`keepsDirection`).
    static let lineShare = 0.9

    /// Whether a resampled path, as a Protractor vector lays it out (`[x0, y0, x1, y1, …]`), is a straight line:
    /// its ends at least `lineShare` of its length apart.
    static func isLine(_ vector: UnsafeBufferPointer<Float>) -> Bool {
        let count = vector.count / 2
        guard count >= 2 else { return false }
        func distance(_ a: Int, _ b: Int) -> Float {
            let dx = vector[2 * b] - vector[2 * a]
            let dy = vector[2 * b + 1] - vector[2 * a + 1]
            return (dx * dx + dy * dy).squareRoot()
        }
        let ends = distance(0, count - 1)
        // The path is at least as long as the chords through its quarters: most shapes fail on those alone, for 5
        // square roots instead of one for each of its segments (about 70 ns a recognition, measured with
        // `stroke-bench --only recognizer`).
        let quarters = (count / 4, count / 2, 3 * count / 4)
        let chords =
            distance(0, quarters.0) + distance(quarters.0, quarters.1) + distance(quarters.1, quarters.2)
            + distance(quarters.2, count - 1)
        let share = Float(lineShare)
        guard ends >= share * chords else { return false }
        var length: Float = 0
        for k in 1..<count { length += distance(k - 1, k) }
        return ends >= share * length
    }

    /// The templates among `vectors` (each `2 × pointCount` floats) that are straight lines, a bit per template as
    /// `Selection.lanes` marks them; empty when none is.
    static func lineLanes(vectors: [Float], pointCount: Int) -> [UInt8] {
        let length = 2 * pointCount
        let templates = vectors.count / length
        let laneCount = ElasticMatcher.Lanes.scalarCount
        var lanes = [UInt8](repeating: 0, count: (templates + laneCount - 1) / laneCount)
        var any = false
        vectors.withUnsafeBufferPointer { vectors in
            for template in 0..<templates
            where isLine(UnsafeBufferPointer(rebasing: vectors[template * length..<(template + 1) * length])) {
                lanes[template / laneCount] |= 1 << (template % laneCount)
                any = true
            }
        }
        return any ? lanes : []
    }

    /// Calls `body` with the selection of `selection`'s templates (all, when nil) that are straight lines, in
    /// temporary memory; with nil when none is.
    func withLines<Result>(of selection: Selection?, _ body: (Selection?) -> Result) -> Result {
        let lines = self.lines
        guard !lines.isEmpty else { return body(nil) }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: lines.count) { lanes in
            var templates = 0
            for group in lines.indices {
                let chosen = lines[group] & (selection?.lanes[group] ?? 0xFF)
                lanes[group] = chosen
                templates += chosen.nonzeroBitCount
            }
            return body(templates == 0 ? nil : Selection(lanes: lanes, templates: templates))
        }
    }
}
