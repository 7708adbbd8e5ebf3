import Foundation
import StrokeProtocol
import StrokeRecognition
import Synchronization
import Testing

@testable import StrokeWorker

@Suite("Worker building blocks")
struct WorkerUnitTests {
    @Test("background work runs on a thread of its own that gets the cores only when nothing else wants them")
    func runWhenIdle() {
        let caller = pthread_self()
        let (policy, sameThread, value) = ThreadRunner.runWhenIdle(name: "test-idle") {
            (sched_getscheduler(0), pthread_equal(pthread_self(), caller) != 0, 42)
        }
        #expect(value == 42 && !sameThread)
        #if os(Linux)
            #expect(policy == 5, "SCHED_IDLE")
        #endif
        #expect(sched_getscheduler(0) != 5, "the caller keeps its priority")
    }

    @Test("a thread started by another is called by its own name from its first line, not by its starter's")
    func threadNames() {
        let names = Mutex<[String]>([])
        let done = DispatchSemaphore(value: 0)
        let count = 500
        ThreadRunner.start(name: "test-starter") {
            for index in 0..<count {
                ThreadRunner.start(name: "test-\(index)") {
                    let name =
                        (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8))?
                        .trimmingCharacters(in: .newlines) ?? ""
                    names.withLock { $0.append(name) }
                    done.signal()
                }
            }
        }
        for _ in 0..<count { done.wait() }
        let wrong = names.withLock { $0 }.filter { !$0.hasPrefix("test-") || $0 == "test-starter" }
        #expect(names.withLock { $0.count } == count)
        #expect(wrong.isEmpty, "\(wrong.count) of \(count) threads had another name: \(Set(wrong))")
        #expect(Set(names.withLock { $0 }).count == count, "each its own")
    }

    @Test("sequence tracker transitions")
    func sequence() {
        var tracker = SequenceTracker()
        #expect(tracker.receive(1) == .accept)
        #expect(tracker.receive(2) == .accept)
        #expect(tracker.receive(2) == .rejectDuplicate)
        #expect(tracker.receive(5) == .acceptAfterGap(expected: 3, missing: 2))
        #expect(tracker.receive(4) == .rejectLate(last: 5))
        #expect(tracker.receive(6) == .accept)
        // 1 after a larger number: the producer started over, and its numbering goes on from 1.
        #expect(tracker.receive(1) == .restart(last: 6))
        #expect(tracker.receive(1) == .rejectDuplicate)
        #expect(tracker.receive(2) == .accept)
        var fresh = SequenceTracker()
        #expect(fresh.receive(9) == .acceptAfterReset(sequence: 9))
        #expect(fresh.receive(10) == .accept)
        // A corrupted number: message 3 arrives numbered 1000. Message 4 is late, as any smaller number is; message
        // 5, next to it, shows 1000 to be out of line, and the numbering goes on.
        var stray = SequenceTracker()
        #expect(stray.receive(1) == .accept)
        #expect(stray.receive(2) == .accept)
        #expect(stray.receive(1000) == .acceptAfterGap(expected: 3, missing: 997))
        #expect(stray.receive(4) == .rejectLate(last: 1000))
        #expect(stray.receive(5) == .acceptAfterStray(stray: 1000, missing: 997))
        #expect(stray.receive(6) == .accept)
        // A stray message between two others: 7 and 8 go on from before it.
        #expect(stray.receive(500) == .acceptAfterGap(expected: 7, missing: 493))
        #expect(stray.receive(7) == .rejectLate(last: 500))
        #expect(stray.receive(8) == .acceptAfterStray(stray: 500, missing: 493))
        // A swap: one message after a gap continues the numbering before it, and the next goes on from the gap.
        #expect(stray.receive(10) == .acceptAfterGap(expected: 9, missing: 1))
        #expect(stray.receive(9) == .rejectLate(last: 10))
        #expect(stray.receive(11) == .accept)
        // Only numbers in a row decide, right after the gap's late message.
        #expect(stray.receive(30) == .acceptAfterGap(expected: 12, missing: 18))
        #expect(stray.receive(12) == .rejectLate(last: 30))
        #expect(stray.receive(30) == .rejectDuplicate)
        #expect(stray.receive(13) == .rejectLate(last: 30))
        #expect(stray.receive(40) == .acceptAfterGap(expected: 31, missing: 9))
        #expect(stray.receive(32) == .rejectLate(last: 40))
        #expect(stray.receive(34) == .rejectLate(last: 40))
        #expect(stray.receive(35) == .rejectLate(last: 40))
        // Far past the gap's start (over 255), a late message does not start the check.
        #expect(stray.receive(1000) == .acceptAfterGap(expected: 41, missing: 959))
        #expect(stray.receive(400) == .rejectLate(last: 1000))
        #expect(stray.receive(401) == .rejectLate(last: 1000))
    }

    @Test("stroke storage keeps the points and the detector's state when it grows, and forgets them on reset")
    func strokeStorage() throws {
        // A check drawn in batches of 7 points: down-right for 60 points, then up-right for 120, speeding up (its
        // distance grows as the square of the time), so that it fires early on the times the storage keeps.
        let points = (0..<180).map { k -> WirePoint in
            let along = Double(k)
            if k < 60 { return WirePoint(x: along, y: along, t: along) }
            return WirePoint(x: along, y: 60 - 1.5 * (along - 60), t: 60 + 120 * ((along - 60) / 120).squareRoot())
        }
        let strokePoints = points.map { StrokePoint(x: $0.x, y: $0.y, time: $0.t) }
        var detector = CheckmarkDetector()
        let expected = detector.add(contentsOf: strokePoints)
        #expect(expected != nil)
        var withoutSpeed = CheckmarkDetector(configuration: CheckmarkConfiguration(earlyFireFactor: 1))
        #expect(try #require(expected).pointIndex < withoutSpeed.add(contentsOf: strokePoints)?.pointIndex ?? 0)
        var storage = StrokeStorage.make(pointCapacity: 4, detector: CheckmarkDetector.State())
        var fired: CheckmarkDetector.Detection?
        for start in stride(from: 0, to: points.count, by: 7) {
            let batch = Array(points[start..<min(start + 7, points.count)])
            if storage.header.pointCount + batch.count > storage.header.pointCapacity {
                storage = storage.grown(toHold: storage.header.pointCount + batch.count)
            }
            batch.withUnsafeBufferPointer { storage.append($0) }
            let detection = batch.withUnsafeBufferPointer {
                storage.detectAppended(batch.count, times: .init($0, time: \.t))
            }
            fired = fired ?? detection
        }
        #expect(fired == expected)
        #expect(storage.header.detector.pointCount == points.count)
        #expect(storage.header.pointCapacity >= points.count)
        storage.withPoints { stored in
            #expect(stored.count == points.count)
            #expect(zip(stored, points).allSatisfy { $0 == SIMD2($1.x, $1.y) })
        }
        storage.reset()
        #expect(storage.header.pointCount == 0)
        #expect(storage.header.detector.detection == nil)
        #expect(storage.header.detector.pointCount == 0)
    }

    @Test("lifecycle transitions")
    func lifecycle() {
        var lifecycle = WorkerLifecycle()
        #expect(lifecycle.start() == .startThreads)
        #expect(lifecycle.start() == .none)
        #expect(lifecycle.lanesReady() == .announceReady)
        #expect(lifecycle.shutdownRequested() == .stopIntake)
        #expect(lifecycle.shutdownRequested() == .none)
        #expect(lifecycle.lanesFinished() == .finish)
        #expect(lifecycle.state == .stopped)
        var early = WorkerLifecycle()
        #expect(early.shutdownRequested() == .none)
        #expect(early.state == .stopped)
    }

    @Test("a registry's independent copy resolves every slot to the same library, name and results")
    func registryCopy() throws {
        var custom = TemplateLibrary(name: "a-library-with-a-long-name", orientation: .invariant)
        let builtIn = try TemplateLibrary.builtIn()
        for template in builtIn.templates.prefix(16) { custom.add(template) }
        let registry = try LibraryRegistry([builtIn, custom])
        let copy = registry.independentCopy()
        #expect(copy.entries.map(\.name) == registry.entries.map(\.name))
        let stroke = builtIn.templates[40].points
        for library in Int32(0)...1 {
            for invariant in [nil, true, false] {
                let slot = LibraryRegistry.Slot(library: library, invariant: invariant)
                #expect(copy.name(slot) == registry.name(slot))
                #expect(copy.recognizer(slot).library == registry.recognizer(slot).library)
                #expect(
                    try copy.recognizer(slot).recognize(points: stroke)
                        == registry.recognizer(slot).recognize(points: stroke))
            }
        }
    }

    @Test("a lane counts as saturated only after a window in which it waited at most a tenth of the time")
    func laneLoad() {
        let start = ContinuousClock.now
        var load = LaneLoad(now: start)
        // Half the window spent waiting: not saturated.
        load.waited(from: start, to: start + .milliseconds(5))
        #expect(!load.saturated)
        load.waited(from: start + .milliseconds(8), to: start + .milliseconds(10))
        #expect(!load.saturated)
        // The next window: 0.5 ms of 10 ms waiting. Nothing changes until the window is complete.
        load.waited(from: start + .milliseconds(12), to: start + .microseconds(12_500))
        #expect(!load.saturated)
        load.waited(from: start + .milliseconds(20), to: start + .milliseconds(20))
        #expect(load.saturated)
        // Idle again: a long wait ends saturation at once, since it closes its window.
        load.waited(from: start + .milliseconds(21), to: start + .milliseconds(121))
        #expect(!load.saturated)
    }
}
