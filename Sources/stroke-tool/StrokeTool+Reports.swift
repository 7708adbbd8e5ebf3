import Foundation
import StrokeRecognition
import StrokeWorker

// MARK: - Reports over a dataset, one per count

extension StrokeTool {
    /// The counts of the list option `--name` (`defaults` when absent), each in `range`.
    static func counts(_ args: CommandLineArguments, _ name: String, defaults: [Int], range: ClosedRange<Int>)
        throws -> [Int]
    {
        let given = args.values(name)
        guard !given.isEmpty else { return defaults }
        return try given.map { text in
            guard let count = Int(text), range.contains(count) else {
                let bounds =
                    range.upperBound == .max
                    ? "\(range.lowerBound) or more" : "from \(range.lowerBound) to \(range.upperBound)"
                throw CommandLineArguments.Failure(description: "--\(name): not a count \(bounds): \(text)")
            }
            return count
        }
    }

    /// One report per count over the logs of `--dataset` with `--seed` (default 1).
    static func reports<Report>(
        _ args: CommandLineArguments, usage: String, counts: [Int],
        _ report: ([DollarLog], Int, UInt64) throws(RecognitionError) -> Report
    ) throws -> [Report] {
        guard let dataset = args.value("dataset") else {
            throw CommandLineArguments.Failure(description: "--dataset DIR is required\n\n\(usage)")
        }
        let seed: UInt64 = try args.parsed("seed", default: 1)
        let samples = try DollarLog.loadDataset(dataset)
        return try counts.map { count throws(RecognitionError) in try report(samples, count, seed) }
    }

    /// A share as a percentage with two decimals.
    static func percent(_ value: Double) -> String { String(format: "%.2f%%", value * 100) }

    /// The four gestures with the lowest shares, lowest first, as "name share, …".
    static func weakest(_ shares: [String: Double]) -> String {
        shares.sorted { ($0.value, $0.key) < ($1.value, $1.key) }.prefix(4)
            .map { "\($0.key) \(percent($0.value))" }.joined(separator: ", ")
    }

    // MARK: - Leaving one subject out

    /// Each subject's strokes and a library of 8 medoids per gesture built from the other subjects' (as the built-in
    /// library is built), its threshold `minimumScore` and its scores standing for `neighbors` templates, for the
    /// runs that leave one subject out (`robustness`, `thresholds`, `tilt`).
    static func leftOutLibraries(
        _ samples: [DollarLog], dataset: String, minimumScore: Double, neighbors: Int,
        direction: TemplateLibrary.StrokeDirection = .drawn
    ) throws -> [(samples: [DollarLog], library: TemplateLibrary)] {
        let subjects = Set(samples.map(\.subject)).sorted()
        guard subjects.count >= 2 else {
            throw CommandLineArguments.Failure(description: "\(dataset): leaving one subject out needs two or more")
        }
        return try subjects.map { subject throws(RecognitionError) in
            var library = try TemplateLibrary.medoids(
                name: "without-\(subject)", samples: samples.filter { $0.subject != subject }, perGesture: 8)
            library.strokeDirection = direction
            library.minimumScore = minimumScore
            library.neighbors = neighbors
            return (samples: samples.filter { $0.subject == subject }, library: library)
        }
    }
}
