import Testing

@testable import StrokeWorker

@Suite("Open files limit")
struct OpenFileLimitTests {
    @Test("raising goes to the hard limit and no further; a second time changes nothing")
    func raise() throws {
        let first = try #require(OpenFileLimit.raise())
        #expect(first.after >= first.before)
        #expect(OpenFileLimit.current == first.after)
        let second = try #require(OpenFileLimit.raise())
        #expect(second.before == first.after && second.after == first.after)
    }

    @Test("the files open now are counted, within the limit")
    func openCount() throws {
        let open = try #require(OpenFileLimit.openCount())
        // The test runner's own files at least (standard input, output and error may be closed).
        #expect(open >= 1)
        #expect(open <= (OpenFileLimit.current ?? .max))
    }

    @Test("both are in the worker's counters and on /metrics as the usual process gauges")
    func counted() {
        let metrics = WorkerMetrics()
        #expect((metrics.snapshot["openFiles"] ?? 0) >= 1)
        #expect((metrics.snapshot["openFilesLimit"] ?? 0) >= 1)
        let text = metrics.prometheusText(labels: [])
        #expect(text.contains("# TYPE process_open_fds gauge\nprocess_open_fds "))
        #expect(text.contains("# TYPE process_max_fds gauge\nprocess_max_fds "))
    }
}
