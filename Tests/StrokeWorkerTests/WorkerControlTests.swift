import Foundation
import Testing

@testable import StrokeWorker

@Suite("the worker's stop (WorkerControl)")
struct WorkerControlTests {
    @Test("the time since the stop is measured from its first request, and -1 (--linger -1) never runs out")
    func stoppedLongerThan() throws {
        let control = WorkerControl()
        #expect(!control.isStopping)
        #expect(!control.stoppedLongerThan(milliseconds: 0))
        #expect(!control.stoppedLongerThan(milliseconds: -1))
        control.requestStop()
        let first = control.stopRequested.load(ordering: .relaxed)
        Thread.sleep(forTimeInterval: 0.005)
        control.requestStop()
        #expect(control.isStopping)
        #expect(control.stopRequested.load(ordering: .relaxed) == first)
        #expect(control.stoppedLongerThan(milliseconds: 0))
        #expect(control.stoppedLongerThan(milliseconds: 1))
        #expect(!control.stoppedLongerThan(milliseconds: 600_000))
        // libzmq's linger of -1 keeps unsent messages until they are sent: a lane's sends that wait for a slow
        // consumer must go on waiting after the stop too, rather than stop at once (as they did until session 78).
        #expect(!control.stoppedLongerThan(milliseconds: -1))
        #expect(!control.stoppedLongerThan(milliseconds: Int32.min))
    }
}
