import CZeroMQ
import Foundation
import Testing
import ZeroMQ

@testable import StrokeWorker

@Suite("Queued event sink")
struct SocketSinkTests {
    /// An XPUB (as in a lane) and a SUB reading it over inproc, connected and subscribed.
    static func pair() throws -> (context: ZMQContext, publisher: ZMQSocket, subscriber: ZMQSocket) {
        let context = try ZMQContext()
        let publisher = try ZMQSocket(context, .xpub)
        let subscriber = try ZMQSocket(context, .sub)
        let endpoint = "inproc://sink-\(UInt32.random(in: 0...UInt32.max))"
        try publisher.bind(endpoint)
        try subscriber.connect(endpoint)
        try subscriber.subscribe("")
        try subscriber.setTimeouts(receive: 2000)
        // The subscription reaches the XPUB as a message: once it is read, events are delivered.
        try publisher.setTimeouts(receive: 2000)
        _ = try publisher.receiveMultipart()
        return (context, publisher, subscriber)
    }

    static func publish(_ sink: inout some EventSink, _ topic: String, _ payload: String) {
        var topic = topic
        topic.withUTF8 { sink.publish(topic: UnsafeRawBufferPointer($0), payload: Array(payload.utf8)) }
    }

    @Test("events wait for send() and then go out in order, as [topic, payload]")
    func queued() throws {
        let (context, publisher, subscriber) = try Self.pair()
        var sink = SocketSink(socket: publisher, metrics: WorkerMetrics())
        for k in 0..<10 { Self.publish(&sink, "s\(k % 3)", #"{"n":\#(k)}"#) }
        #expect(try subscriber.receiveMultipart(dontWait: true) == nil)
        sink.flush()
        for k in 0..<10 {
            let frames = try #require(try subscriber.receiveMultipart())
            #expect(frames.map { String(decoding: $0, as: UTF8.self) } == ["s\(k % 3)", #"{"n":\#(k)}"#])
        }
        #expect(try subscriber.receiveMultipart(dontWait: true) == nil)
        withExtendedLifetime(context) {}
    }

    @Test("a full queue is sent without waiting for send()")
    func bounded() throws {
        let (context, publisher, subscriber) = try Self.pair()
        let metrics = WorkerMetrics()
        var sink = SocketSink(socket: publisher, metrics: metrics)
        for k in 0..<(SocketSink.queueLimit + 5) { Self.publish(&sink, "idle", "\(k)") }
        for k in 0..<SocketSink.queueLimit {
            let frames = try #require(try subscriber.receiveMultipart())
            #expect(String(decoding: frames[1], as: UTF8.self) == "\(k)")
        }
        #expect(try subscriber.receiveMultipart(dontWait: true) == nil)
        sink.flush()
        for k in SocketSink.queueLimit..<(SocketSink.queueLimit + 5) {
            let frames = try #require(try subscriber.receiveMultipart())
            #expect(String(decoding: frames[1], as: UTF8.self) == "\(k)")
        }
        #expect(metrics.snapshot["eventsPublished"] == SocketSink.queueLimit + 5)
        withExtendedLifetime(context) {}
    }

    @Test("the worker's own output socket gets the consumer timeout and TCP keepalive; one to the forwarder does not")
    func outputOptions() throws {
        let context = try ZMQContext()
        var configuration = WorkerConfiguration()
        configuration.consumerTimeoutMilliseconds = 7000
        configuration.tcpKeepaliveSeconds = 12
        for external in [true, false] {
            let output = try ZMQSocket(context, .xpub)
            try Publisher.configure(output, configuration, external: external)
            #expect(try output.intOption(ZMQ_TCP_MAXRT, name: "ZMQ_TCP_MAXRT") == (external ? 7000 : 0))
            #expect(try output.intOption(ZMQ_TCP_KEEPALIVE, name: "ZMQ_TCP_KEEPALIVE") == (external ? 1 : -1))
            #expect(
                try output.intOption(ZMQ_TCP_KEEPALIVE_IDLE, name: "ZMQ_TCP_KEEPALIVE_IDLE") == (external ? 12 : -1))
        }
    }

    // MARK: - A consumer that stops reading

    /// Publishes 200 events through a sink on the worker's own kind of output socket, configured by
    /// `Publisher.configure` with `slowConsumers` and a high-water mark of 10, to a consumer that reads and one that
    /// takes at most one event and never reads; returns how many the reading one got and how many the sink counted
    /// as dropped.
    static func oneStuckConsumer(_ policy: WorkerConfiguration.SlowConsumers) throws -> (received: Int, dropped: Int) {
        let context = try ZMQContext()
        let publisher = try ZMQSocket(context, .xpub)
        var configuration = WorkerConfiguration()
        configuration.slowConsumers = policy
        configuration.highWaterMark = 10
        configuration.sendTimeoutMilliseconds = 0  // waiting changes nothing here: the stuck one never reads
        try Publisher.configure(publisher, configuration, external: true)
        try publisher.setVerbose(true)  // both subscriptions reach the XPUB as messages, so both can be awaited
        let endpoint = "inproc://stuck-\(UInt32.random(in: 0...UInt32.max))"
        try publisher.bind(endpoint)
        let reader = try ZMQSocket(context, .sub)
        try reader.setHighWaterMarks(receive: 100_000)
        let stuck = try ZMQSocket(context, .sub)
        try stuck.setHighWaterMarks(receive: 1)
        for subscriber in [reader, stuck] {
            try subscriber.connect(endpoint)
            try subscriber.subscribe("")
        }
        try publisher.setTimeouts(receive: 2000)
        for _ in 0..<2 { _ = try #require(try publisher.receiveMultipart()) }
        let metrics = WorkerMetrics()
        var sink = SocketSink(socket: publisher, metrics: metrics)
        for k in 0..<200 {
            publish(&sink, "s\(k % 7)", #"{"n":\#(k)}"#)
            sink.send()
        }
        sink.flush()
        var received = 0
        while let frames = try reader.receiveMultipart(dontWait: true) {
            #expect(String(decoding: frames[1], as: UTF8.self) == #"{"n":\#(received)}"# || policy == .wait)
            received += 1
        }
        withExtendedLifetime((context, stuck)) {}
        return (received, metrics.snapshot["eventsDropped"] ?? 0)
    }

    @Test("by default a consumer that stops reading misses events alone: the others get every one, in order")
    func stuckConsumerDrops() throws {
        let outcome = try Self.oneStuckConsumer(.drop)
        #expect(outcome.received == 200 && outcome.dropped == 0)
    }

    @Test("with slowConsumers .wait, a consumer that stops reading costs every consumer the events it cannot take")
    func stuckConsumerWaits() throws {
        let outcome = try Self.oneStuckConsumer(.wait)
        // The stuck consumer's queue holds about 11 (10 sent, 1 received): the rest is dropped for both, counted.
        #expect(outcome.received < 20 && outcome.dropped == 200 - outcome.received)
    }
}
