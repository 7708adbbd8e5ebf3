import StrokeProtocol
import StrokeRecognition
import StrokeWorker
import Testing

@testable import stroke_bench

/// The benchmark's traffic, fed to the session processor the way the processor section feeds it.
@Suite("stroke-bench traffic")
struct TrafficTests {
    /// Events the processor publishes for `traffic`, handed over in batches as the lane hands them.
    static func events(of traffic: Traffic) throws -> Int {
        var processor = SessionProcessor(
            sink: CountingSink(), configuration: WorkerConfiguration(),
            registry: try LibraryRegistry([try TemplateLibrary.builtIn()]), metrics: WorkerMetrics())
        let frames = traffic.frameCopies()
        let limit = SessionProcessor<CountingSink>.batchLimit
        for start in stride(from: 0, to: traffic.count, by: limit) {
            frames.withBatch(start..<min(start + limit, traffic.count)) { processor.handleCounting(batch: $0) }
        }
        return processor.sink.events
    }

    /// `--checkmark off` measures the worker without the detector: each session's first message is an `options`
    /// message that turns it off, so the check-like synthetic strokes get their results and no checkmark event.
    @Test("with --checkmark off each session turns its detector off first", arguments: [true, false])
    func checkmarkOption(checkmark: Bool) throws {
        let sessions = 4
        let traffic = Traffic.make(
            strokes: Traffic.strokes(dataset: nil), sessions: sessions, pointsPerMessage: 32, encoding: .binary,
            messages: 200, prefix: "t-", checkmark: checkmark)
        try #require(traffic.ends.count >= sessions)
        for index in 0..<sessions {
            let message = try InputDecoder().decode(traffic.payloads[index])
            if checkmark {
                #expect(message.kind == .begin)
            } else {
                #expect(message.kind == .options && message.options?.checkmark == false && message.sequence == 1)
            }
        }
        let events = try Self.events(of: traffic)
        if checkmark {
            // Every synthetic stroke is drawn like a check, and the detector fires on it.
            #expect(events == 2 * traffic.ends.count)
        } else {
            #expect(events == traffic.ends.count)
        }
    }
}
