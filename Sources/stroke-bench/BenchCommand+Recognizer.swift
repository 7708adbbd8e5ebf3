import Foundation
import StrokeWorker

// MARK: - The recognizer section

extension BenchCommand {
    /// What the recognizer section measures (`--templates`, `--learned`, `--among`), read before any section runs:
    /// a bad value found in the section ended a full run only after the sections before it, about 80 s.
    struct RecognizerChoices {
        /// Sizes of the generated libraries.
        var sizes: [Int]
        /// Whether the built-in library is measured too (`builtin` among `--templates`).
        var builtIn: Bool
        /// Counts of a session's learned templates measured along with the built-in library; none: not measured.
        var learned: [Int]
        /// Counts of the built-in library's gestures a session chose, measured; none: not measured.
        var among: [Int]

        /// Reads the options; the defaults where they are not given.
        ///
        /// - Throws: `BenchError.usage` naming the option and the value that is no size or count.
        init(_ args: CommandLineArguments) throws {
            let names =
                args.values("templates").isEmpty ? ["builtin", "16", "48", "1000", "10000"] : args.values("templates")
            builtIn = names.contains("builtin")
            sizes = try names.filter { $0 != "builtin" }.map { name in
                guard let size = Int(name), size > 0 else { throw BenchError.usage("--templates: not a size: \(name)") }
                return size
            }
            func counts(_ option: String, default defaults: [String]) throws -> [Int] {
                try (args.values(option).isEmpty ? defaults : args.values(option)).map {
                    guard let count = Int($0), count >= 0 else {
                        throw BenchError.usage("--\(option): not a count: \($0)")
                    }
                    return count
                }.filter { $0 > 0 }
            }
            learned = try counts("learned", default: ["1", "32"])
            among = try counts("among", default: ["1", "4", "8"])
        }
    }

    /// The recognizer section: µs per recognition by library size (`--templates`), along with a session's learned
    /// templates (`--learned`), among some of the built-in library's gestures (`--among`), with cold caches
    /// (`--cold-sweep`), and the checkmark detector's ns per point; each the median of `runs`.
    static func runRecognizer(
        _ choices: RecognizerChoices, dataset: String?, runs: Int, quick: Bool, coldSweep: Int,
        into report: inout Report
    ) throws {
        var all = [[RecognizerBenchmark.Row]]()
        for _ in 0..<runs {
            all.append(
                try RecognizerBenchmark.run(
                    sizes: choices.sizes, dataset: dataset, minimumSeconds: quick ? 0.5 : 1,
                    builtIn: choices.builtIn)
            )
        }
        report.recognizer = (0..<all[0].count).map { index in median(all.map { $0[index] }, by: \.microseconds) }
        if !choices.learned.isEmpty {
            let learned = try (0..<runs).map { _ in
                try RecognizerBenchmark.run(
                    learned: choices.learned, dataset: dataset, minimumSeconds: quick ? 0.5 : 1)
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
        if !choices.among.isEmpty {
            let among = try (0..<runs).map { _ in
                try RecognizerBenchmark.run(among: choices.among, dataset: dataset, minimumSeconds: quick ? 0.5 : 1)
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
                    sizes: choices.sizes, dataset: dataset, minimumSeconds: 0, builtIn: choices.builtIn,
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
