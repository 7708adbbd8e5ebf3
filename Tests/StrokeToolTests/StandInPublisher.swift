import Foundation
import Synchronization
import ZeroMQ

/// A publisher on loopback, in place of a worker's output, that sends the messages it was given once a consumer has
/// subscribed (its XPUB reads the subscription), on a thread of its own: a consumer's handling of messages no worker
/// sends, checked.
final class StandInPublisher: Sendable {
    /// Where the consumer connects.
    let output: String
    private let finished = DispatchSemaphore(value: 0)

    /// Starts the thread, which binds, sends `messages` (each a message's frames) after the first subscription, or
    /// gives up after `timeout` milliseconds, and closes its socket.
    init(_ messages: [[[UInt8]]], timeout: Int32 = 20_000) throws {
        let ready = DispatchSemaphore(value: 0)
        let endpoint = Handoff()
        let finished = self.finished
        Thread {
            defer { finished.signal() }
            var bound = false
            do throws(ZMQError) {
                let socket = try ZMQSocket(try ZMQContext(), .xpub)
                try socket.setLinger(milliseconds: 1000)
                try socket.setTimeouts(receive: timeout)
                try socket.bind("tcp://127.0.0.1:*")
                endpoint.value.withLock { $0 = .success(socket.lastEndpoint) }
                bound = true
                ready.signal()
                guard try socket.receiveMultipart() != nil else { return }
                for message in messages { _ = try socket.sendMultipart(message) }
            } catch  where !bound {
                endpoint.value.withLock { $0 = .failure(error) }
                ready.signal()
            } catch {
                // The consumer then gets nothing and its test fails on what it expected.
            }
        }.start()
        ready.wait()
        output = try endpoint.value.withLock { $0! }.get()
    }

    /// Waits until the messages were sent (or the wait gave up) and the socket closed.
    func wait() { finished.wait() }

    /// The endpoint the thread bound, or why it could not, handed to the test's thread.
    private final class Handoff: Sendable {
        let value = Mutex<Result<String, ZMQError>?>(nil)
    }
}
