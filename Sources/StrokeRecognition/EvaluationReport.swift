/// The figures of an evaluation run (`stroke-tool eval`), in the shape of its `--json` output.
public struct EvaluationReport: Sendable, Codable {
    /// How often an expected confusion happened.
    public struct Confusion: Sendable, Codable, Hashable {
        /// The gesture drawn.
        public var expected: String
        /// What the matcher said (`(none)` for a rejection).
        public var actual: String
        /// How many times.
        public var count: Int
    }

    /// Checkmark detector figures.
    public struct Checkmark: Sendable, Codable {
        /// Fraction of `check` samples on which the detector fired.
        public var truePositiveRate: Double
        /// Fraction of all other samples on which it fired.
        public var falsePositiveRate: Double
        /// Median over true positives of the fraction of the stroke's duration still to come when it fired.
        public var medianLeadFraction: Double
        /// Number of `check` samples replayed.
        public var checkSamples: Int
        /// Number of other samples replayed.
        public var otherSamples: Int
        /// False positives by gesture.
        public var falsePositivesByGesture: [String: Int]
    }

    /// `user-dependent` or `user-independent`.
    public var protocolName: String
    /// Fraction of tests recognized as the right gesture (0–1).
    public var accuracy: Double
    /// Number of recognitions tested.
    public var tests: Int
    /// Accuracy per gesture (0–1).
    public var perGesture: [String: Double]
    /// The most frequent confusions, most frequent first.
    public var confusions: [Confusion]
    /// Checkmark detector figures, replayed point by point over every sample of the data set.
    public var checkmark: Checkmark
    /// Mean wall-clock microseconds per recognition (preprocessing included).
    public var microsecondsPerRecognition: Double
    /// Mean number of templates in the libraries recognized against.
    public var templatesPerRecognition: Double

    private enum CodingKeys: String, CodingKey {
        case protocolName = "protocol"
        case accuracy, tests, perGesture, confusions, checkmark, microsecondsPerRecognition, templatesPerRecognition
    }
}
