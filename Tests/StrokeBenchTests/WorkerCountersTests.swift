import Foundation
import Testing

@testable import stroke_bench

/// The worker's counters as the throughput section reads them: from the line it logs as it stops.
@Suite("stroke-bench worker counters")
struct WorkerCountersTests {
    @Test("the last complete line with the marker gives its integer fields")
    func parsesTheLastCompleteLine() {
        let tail = ErrorTail()
        tail.append(Data("info [w] stopped helperWaits=1 lanes=1\n".utf8))
        tail.append(Data("info [w] stopped helperWaits=7 helperWaitMicroseconds=35000 name=x lanes=1\n".utf8))
        tail.append(Data("info [w] stopped helperWaits=9".utf8))  // not yet a whole line
        #expect(tail.counters(after: "] stopped ") == ["helperWaits": 7, "helperWaitMicroseconds": 35_000, "lanes": 1])
        #expect(ErrorTail().counters(after: "] stopped ") == nil)
    }

    @Test("only the last bytes are kept")
    func keepsTheTail() {
        let tail = ErrorTail()
        tail.append(Data(String(repeating: "x", count: ErrorTail.limit).utf8))
        tail.append(Data("\n] stopped waits=3\n".utf8))
        #expect(tail.counters(after: "] stopped ") == ["waits": 3])
    }

    @Test("the helper's waits per second, their share of the run and the strokes handed over")
    func helperWaits() throws {
        let counters = ["helperWaits": 50, "helperWaitMicroseconds": 100_000, "strokesOffloaded": 900]
        let waits = try #require(WorkerBenchmarks.HelperWaits(counters: counters, seconds: 0.5, strokes: 1_000))
        #expect(waits.perSecond == 100)
        #expect(abs(waits.share - 0.2) < 1e-12)
        #expect(waits.strokesOffloaded == 0.9)
        #expect(WorkerBenchmarks.HelperWaits(counters: ["helperWaits": 1], seconds: 1, strokes: 1) == nil)
        #expect(WorkerBenchmarks.HelperWaits(counters: counters, seconds: 0, strokes: 1) == nil)
    }

    @Test("results that did not arrive are explained by what the worker counted: drops, gaps and errors")
    func lossReport() {
        let counters = [
            "messagesReceived": 3_000_000, "strokesRecognized": 616_778, "eventsPublished": 611_328,
            "eventsDropped": 5_450, "inputGaps": 0,
            "errors.too_many_open_strokes": 2, "errors.bad_message": 0, "lanes": 1,
        ]
        #expect(
            WorkerBenchmarks.lossReport(counters, messages: 3_000_000)
                == "the worker received 3000000 of 3000000 messages, recognized 616778 strokes, "
                + "published 611328 events and dropped 5450 (with --slow-consumers wait, for a consumer that did not "
                + "keep up within --send-timeout; by default a consumer that falls --hwm events behind misses them "
                + "uncounted), and saw 0 gaps in the input's numbering; errors: too_many_open_strokes 2")
        #expect(WorkerBenchmarks.lossReport(nil, messages: 1) == "the worker logged no counters as it stopped")
    }

    @Test("a child that logs nothing is given up on at the timeout, with an error that says what was awaited")
    func silentChild() throws {
        let child = try ChildProcess("/bin/sh", ["-c", "trap 'exit 0' TERM; while :; do sleep 0.05; done"])
        defer { _ = child.terminate() }
        // Before the bound the call never returned: the child writes nothing and never exits.
        #expect {
            try child.waitForLine(containing: "listening", timeout: 0.3)
        } throws: { error in
            "\(error)".contains("did not log \"listening\" within 1 s") && "\(error)".contains("it wrote nothing")
        }
    }

    @Test("a child is kept for stopAll() from its start until it has been waited for")
    func childrenLeftRunning() throws {
        let child = try ChildProcess("/bin/sh", ["-c", "trap 'exit 0' TERM; while :; do sleep 0.05; done"])
        #expect(child.awaitsStop)
        #expect(child.terminate() == 0)
        #expect(!child.awaitsStop)
        let finished = try ChildProcess("/bin/sh", ["-c", "echo done"])
        #expect(finished.output() == "done\n")
        #expect(!finished.awaitsStop)
    }

    @Test("a child's counters are read from what it logs as SIGTERM stops it")
    func readsAStoppedChild() throws {
        let script = """
            trap 'echo "info [w] stopped helperWaits=4 strokesOffloaded=12" >&2; exit 0' TERM
            echo "info [w] listening endpoints=input:tcp://127.0.0.1:1 output:tcp://127.0.0.1:2" >&2
            while :; do sleep 0.05; done
            """
        let child = try ChildProcess("/bin/sh", ["-c", script])
        let endpoints = try child.workerEndpoints()
        #expect(endpoints.input == "tcp://127.0.0.1:1")
        #expect(child.stopAndReadCounters() == ["helperWaits": 4, "strokesOffloaded": 12])
    }
}
