import Foundation
import StrokeProtocol
import Synchronization
import Testing
import ZeroMQ

@testable import StrokeWorker

@Suite("Worker events as an AsyncSequence")
struct WorkerEventsTests {
    /// A pong of `session`, numbered `number` (its `eventSeq`).
    static func event(_ session: String, _ number: Int) -> [[UInt8]] {
        [
            Array(session.utf8),
            Array(
                #"{"v":1,"event":"pong","session":"\#(session)","eventSeq":\#(number),"seq":null,"shard":"0/1","known":true}"#
                    .utf8),
        ]
    }

    /// An XPUB on `endpoint` of `context`, on a thread of its own: waits until `subscriptions` subscription frames
    /// arrived, sends `messages`, then waits for the subscriber to leave (its unsubscription) when `awaitLeaving`;
    /// returns the subscription frames it read, as text (`+prefix`, `-prefix`).
    static func publish(
        _ context: ZMQContext, _ endpoint: String, subscriptions: Int, _ messages: [[[UInt8]]],
        awaitLeaving: Bool = false
    ) async throws -> [String] {
        try await ThreadRunner.run(name: "test-publisher") {
            let socket = try ZMQSocket(context, .xpub)
            try socket.setLinger(milliseconds: 1000)
            try socket.setTimeouts(receive: 10_000)
            try socket.bind(endpoint)
            var frames = [String]()
            func read() throws {
                guard let frame = try socket.receiveMultipart()?.first, let kind = frame.first else {
                    throw ZMQError(EAGAIN, "no subscription frame within 10 s")
                }
                frames.append((kind == 1 ? "+" : "-") + String(decoding: frame.dropFirst(), as: UTF8.self))
            }
            while frames.count < subscriptions { try read() }
            for message in messages { try socket.sendMultipart(message) }
            if awaitLeaving { try read() }
            return frames
        }
    }

    static func endpoint() -> String { "inproc://worker-events-\(UUID().uuidString)" }

