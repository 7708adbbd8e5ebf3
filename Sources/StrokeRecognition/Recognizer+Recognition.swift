import Foundation

// MARK: - Recognition

extension Recognizer {
    /// Recognizes a stroke given as touch points.
    public func recognize(_ points: [StrokePoint]) throws(RecognitionError) -> RecognitionResult {
        try recognize(points: points.map(\.position))
    }

    /// Recognizes a stroke.
    ///
    /// - Throws: `RecognitionError` `.degenerateStroke` (fewer than 2 points, or no extent) or `.nonFiniteValue`.
    ///   An empty library gives a result with no match and no candidates.
    public func recognize(points: [SIMD2<Double>]) throws(RecognitionError) -> RecognitionResult {
        try points.withUnsafeBufferPointer { (points) throws(RecognitionError) in try recognize(points: points) }
    }

    /// Recognizes a gesture of several strokes, joined end to start in the order drawn: `strokeStarts` says
    /// where each stroke after the first begins in `points` (empty for one stroke).
    ///
    /// - Throws: as `recognize(points:)`.
    public func recognize(points: [SIMD2<Double>], strokeStarts: [Int]) throws(RecognitionError)
        -> RecognitionResult
    {
        try points.withUnsafeBufferPointer { (points) throws(RecognitionError) in
            try strokeStarts.withUnsafeBufferPointer { (starts) throws(RecognitionError) in
                try recognize(points: points, strokeStarts: starts)
            }
        }
    }

    /// Recognizes a stroke among the gestures named `gestures` only, as if the library held no others (nil: all of
    /// them). Names the library lacks select nothing; with none it has, the result has no candidates.
    ///
    /// - Throws: as `recognize(points:)`.
    public func recognize(points: [SIMD2<Double>], among gestures: [String]?) throws(RecognitionError)
        -> RecognitionResult
    {
        try points.withUnsafeBufferPointer { (points) throws(RecognitionError) in
            try recognize(points: points, among: gestures)
        }
    }

    /// Recognizes a stroke, or a gesture of several strokes joined end to start, given as a buffer of points;
    /// among the gestures named `gestures` only, when given (as `recognize(points:among:)`).
    ///
    /// - Throws: as `recognize(points:)`.
    public func recognize(
        points: UnsafeBufferPointer<SIMD2<Double>>,
        strokeStarts: UnsafeBufferPointer<Int> = .init(start: nil, count: 0),
        among gestures: [String]? = nil
    ) throws(RecognitionError) -> RecognitionResult {
        // The features live in temporary memory for the call: no arrays but the result's.
        guard let gestures else {
            return try ShapeFeatures.withFeatures(
                of: points, strokeStarts: strokeStarts, configuration: configuration, recognizeAll(vector:elastic:))
        }
        return try ShapeFeatures.withFeatures(of: points, strokeStarts: strokeStarts, configuration: configuration) {
            vector, elastic in
            withSelection(of: gestures) { recognize(vector: vector, elastic: elastic, selection: $0) }
        }
    }

    /// Recognizes a preprocessed stroke among all gestures.
    private func recognizeAll(vector: UnsafeBufferPointer<Float>, elastic: UnsafeBufferPointer<Float>)
        -> RecognitionResult
    {
        recognize(vector: vector, elastic: elastic, selection: nil)
    }

    /// Recognizes a stroke with this recognizer and with `other`, preprocessing it once: for a library matched
    /// together with a few templates of its own (a session's learned gestures, in the worker). With `gestures`,
    /// both answer among the gestures of those names only (as `recognize(points:among:)`).
    ///
    /// - Precondition: `other` resamples as this one does (the same `pointCount` and `tangentWeight`).
    /// - Throws: as `recognize(points:)`.
    public func recognize(
        points: UnsafeBufferPointer<SIMD2<Double>>,
        strokeStarts: UnsafeBufferPointer<Int> = .init(start: nil, count: 0),
        alongWith other: Recognizer, among gestures: [String]? = nil
    ) throws(RecognitionError) -> (RecognitionResult, RecognitionResult) {
        try withPreparedStroke(points: points, strokeStarts: strokeStarts) { stroke in
            (recognize(stroke, among: gestures), other.recognize(stroke, among: gestures))
        }
    }

