import Synchronization
import ZeroMQ

@testable import stroke_bench

/// A SUB socket on a thread of its own, bound to a free loopback port, that counts two-frame messages: it answers
/// a producer's connection while the test's thread waits in the producer's set-up for the subscription.
final class SubscriberCounter: Sendable {
    private let bound = Mutex<String?>(nil)

    /// Binds, then receives until `count` messages arrived or none came for 60 s; returns how many arrived.
    /// `configure` sets the socket's options first.
    ///
    /// 60 s, longer than the producer waits for the subscription (20 s): tests that block the cooperative pool's
    /// two threads here (processes waited for, benchmarks run in place) may hold up the test's producer for
    /// seconds. The one failure seen (`no subscriber at …` after 31 s, session 37) fits a sink that gave up after
    /// the 10 s it had then and a producer that came about 11 s late.
    func run(
        context: ZMQContext, count: Int, configure: @escaping @Sendable (ZMQSocket) throws -> Void = { _ in }
    ) async throws -> Int {
        try await onThread { () throws -> Int in
            let sink = try ZMQSocket(context, .sub)
            try configure(sink)
            try sink.subscribe("")
            try sink.setTimeouts(receive: 60_000)
            try sink.bind("tcp://127.0.0.1:*")
            self.bound.withLock { $0 = sink.lastEndpoint }
            var received = 0
            while received < count, try sink.receiveMultipart() != nil { received += 1 }
            return received
        }
    }

    /// The endpoint, once `run` has bound it.
    func endpoint() async throws -> String {
        while true {
            if let endpoint = bound.withLock({ $0 }) { return endpoint }
            try await Task.sleep(for: .milliseconds(1))
        }
    }
}
