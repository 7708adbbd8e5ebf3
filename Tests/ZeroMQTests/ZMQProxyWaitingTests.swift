import Foundation
import Synchronization
import Testing

@testable import ZeroMQ

/// A filtering proxy whose backend subscriber falls a high-water mark behind (`XPUB_NODROP`): its loop turns while
/// the send waits, counts the waits, loses nothing and still takes commands.
@Suite("The filtering proxy waiting for a subscriber behind")
struct ZMQProxyWaitingTests {
    // MARK: - Fixture

    /// What the proxy's turns showed: the most waits counted, and whether a turn came while a send waited.
    struct Seen {
        var waits: UInt64 = 0
        var sawWaiting = false
        var lastWaiting = false
    }

    /// Messages published: far more than the backend's high-water marks (10 on each side of the inproc pipe) hold.
    static let messages = 200

    /// A proxy started by `startProxy`: what its turns show, and a semaphore signalled when it returns.
    final class ProxyRun: Sendable {
        let seen = Mutex(Seen())
        let ended = DispatchSemaphore(value: 0)
    }

    /// Starts a filtering proxy on a thread of its own (`name` makes its endpoints), its backend an `XPUB_NODROP`
    /// with a high-water mark of 10 and a poll of 20 ms.
    static func startProxy(_ context: ZMQContext, _ name: String) -> ProxyRun {
        let run = ProxyRun()
        Thread {
            defer { run.ended.signal() }
            do {
                let frontend = try ZMQSocket(context, .xsub)
                let backend = try ZMQSocket(context, .xpub)
                let control = try ZMQSocket(context, .pair)
                try backend.setHighWaterMarks(send: 10)
                try backend.setNoDrop(true)
                try frontend.bind("inproc://\(name)-in")
                try backend.bind("inproc://\(name)-out")
                try control.bind("inproc://\(name)-control")
                try ZMQProxy.runFiltering(
                    frontend: frontend, backend: backend, control: control, pollMilliseconds: 20,
                    turn: { counts in
                        run.seen.withLock {
                            $0.waits = max($0.waits, counts.waits)
                            $0.sawWaiting = $0.sawWaiting || counts.waiting
                            $0.lastWaiting = counts.waiting
                        }
                    }
                ) { _ in true }
            } catch {
                Issue.record("the proxy failed: \(error)")
            }
        }.start()
        return run
    }

    /// Connects a subscriber (receive high-water mark 10) and a publisher to the proxy `name`, waits until the
    /// subscription went up, then publishes `messages` numbered messages without reading any, and waits (at most
    /// 10 s) until a turn of the proxy shows a send waiting. Returns the subscriber, and whether one did.
    static func flood(_ context: ZMQContext, _ name: String, _ run: ProxyRun) throws -> (ZMQSocket, ZMQSocket, Bool) {
        let subscriber = try ZMQSocket(context, .sub)
        let publisher = try ZMQSocket(context, .pub)
        try subscriber.setHighWaterMarks(receive: 10)
        try ZMQProxyFilteringTests.connectThroughProxy(subscriber, publisher, name)
        for number in 0..<messages { try publisher.send("\(number)") }
        let deadline = Date().addingTimeInterval(10)
        while !run.seen.withLock({ $0.sawWaiting }) && Date() < deadline { usleep(5000) }
        return (subscriber, publisher, run.seen.withLock { $0.sawWaiting })
    }

    // MARK: - Tests

    @Test(
        "the loop turns while a send waits for a subscriber behind, counts the waits, and every message arrives in order"
    )
    func waitsAndDelivers() async throws {
        let context = try ZMQContext()
        let run = Self.startProxy(context, "waiting")
        let (waited, received, terminated) = try await runOnThread { () -> (Bool, [String], Bool) in
            let (subscriber, _, waited) = try Self.flood(context, "waiting", run)
            try subscriber.setTimeouts(receive: 5000)
            var received: [String] = []
            while received.count < Self.messages, let frames = try subscriber.receiveMultipart() {
                received.append(String(decoding: frames.first ?? [], as: UTF8.self))
            }
            let control = try ZMQSocket(context, .pair)
            try control.connect("inproc://waiting-control")
            try control.send("TERMINATE")
            return (waited, received, run.ended.wait(timeout: .now() + 10) == .success)
        }
        #expect(waited, "a turn came while a send waited")
        #expect(run.seen.withLock { $0.waits } >= 1)
        #expect(received == (0..<Self.messages).map { "\($0)" }, "nothing lost, nothing reordered")
        #expect(terminated)
        #expect(!run.seen.withLock { $0.lastWaiting }, "the last turn came after the sends went through")
    }

    @Test("TERMINATE ends the loop while a send waits for a subscriber that never reads")
    func terminatesWhileWaiting() async throws {
        let context = try ZMQContext()
        let run = Self.startProxy(context, "stuck")
        let (waited, terminated) = try await runOnThread { () -> (Bool, Bool) in
            let (subscriber, publisher, waited) = try Self.flood(context, "stuck", run)
            let control = try ZMQSocket(context, .pair)
            try control.connect("inproc://stuck-control")
            try control.send("TERMINATE")
            let terminated = run.ended.wait(timeout: .now() + 10) == .success
            withExtendedLifetime((subscriber, publisher)) {}
            return (waited, terminated)
        }
        #expect(waited)
        #expect(terminated, "libzmq's proxy would stay in its send until the context is shut down")
    }
}
