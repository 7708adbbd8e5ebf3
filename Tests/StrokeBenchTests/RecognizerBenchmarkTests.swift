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
}