    /// Recognizes a preprocessed stroke.
    public func recognize(_ features: ShapeFeatures) -> RecognitionResult {
        precondition(features.pointCount == configuration.pointCount, "features were made for another pointCount")
        return features.vector.withUnsafeBufferPointer { vector in
            features.elastic.withUnsafeBufferPointer { elastic in
                recognize(vector: vector, elastic: elastic, selection: nil)
            }
        }
    }

    /// Recognizes a stroke given as its Protractor vector and elastic features (`ShapeFeatures`'s layout), among
    /// the templates of `selection`'s gestures when given.
    ///
    /// A stroke that is a straight line (`isLine`) is answered only with a template that is one: with none among
    /// them, with no match and no candidates, as a library of no templates answers (at any threshold a caller
    /// tries on the candidates). A line fits a check's long leg, a question mark or a brace well enough to pass a
    /// threshold: the built-in library took 36.55% of 2,000 synthetic swipes for its gestures (docs/Recognition.md,
    /// "Straight strokes"). `isLine`: whether it is, where the caller knows (a prepared stroke, recognized by several
    /// recognizers or among several choices, is tested once); nil to test it here.
    func recognize(
        vector: UnsafeBufferPointer<Float>, elastic: UnsafeBufferPointer<Float>, selection: Selection?,
        isLine: Bool? = nil
    ) -> RecognitionResult {
        guard isLine ?? Self.isLine(vector) else {
            return recognizeShape(vector: vector, elastic: elastic, selection: selection)
        }
        return withLines(of: selection) { lines in
            guard let lines else { return RecognitionResult(match: nil, candidates: []) }
            return recognizeShape(vector: vector, elastic: elastic, selection: lines)
        }
    }

    /// Recognizes a stroke as `recognize(vector:elastic:selection:)` does, whatever its shape.
    private func recognizeShape(
        vector: UnsafeBufferPointer<Float>, elastic: UnsafeBufferPointer<Float>, selection: Selection?
    ) -> RecognitionResult {
        // The shortlist holds selected templates only: no more than there are.
        let eligible = selection?.templates ?? gestureIDs.count
        guard eligible > 0 else { return RecognitionResult(match: nil, candidates: []) }
        // The elastic matcher computes eight templates at once, so the shortlist is rounded up to a multiple of
        // eight: the extra lanes cost nothing.
        let lanes = ElasticMatcher.Lanes.scalarCount
        let scaled = min(gestureIDs.count / configuration.shortlistDivisor, configuration.shortlistLimit)
        let wanted =
            configuration.shortlist == 0
            ? 1 : (max(configuration.shortlist, scaled) + lanes - 1) / lanes * lanes
        let size = min(wanted, eligible)
        return withUnsafeTemporaryAllocation(of: Shortlisted.self, capacity: size) { shortlist in
            protractorShortlist(vector, into: shortlist, selection: selection)
            return withUnsafeTemporaryAllocation(of: Scored.self, capacity: size) { scored in
                if configuration.shortlist == 0 {
                    for (k, entry) in shortlist.enumerated() {
                        let alignment = Protractor.alignment(a: entry.a, b: entry.b, maxRotation: maxRotation)
                        scored[k] = (gestureIDs[entry.index], acos(min(1, max(-1, alignment.similarity))))
                    }
                } else {
                    rerank(UnsafeBufferPointer(shortlist), elastic: elastic, into: scored)
                }
                return result(scored, shortlist: UnsafeBufferPointer(shortlist))
            }
        }
    }
}
