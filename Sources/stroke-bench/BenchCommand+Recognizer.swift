import Foundation
import StrokeWorker

// MARK: - The recognizer section

extension BenchCommand {
    /// The recognizer section: µs per recognition by library size (`--templates`), along with a session's learned
    /// templates (`--learned`), among some of the built-in library's gestures (`--among`), with cold caches
    /// (`--cold-sweep`), and the checkmark detector's ns per point; each the median of `runs`.
    static func runRecognizer(
        _ args: CommandLineArguments, dataset: String?, runs: Int, quick: Bool, coldSweep: Int,
        into report: inout Report
    ) throws {
        let names =
            args.values("templates").isEmpty ? ["builtin", "16", "48", "1000", "10000"] : args.values("templates")
        var sizes = [Int]()
        for name in names where name != "builtin" {
            guard let size = Int(name), size > 0 else { throw BenchError.usage("--templates: not a size: \(name)") }
            sizes.append(size)
        }
        var all = [[RecognizerBenchmark.Row]]()
        for _ in 0..<runs {
            all.append(
                try RecognizerBenchmark.run(
                    sizes: sizes, dataset: dataset, minimumSeconds: quick ? 0.5 : 1,
                    builtIn: names.contains("builtin"))
            )
        }
        report.recognizer = (0..<all[0].count).map { index in median(all.map { $0[index] }, by: \.microseconds) }
        let learnedCounts = try (args.values("learned").isEmpty ? ["1", "32"] : args.values("learned")).map {
            guard let count = Int($0), count >= 0 else { throw BenchError.usage("--learned: not a count: \($0)") }
            return count
        }.filter { $0 > 0 }
        if !learnedCounts.isEmpty {
            let learned = try (0..<runs).map { _ in
                try RecognizerBenchmark.run(
                    learned: learnedCounts, dataset: dataset, minimumSeconds: quick ? 0.5 : 1)
            }
            report.recognizerLearned = (0..<learned[0].count).map { index in
                median(learned.map { $0[index] }, by: \.microseconds)
            }
            for row in report.recognizerLearned! {
                log(
                    String(
                        format: "recognizer: built-in along with %d learned: %.2f µs", row.learned ?? 0,
                        row.microseconds))
            }
        }
        let amongCounts = try (args.values("among").isEmpty ? ["1", "4", "8"] : args.values("among")).map {
            guard let count = Int($0), count >= 0 else { throw BenchError.usage("--among: not a count: \($0)") }
            return count
        }.filter { $0 > 0 }
        if !amongCounts.isEmpty {
            let among = try (0..<runs).map { _ in
                try RecognizerBenchmark.run(among: amongCounts, dataset: dataset, minimumSeconds: quick ? 0.5 : 1)
            }
            report.recognizerAmong = (0..<among[0].count).map { index in
                median(among.map { $0[index] }, by: \.microseconds)
            }
            for row in report.recognizerAmong! {
                log(
                    String(
                        format: "recognizer: built-in among %d gestures: %.2f µs", row.among ?? 0, row.microseconds)
                )
            }
        }
        if coldSweep > 0 {
            let cold = try (0..<runs).map { _ in
                try RecognizerBenchmark.run(
                    sizes: sizes, dataset: dataset, minimumSeconds: 0, builtIn: names.contains("builtin"),
                    sweepMegabytes: coldSweep)
            }
            report.recognizerCold = (0..<cold[0].count).map { index in
                median(cold.map { $0[index] }, by: \.microseconds)
            }
            for row in report.recognizerCold! {
                log(String(format: "recognizer, cold: %5d templates: %.2f µs", row.templates, row.microseconds))
            }
        }
        let detector = (0..<runs).map { _ in
            DetectorBenchmark.nanosecondsPerPoint(dataset: dataset, minimumSeconds: quick ? 0.5 : 1)
        }
        report.detectorNanosecondsPerPoint = median(detector, by: { $0 })
        let single = (0..<runs).map { _ in
            DetectorBenchmark.nanosecondsPerPoint(
                dataset: dataset, minimumSeconds: quick ? 0.5 : 1, onePointAtATime: true)
        }
        report.detectorNanosecondsPerSinglePoint = median(single, by: { $0 })
        log(
            String(
                format: "checkmark detector: %.1f ns per point in whole strokes, %.1f one point at a time",
                report.detectorNanosecondsPerPoint!, report.detectorNanosecondsPerSinglePoint!))
        for row in report.recognizer {
            log(
                String(
                    format: "recognizer: %5d templates%@: %.2f µs", row.templates,
                    row.templates == 128 ? " (built-in)" : "", row.microseconds))
        }
    }
}
