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
}
