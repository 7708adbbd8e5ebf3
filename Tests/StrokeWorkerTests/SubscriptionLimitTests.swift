import CZeroMQ
import Foundation
import StrokeProtocol
import Testing
import ZeroMQ

@testable import StrokeWorker

@Suite("Cutting a consumer whose subscriptions pass --max-subscription-bytes")
struct SubscriptionLimitTests {
    /// Who owns the worker's output socket.
    enum Owner: String, CaseIterable, Sendable {
        case lane, publisherThread, outputForwarder
    }

    /// Room for 24 prefixes of 100 bytes (164 each as counted).
    static let limit = 4096

    @Test("a worker that connects its output (to a results proxy) counts none of the subscriptions it receives there")
    func connectedOutputIsNotCounted() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sublimit-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let address = "ipc://\(directory.path)/results"
        try await withWorker({
            $0.outputs = [.init(bind: false, address: address)]
            $0.maxSubscriptionBytes = Self.limit
            $0.logLevel = .error
        }) { input, _, worker in
            let answered = try await onThread { () -> Bool in
                let context = try ZMQContext()
                // The results proxy's side: all its subscribers' prefixes, four times the limit, on one connection.
                let proxy = try ZMQSocket(context, .xsub)
                try proxy.setLinger(milliseconds: 0)
                try proxy.setTimeouts(receive: 50)
                try proxy.bind(address)
                for index in 0..<100 {
                    let prefix = "followed-\(index)-".padding(toLength: 100, withPad: "f", startingAt: 0)
                    _ = try proxy.send([1] + Array(prefix.utf8))
                }
                _ = try proxy.send([1] + Array("probe-proxy".utf8))
                let producer = try ZMQSocket(context, .xpub)
                try producer.setLinger(milliseconds: 0)
                try producer.connect(input)
                let topic = Array(ShardKey.topic(for: "probe-proxy").utf8)
                for _ in 0..<200 {
                    _ = try producer.sendMultipart([topic, Array(#"{"type":"ping"}"#.utf8)])
                    if try proxy.receiveMultipart() != nil { return true }
                }
                return false
            }
            #expect(answered, "the worker published nothing to its results proxy")
            #expect(worker.metrics.subscribersCut.load(ordering: .relaxed) == 0)
        }
    }

    /// The kinds of the next two events of `session` the client's consumer receives, the others passed over (the
    /// probes' pongs, which it receives too).
    static func events(of session: String, from client: TestClient) throws -> [String] {
        var kinds: [String] = []
        for _ in 0..<1000 where kinds.count < 2 {
            let (topic, event) = try client.events(1)[0]
            if topic == session { kinds.append(event["event"] as! String) }
        }
        return kinds
    }

    /// Pings the probe session `probe-holder-N` of each of `consumers` (N from `first` on) through `client`'s
    /// producer until the consumer receives its pong: the worker then has every subscription it sent before.
    static func ping(_ consumers: [ZMQSocket], through client: TestClient, first: Int = 0) throws {
        for (index, consumer) in consumers.enumerated() {
            try consumer.setTimeouts(receive: 50)
            var answered = false
            for _ in 0..<200 where !answered {
                try client.send(session: "probe-holder-\(first + index)", #"{"type":"ping"}"#)
                answered = try consumer.receiveMultipart() != nil
            }
            guard answered else { throw TestFailure("consumer \(first + index) received no pong") }
            while try consumer.receiveMultipart(dontWait: true) != nil {}
        }
    }

    @Test(
        "a consumer subscribing to ever more prefixes is cut; one that lets each go, and one under the limit, stay",
        arguments: Owner.allCases)
    func greedyConsumerIsCut(owner: Owner) async throws {
        let messages = try WorkerIntegrationTests.checkMessages()
        try await withWorker({
            $0.lanes = owner == .outputForwarder ? 2 : 1
            $0.recognitionThread = owner == .publisherThread
            $0.maxSubscriptionBytes = Self.limit
            $0.logLevel = .error
        }) { input, output, worker in
            let metrics = worker.metrics
            let (cutsBeforeAttack, cutsAfter, events) = try await onThread { () -> (Int, Int, [String]) in
                let context = try ZMQContext()
                let staying = try TestClient(context: context, input: input, output: output)
                // Five consumers that each follow 24 sessions (3,936 bytes as counted, under the limit)...
                let sessions = (0..<120).map {
                    "session-\($0)-".padding(toLength: 100, withPad: "c", startingAt: 0)
                }
                var holders: [ZMQSocket] = []
                for group in 0..<5 {
                    let holder = try ZMQSocket(context, .sub)
                    try holder.setLinger(milliseconds: 0)
                    for session in sessions[(group * 24)..<(group * 24 + 24)] { try holder.subscribe(session) }
                    try holder.subscribe("probe-holder-\(group)")
                    try holder.connect(output)
                    holders.append(holder)
                }
                // ...which the worker has once each receives the pong of its probe, subscribed last.
                try Self.ping(holders, through: staying)
                // A consumer that follows the same 120 sessions in turn, letting each go before the next: five times
                // the limit, never more than one held at a time. Each of its unsubscriptions leaves the session to
                // another consumer, so that libzmq passes it up only when told to pass up every one
                // (`ZMQ_XPUB_VERBOSER`).
                let churner = try ZMQSocket(context, .sub)
                try churner.setLinger(milliseconds: 0)
                try churner.connect(output)
                for session in sessions {
                    try churner.subscribe(session)
                    try churner.unsubscribe(Array(session.utf8))
                }
                try churner.subscribe("probe-holder-5")
                try Self.ping([churner], through: staying, first: 5)
                // The staying consumer receives a stroke's events; by then the owner of the output socket, which
                // reads its subscriptions once a turn, has read the churner's last ones.
                for message in messages { try staying.send(session: "before", message) }
                _ = try Self.events(of: "before", from: staying)
                Thread.sleep(forTimeInterval: 0.2)
                let cutsBeforeAttack = metrics.subscribersCut.load(ordering: .relaxed)
                // A raw subscriber that never connects again once cut sends distinct prefixes of 100 bytes, 164 each
                // as counted, up to the first past the limit: nothing of it is left for the worker to read once it
                // is cut. (What was left would be read with a descriptor libzmq may have closed and the system
                // given to another socket of this process, another test's: `SubscriptionLedger` says why.)
                let greedy = try ZMQSocket(context, .xsub)
                try greedy.setLinger(milliseconds: 0)
                try greedy.setOption(ZMQ_RECONNECT_IVL, -1, name: "ZMQ_RECONNECT_IVL")
                try greedy.connect(output)
                for index in 0..<(Self.limit / (100 + SubscriptionLedger.overheadBytes) + 1) {
                    let prefix = "greedy-\(index)-".padding(toLength: 100, withPad: "g", startingAt: 0)
                    _ = try greedy.send([1] + Array(prefix.utf8))
                }
                for _ in 0..<1000 where metrics.subscribersCut.load(ordering: .relaxed) == cutsBeforeAttack {
                    Thread.sleep(forTimeInterval: 0.01)
                }
                // The staying consumer receives the next stroke's events.
                for message in messages { try staying.send(session: "after", message) }
                let events = try Self.events(of: "after", from: staying)
                return (cutsBeforeAttack, metrics.subscribersCut.load(ordering: .relaxed), events)
            }
            #expect(cutsBeforeAttack == 0, "a consumer that let each prefix go, or one under the limit, was cut")
            #expect(cutsAfter == 1)
            #expect(events == ["checkmark", "match"])
        }
    }
}
