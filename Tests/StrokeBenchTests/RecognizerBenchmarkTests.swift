import Foundation
import StrokeRecognition
import Testing

@testable import stroke_bench

@Suite("stroke-bench recognizer section")
struct RecognizerBenchmarkTests {
    @Test("cold rows name their sweep and come in the order of the warm ones, one per library")
    func coldRows() throws {
        let warm = try RecognizerBenchmark.run(sizes: [16, 48], dataset: nil, minimumSeconds: 0, builtIn: true)
        let cold = try RecognizerBenchmark.run(
            sizes: [16, 48], dataset: nil, minimumSeconds: 0, builtIn: true, sweepMegabytes: 1)
        #expect(warm.map(\.templates) == [try TemplateLibrary.builtIn().templates.count, 16, 48])
        #expect(cold.map(\.templates) == warm.map(\.templates))
        #expect(warm.allSatisfy { $0.sweepMegabytes == nil && $0.microseconds > 0 })
        #expect(cold.allSatisfy { $0.sweepMegabytes == 1 && $0.microseconds > 0 && $0.microseconds.isFinite })
    }

    @Test("learned rows: the built-in library along with each count of learned templates, in order")
    func learnedRows() throws {
        let rows = try RecognizerBenchmark.run(learned: [1, 32], dataset: nil, minimumSeconds: 0)
        #expect(rows.map(\.learned) == [1, 32])
        #expect(rows.allSatisfy { $0.templates == 128 && $0.microseconds > 0 && $0.microseconds.isFinite })
    }

    @Test("among rows: the built-in library recognizing among each count of its gestures, in order")
    func amongRows() throws {
        let rows = try RecognizerBenchmark.run(among: [1, 4, 8], dataset: nil, minimumSeconds: 0)
        #expect(rows.map(\.among) == [1, 4, 8])
        #expect(rows.allSatisfy { $0.templates == 128 && $0.microseconds > 0 && $0.microseconds.isFinite })
    }

    @Test("the data set: a --dataset without one is an error; without the default one, synthetic strokes")
    func datasetOrSynthetic() throws {
        let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("StrokeRecognitionTests/Fixtures/dollar1-mini").path
        #expect(try BenchCommand.dataset(explicit: fixtures) == fixtures)
        #expect(try BenchCommand.dataset(explicit: nil, default: fixtures) == fixtures)
        #expect(try BenchCommand.dataset(explicit: nil, default: fixtures + "/no-such-directory") == nil)
        // Named on purpose, a directory without the data set (missing, or holding no gesture logs) is refused.
        for missing in [
            fixtures + "/no-such-directory", URL(fileURLWithPath: #filePath).deletingLastPathComponent().path,
        ] {
            let error = #expect(throws: BenchError.self) { try BenchCommand.dataset(explicit: missing) }
            #expect(error?.isUsage == true)
            #expect(error?.description.hasPrefix("--dataset \(missing): no data set there (") == true)
        }
        // A report records where its strokes came from: synthetic until a data set is found.
        #expect(
            BenchCommand.Report(
                runs: 1, quick: true, checkmark: true, curve: false, throughput: [], latency: nil, memory: nil,
                recognizer: [], processor: [], cluster: []
            ).strokes == "synthetic")
    }

    @Test("every option the usage text lists is accepted, and no other")
    func optionsMatchUsage() throws {
        // Options at the start of a line, or in the usage line; an example of a worker's option is quoted.
        let listed = Set(
            BenchCommand.usage.split(whereSeparator: { !$0.isLetter && $0 != "-" && $0 != "\"" })
                .filter { $0.hasPrefix("--") }.map { String($0.dropFirst(2)) })
        #expect(listed.union(["help"]) == BenchCommand.optionNames)
    }
}
