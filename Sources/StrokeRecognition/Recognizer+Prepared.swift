extension Recognizer {
    // MARK: - One stroke, several recognitions

    /// A stroke preprocessed once (resampled, centred, scaled, its features computed) for several recognitions:
    /// among different gestures, or by recognizers that preprocess alike. Valid only inside the call of
    /// `withPreparedStroke` that passes it.
    public struct PreparedStroke {
        fileprivate let vector: UnsafeBufferPointer<Float>
        fileprivate let elastic: UnsafeBufferPointer<Float>
        fileprivate let preprocessing: Preprocessing
        /// Whether the stroke is a straight line (`Recognizer.isLine`), tested once for all its recognitions: such a
        /// stroke is answered only with a template that is one.
        public let isLine: Bool
    }

    /// What decides how a recognizer preprocesses a stroke.
    struct Preprocessing: Equatable {
        let pointCount: Int
        let tangentWeight: Double
        let jumpTangentFactor: Double

        init(_ configuration: RecognizerConfiguration) {
            pointCount = configuration.pointCount
            tangentWeight = configuration.tangentWeight
            jumpTangentFactor = configuration.jumpTangentFactor
        }
    }

    /// Preprocesses a stroke, or a gesture of several strokes joined end to start (`strokeStarts`: where each
    /// stroke after the first begins in `points`), into temporary memory and calls `body` with it.
    ///
    /// Inlinable, so that a caller's `Result` costs no generic calls: the preprocessing itself is not generic.
    ///
    /// - Throws: as `recognize(points:)`.
    @inlinable
    public func withPreparedStroke<Result>(
        points: UnsafeBufferPointer<SIMD2<Double>>,
        strokeStarts: UnsafeBufferPointer<Int> = .init(start: nil, count: 0),
        _ body: (PreparedStroke) -> Result
    ) throws(RecognitionError) -> Result {
        var result: Result?
        try prepare(points: points, strokeStarts: strokeStarts) { result = body($0) }
        return result!
    }

    /// Preprocesses the stroke and calls `body` with it (`withPreparedStroke`).
    @usableFromInline
    func prepare(
        points: UnsafeBufferPointer<SIMD2<Double>>, strokeStarts: UnsafeBufferPointer<Int>,
        _ body: (PreparedStroke) -> Void
    ) throws(RecognitionError) {
        let preprocessing = self.preprocessing
        try ShapeFeatures.withFeatures(
            of: points, pointCount: preprocessing.pointCount, tangentWeight: preprocessing.tangentWeight,
            strokeStarts: strokeStarts, jumpTangentFactor: preprocessing.jumpTangentFactor
        ) { vector, elastic in
            body(
                PreparedStroke(
                    vector: vector, elastic: elastic, preprocessing: preprocessing, isLine: Self.isLine(vector)))
        }
    }

    /// Recognizes a prepared stroke, among the gestures named `gestures` only when given (as
    /// `recognize(points:among:)`).
    ///
    /// - Precondition: `stroke` was prepared by a recognizer that preprocesses as this one does (the same
    ///   `pointCount`, `tangentWeight` and `jumpTangentFactor`).
    public func recognize(_ stroke: PreparedStroke, among gestures: [String]? = nil) -> RecognitionResult {
        precondition(stroke.preprocessing == preprocessing, "the stroke was prepared differently")
        return withSelection(of: gestures) {
            recognize(vector: stroke.vector, elastic: stroke.elastic, selection: $0, isLine: stroke.isLine)
        }
    }
}