    /// Runs `body` in a task that is cancelled after 10 s, so that an iteration waiting for events that never come
    /// ends (with `nil`) and the test fails instead of hanging.
    static func bounded<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) async throws -> T {
        let task = Task { try await body() }
        let watchdog = Task {
            try await Task.sleep(for: .seconds(10))
            task.cancel()
        }
        defer { watchdog.cancel() }
        return try await task.value
    }

    @Test("events of the subscribed prefixes come decoded and in order; the system topic only when asked for")
    func prefixesAndOrder() async throws {
        let context = try ZMQContext()
        let endpoint = Self.endpoint()
        let events = WorkerEvents(
            .init(endpoints: [.init(bind: false, address: endpoint)], prefixes: ["room42/"]), context: context)
        let stats = [Array("$system".utf8), Array(#"{"v":1,"event":"stats","shard":"0/1","counters":{}}"#.utf8)]
        let (subscriptions, received) = try await Self.bounded {
            var iterator = events.makeAsyncIterator()
            let subscriptions = try await Self.publish(
                context, endpoint, subscriptions: 1,
                [
                    Self.event("room42/alice", 1), Self.event("room7/bob", 1), stats, Self.event("room42/carol", 1),
                    Self.event("room42/alice", 2),
                ])
            var received = [String]()
            for _ in 0..<3 {
                guard let event = try await iterator.next() else { break }
                #expect(event.kind == .pong && event.known == true)
                received.append("\(event.session ?? "-") \(event.eventSeq)")
            }
            return (subscriptions, received)
        }
        #expect(subscriptions == ["+room42/"])
        #expect(received == ["room42/alice 1", "room42/carol 1", "room42/alice 2"])

        // Every session, and the system topic only with `system`.
        for system in [false, true] {
            let endpoint = Self.endpoint()
            let all = WorkerEvents(
                .init(endpoints: [.init(bind: false, address: endpoint)], system: system), context: context)
            let first = try await Self.bounded {
                var iterator = all.makeAsyncIterator()
                _ = try await Self.publish(context, endpoint, subscriptions: 1, [stats, Self.event("p", 1)])
                return try await iterator.next()
            }
            #expect(first?.kind == (system ? .stats : .pong))
        }
    }

    /// Set by one task, read by another thread.
    @Test("each event counts its session's events lost just before it; a session that starts again counts from 1")
    func losses() async throws {
        let context = try ZMQContext()
        let endpoint = Self.endpoint()
        let events = WorkerEvents(.init(endpoints: [.init(bind: false, address: endpoint)]), context: context)
        func event(_ kind: String, _ session: String, _ number: Int) -> [[UInt8]] {
            [
                Array(session.utf8),
                Array(#"{"v":1,"event":"\#(kind)","session":"\#(session)","eventSeq":\#(number),"seq":null}"#.utf8),
            ]
        }
        let sent = [
            event("match", "a", 1), event("match", "a", 2), event("match", "a", 5), event("nomatch", "b", 3),
            event("match", "b", 4), event("closed", "a", 6), event("match", "a", 1), event("match", "a", 3),
            event("error", "a", 0), event("match", "b", 9),
        ]
        let received = try await Self.bounded {
            var iterator = events.makeAsyncIterator()
            _ = try await Self.publish(context, endpoint, subscriptions: 1, sent)
            var received = [String]()
            while received.count < sent.count, let event = try await iterator.next() {
                received.append("\(event.session ?? "-")\(event.eventSeq):\(event.eventsLost)")
            }
            return received
        }
        #expect(received == ["a1:0", "a2:0", "a5:2", "b3:0", "b4:0", "a6:0", "a1:0", "a3:1", "a0:0", "b9:4"])
    }

    @Test("the loss counter holds a session until its closed event, and nothing for events outside the count")
    func lossCounterMemory() {
        var counter = LossCounter()
        var event = OutputEvent(kind: .match)
        (event.session, event.eventSeq) = ("a", 3)
        counter.count(&event)
        (event.session, event.eventSeq, event.kind) = ("b", 0, .error)
        counter.count(&event)
        #expect(counter.sessions == 1)
        (event.session, event.eventSeq, event.kind) = ("a", 5, .closed)
        counter.count(&event)
        #expect(event.eventsLost == 1 && counter.sessions == 0)
    }

    @Test("waiting for the subscription: events read meanwhile come after, in order; the probe's pongs never come")
    func waitUntilSubscribed() async throws {
        let context = try ZMQContext()
        let endpoint = Self.endpoint()
        let events = WorkerEvents(.init(endpoints: [.init(bind: false, address: endpoint)]), context: context)
        let probe = Self.event("probe", 0)
        let received = try await Self.bounded { () -> [String] in
            var iterator = events.makeAsyncIterator()
            async let published = Self.publish(
                context, endpoint, subscriptions: 1,
                [Self.event("a", 1), Self.event("b", 1), probe, Self.event("a", 2), probe, Self.event("b", 2)])
            var pings = 0
            let subscribed = try await iterator.waitUntilSubscribed(session: "probe") { pings += 1 }
            var received = ["subscribed \(subscribed) after pinging \(pings > 0)"]
            for _ in 0..<4 {
                guard let event = try await iterator.next() else { break }
                received.append("\(event.session ?? "-") \(event.eventSeq)")
            }
            _ = try await published
            return received
        }
        #expect(received == ["subscribed true after pinging true", "a 1", "b 1", "a 2", "b 2"])
    }

    @Test("a prefix longer than any session id ends the iteration with bad_topic, naming it; 128 bytes is one")
    func longPrefix() async throws {
        let context = try ZMQContext()
        let long = String(repeating: "é", count: 65)  // 130 bytes of UTF-8
        let events = WorkerEvents(
            .init(endpoints: [.init(bind: false, address: Self.endpoint())], prefixes: ["room/", long]),
            context: context)
        let error = await #expect(throws: ProtocolError.self) {
            try await Self.bounded {
                var iterator = events.makeAsyncIterator()
                return try await iterator.next()?.session
            }
        }
        #expect(error?.code == .badTopic)
        #expect(
            error?.message.contains("is 130 bytes, longer than any session id (128)") == true,
            "\(String(describing: error))")
        #expect(WorkerEvents.longPrefixProblem([String(repeating: "s", count: 128), ""]) == nil)
    }

    @Test("no pong within the timeout: false, and the iteration goes on")
    func waitUntilSubscribedTimesOut() async throws {
        let context = try ZMQContext()
        let endpoint = Self.endpoint()
        let events = WorkerEvents(.init(endpoints: [.init(bind: false, address: endpoint)]), context: context)
        let (subscribed, pings, next) = try await Self.bounded { () -> (Bool, Int, String?) in
            var iterator = events.makeAsyncIterator()
            var pings = 0
            let subscribed = try await iterator.waitUntilSubscribed(session: "probe", timeout: .milliseconds(100)) {
                pings += 1
            }
            // Nothing has bound the endpoint yet: a publisher does now, and its event comes through.
            async let published = Self.publish(context, endpoint, subscriptions: 1, [Self.event("a", 1)])
            let next = try await iterator.next()
            _ = try await published
            return (subscribed, pings, next.map { "\($0.session ?? "-") \($0.eventSeq)" })
        }
        #expect(!subscribed && pings >= 1)
        #expect(next == "a 1")
    }

    @Test("through a worker in process: once subscribed, a session's first stroke is answered here")
    func subscribedThroughAWorker() async throws {
        let context = try ZMQContext()
        let check = try StrokeProducerTests.checkPoints()
        try await Self.withInprocWorker(context, prefix: "swift-w") { input, _, events in
            let producer = try await AsyncStrokeProducer.connect(
                .init(endpoints: [.init(bind: false, address: input)]), context: context)
            #expect(try await producer.waitForAllBuckets(timeout: .seconds(10)))
            let kinds = try await Self.bounded { () -> [String] in
                var iterator = events.makeAsyncIterator()
                guard try await iterator.waitUntilSubscribed(pinging: producer, session: "swift-w/probe") else {
                    return ["not subscribed"]
                }
                try await producer.sendStroke(check, session: "swift-w/1")
                var kinds = [String]()
                while kinds.count < 2, let event = try await iterator.next() {
                    kinds.append("\(event.session ?? "-") \(event.kind) \(event.name ?? "-")")
                }
                return kinds
            }
            #expect(kinds == ["swift-w/1 checkmark -", "swift-w/1 match check"])
        }
    }

    final class Flag: Sendable {
        let value = Atomic<Bool>(false)
    }

    /// Reads `events` in a bounded task: notes the first pong in `subscribed` (the producer pings until then, so
    /// that nothing it sends after is published before the subscription is in place) and skips pongs; returns the
    /// first `count` other events (fewer if they do not come within the bound).
    static func collect(_ events: WorkerEvents, count: Int, subscribed: Flag) async throws -> [OutputEvent] {
        try await bounded {
            var received = [OutputEvent]()
            for try await event in events {
                if event.kind == .pong {
                    subscribed.value.store(true, ordering: .releasing)
                    continue
                }
                received.append(event)
                if received.count == count { break }
            }
            return received
        }
    }

    /// Runs `body` beside a worker in process on inproc endpoints of `context`, with the worker's input and output
    /// and the events of the sessions whose ids start with `prefix`.
    static func withInprocWorker(
        _ context: ZMQContext, prefix: String,
        _ body: @escaping @Sendable (_ input: String, _ output: String, _ events: WorkerEvents) async throws -> Void
    ) async throws {
        try await withWorker(
            {
                $0.inputs = [.init(bind: true, address: "inproc://worker-input")]
                $0.outputs = [.init(bind: true, address: "inproc://worker-output")]
            }, context: context
        ) { input, output, _ in
            let events = WorkerEvents(
                .init(endpoints: [.init(bind: false, address: output)], prefixes: [prefix]), context: context)
            try await body(input, output, events)
        }
    }

    @Test("a worker's own events, decoded: a check drawn in a session gives its checkmark, then its match")
    func fromAWorker() async throws {
        let context = try ZMQContext()
        let messages = try WorkerIntegrationTests.checkMessages()
        try await Self.withInprocWorker(context, prefix: "swift-1") { input, output, events in
            let subscribed = Flag()
            async let received = Self.collect(events, count: 2, subscribed: subscribed)
            try await withClient(input: input, output: output, context: context) { client in
                // Pings until the sequence's subscription has reached the worker (a pong came), then the check.
                for _ in 0..<500 where !subscribed.value.load(ordering: .acquiring) {
                    try client.send(session: "swift-1", #"{"type":"ping"}"#)
                    Thread.sleep(forTimeInterval: 0.01)
                }
                for message in messages { try client.send(session: "swift-1", message) }
            }
            let got = try await received
            #expect(got.map(\.kind) == [.checkmark, .match])
            #expect(got.map(\.eventSeq) == [1, 2] && got.allSatisfy { $0.session == "swift-1" })
            #expect(got.last?.name == "check" && got.last?.library == "default")
            #expect((got.last?.candidates.count ?? 0) > 1 && got.first?.pointIndex != nil)
        }
    }

    @Test("a consumer that lags loses nothing: the reader waits for room and then goes on, in order")
    func backpressure() async throws {
        let context = try ZMQContext()
        let endpoint = Self.endpoint()
        let events = WorkerEvents(
            .init(endpoints: [.init(bind: false, address: endpoint)], bufferLimit: 2), context: context)
        let numbers = try await Self.bounded {
            var iterator = events.makeAsyncIterator()
            // All 50 are sent before the first is taken: the reader fills its 2 places and waits.
            _ = try await Self.publish(context, endpoint, subscriptions: 1, (1...50).map { Self.event("s", $0) })
            var numbers = [Int]()
            while numbers.count < 50, let event = try await iterator.next() { numbers.append(event.eventSeq) }
            return numbers
        }
        #expect(numbers == Array(1...50))
    }

    @Test("leaving the loop closes the iteration's socket: the publisher sees its subscription go")
    func leavingUnsubscribes() async throws {
        let context = try ZMQContext()
        let endpoint = Self.endpoint()
        let events = WorkerEvents(
            .init(endpoints: [.init(bind: false, address: endpoint)], prefixes: ["s"]), context: context)
        async let frames = Self.publish(
            context, endpoint, subscriptions: 1, (1...5).map { Self.event("s", $0) }, awaitLeaving: true)
        var seen = 0
        for try await event in events {
            #expect(event.eventSeq == 1)
            seen += 1
            break
        }
        #expect(seen == 1)
        #expect(try await frames == ["+s", "-s"])
    }

    @Test("cancelling the consuming task ends its iteration with nil and closes the socket")
    func cancellation() async throws {
        let context = try ZMQContext()
        let endpoint = Self.endpoint()
        let events = WorkerEvents(
            .init(endpoints: [.init(bind: false, address: endpoint)], prefixes: ["quiet"]), context: context)
        let consumer = Task {
            var count = 0
            for try await _ in events { count += 1 }
            return count
        }
        // Nothing is sent: the consumer waits in next() until it is cancelled.
        async let frames = Self.publish(context, endpoint, subscriptions: 1, [], awaitLeaving: true)
        try await Task.sleep(for: .milliseconds(50))
        consumer.cancel()
        #expect(try await consumer.value == 0)
        #expect(try await frames == ["+quiet", "-quiet"])
    }

    /// The topics and errors an iteration told of (`Configuration.undecodable`).
    final class Told: Sendable {
        let messages = Mutex<[(topic: String, error: ProtocolError)]>([])
    }

    @Test("a message that is not an event is skipped and told, as an event lost; its session's events go on")
    func badMessages() async throws {
        let context = try ZMQContext()
        let cases: [([[UInt8]], ProtocolError.Code, String)] = [
            ([Array("s".utf8)], .frameCount, "1 frames on topic s"),
            ([Array("s".utf8), [1], [2]], .frameCount, "3 frames on topic s"),
            ([Array("s".utf8), Array(#"{"v":1,"event":"pong","eventSeq":"x"}"#.utf8)], .malformedJSON, "topic s"),
            ([Array("s".utf8), Array(#"{"v":2,"event":"pong"}"#.utf8)], .unsupportedVersion, "topic s: v: 2"),
        ]
        for (message, code, words) in cases {
            let endpoint = Self.endpoint()
            let told = Told()
            let configuration = WorkerEvents.Configuration(
                endpoints: [.init(bind: false, address: endpoint)],
                undecodable: { topic, error in told.messages.withLock { $0.append((topic, error)) } })
            var iterator = WorkerEvents(configuration, context: context).makeAsyncIterator()
            // A malformed message on the system topic, not asked for, is passed over untold.
            let system = [Array("$system".utf8), [1], [2]]
            _ = try await Self.publish(
                context, endpoint, subscriptions: 1, [Self.event("s", 1), system, message, Self.event("s", 3)])
            let first = try await iterator.next()
            let next = try await iterator.next()
            #expect(first?.eventSeq == 1 && first?.eventsLost == 0, "\(words)")
            #expect(next?.eventSeq == 3 && next?.eventsLost == 1, "\(words)")
            let messages = told.messages.withLock { $0 }
            #expect(messages.count == 1, "\(words): \(messages)")
            for (topic, error) in messages {
                #expect(topic == "s" && error.code == code && error.message.contains(words), "\(error)")
            }
        }
    }

    @Test("by default a message that is not an event is skipped")
    func badMessageSkippedByDefault() async throws {
        let context = try ZMQContext()
        let endpoint = Self.endpoint()
        var iterator = WorkerEvents(.init(endpoints: [.init(bind: false, address: endpoint)]), context: context)
            .makeAsyncIterator()
        let message = [Array("s".utf8), Array("not json".utf8)]
        _ = try await Self.publish(
            context, endpoint, subscriptions: 1, [Self.event("s", 1), message, Self.event("s", 3)])
        #expect(try await iterator.next()?.eventSeq == 1)
        let next = try await iterator.next()
        #expect(next?.eventSeq == 3 && next?.eventsLost == 1)
    }

    @Test("a message that is not an event ends the iteration where `undecodable` throws")
    func badMessageEnds() async throws {
        let context = try ZMQContext()
        let endpoint = Self.endpoint()
        let configuration = WorkerEvents.Configuration(
            endpoints: [.init(bind: false, address: endpoint)], undecodable: { _, error in throw error })
        var iterator = WorkerEvents(configuration, context: context).makeAsyncIterator()
        let message = [Array("s".utf8), Array(#"{"v":1}"#.utf8)]
        _ = try await Self.publish(context, endpoint, subscriptions: 1, [message, Self.event("s", 1)])
        do {
            let event = try await iterator.next()
            Issue.record("got \(String(describing: event))")
        } catch let error as ProtocolError {
            #expect(error.code == .invalidField && error.message.contains("topic s: event: missing"), "\(error)")
        }
        // Once thrown, the iteration is over.
        #expect(try await iterator.next() == nil)
    }

    @Test("an endpoint libzmq refuses ends the iteration with its error")
    func badEndpoint() async throws {
        var iterator = WorkerEvents(.init(endpoints: [.init(bind: false, address: "tcp://no-port")]))
            .makeAsyncIterator()
        await #expect(throws: ZMQError.self) { _ = try await iterator.next() }
    }
}
