import Foundation
import StrokeProtocol
import StrokeRecognition
import Testing
import ZeroMQ

@testable import StrokeWorker

@Suite("Offloading event sink")
struct OffloadingSinkTests {
    static let registry = try! LibraryRegistry([try! TemplateLibrary.builtIn()])
    /// The recognizer of slot 0 (the built-in library in its own mode), which the requests name.
    static let recognizer = registry.entries[0].own

    /// A small v-like stroke, different for each `k`.
    static func stroke(_ k: Int) -> [SIMD2<Double>] {
        (0..<30).map { i in
            let u = Double(i) / 29
            return SIMD2(100 + 80 * u + Double(k), 100 + 60 * abs(u - 0.5) * Double(1 + k % 4))
        }
    }

    /// Publishes stroke `k` of `topic` through `sink`, and returns the event it should produce, encoded on the
    /// spot as a lane would.
    static func recognize(
        _ k: Int, topic: String, into sink: inout OffloadingSink, writer: inout JSONWriter,
        recognizer: Recognizer = Self.recognizer
    ) -> [String] {
        var topic = topic
        let points = stroke(k)
        return topic.withUTF8 { session in
            points.withUnsafeBufferPointer { points in
                let request = RecognitionRequest(
                    context: EventEncoder.Context(
                        session: UnsafeRawBufferPointer(session), eventSequence: UInt64(k), sequence: UInt32(k),
                        stroke: UInt32(k)),
                    recognizer: recognizer, library: "default",
                    slot: LibraryRegistry.Slot(library: 0, invariant: nil), points: points)
                request.encode(into: &writer)
                let expected = [
                    String(decoding: session, as: UTF8.self), String(decoding: writer.bytes, as: UTF8.self),
                ]
                sink.publishRecognition(request, writer: &writer)
                return expected
            }
        }
    }

    static func received(_ subscriber: ZMQSocket, count: Int) throws -> [[String]] {
        try (0..<count).map { _ in
            try #require(try subscriber.receiveMultipart()).map { String(decoding: $0, as: UTF8.self) }
        }
    }

    /// An offloading sink with a running helper, publishing on an XPUB that `subscriber` reads over inproc.
    static func withSink(
        _ body: (_ sink: inout OffloadingSink, _ subscriber: ZMQSocket, _ metrics: WorkerMetrics) throws -> Void
    ) throws {
        let (context, publisher, subscriber) = try SocketSinkTests.pair()
        let helper = try RecognitionHelper(lane: 0, libraries: LibrarySource(registry), metrics: WorkerMetrics())
        helper.start()
        defer { helper.finish() }
        let metrics = WorkerMetrics()
        var sink = OffloadingSink(
            socket: SocketSink(socket: publisher, metrics: metrics), helper: helper, registry: registry)
        try body(&sink, subscriber, metrics)
        withExtendedLifetime(context) {}
    }

    @Test("strokes handed to the helper come back in order among the other events, encoded as on the lane")
    func order() throws {
        try Self.withSink { (sink: inout OffloadingSink, subscriber: ZMQSocket, metrics: WorkerMetrics) throws in
            var writer = JSONWriter()
            var expected = [[String]]()
            var handedOver = 0
            for k in 0..<60 {
                let topic = "s\(k % 5)"
                if k % 3 == 0 {
                    sink.saturated = k % 2 == 0
                    if sink.saturated { handedOver += 1 }
                    expected.append(Self.recognize(k, topic: topic, into: &sink, writer: &writer))
                } else {
                    let payload = #"{"n":\#(k)}"#
                    SocketSinkTests.publish(&sink, topic, payload)
                    expected.append([topic, payload])
                }
                if k % 7 == 0 { sink.send() }
            }
            sink.flush()
            #expect(handedOver == 10)
            #expect(metrics.snapshot["strokesOffloaded"] == handedOver)
            #expect(try Self.received(subscriber, count: expected.count) == expected)
            #expect(try subscriber.receiveMultipart(dontWait: true) == nil)
        }
    }

    @Test("after a reload the helper recognizes the next strokes handed over with the new libraries")
    func reloadedLibraries() throws {
        let (context, publisher, subscriber) = try SocketSinkTests.pair()
        let libraries = LibrarySource(Self.registry)
        let helper = try RecognitionHelper(lane: 0, libraries: libraries, metrics: WorkerMetrics())
        helper.start()
        defer { helper.finish() }
        var sink = OffloadingSink(
            socket: SocketSink(socket: publisher, metrics: WorkerMetrics()), helper: helper, registry: Self.registry)
        sink.saturated = true
        var writer = JSONWriter()
        let before = Self.recognize(1, topic: "r", into: &sink, writer: &writer)
        sink.flush()
        #expect(try Self.received(subscriber, count: 1) == [before])
        // The same stroke is the one template of the reloaded "default" library.
        let reloaded = try LibraryRegistry([
            TemplateLibrary(name: "default", templates: [GestureTemplate(name: "only", points: Self.stroke(1))])
        ])
        libraries.replace(reloaded)
        let after = Self.recognize(
            1, topic: "r", into: &sink, writer: &writer, recognizer: reloaded.entries[0].own)
        sink.flush()
        #expect(after != before && after[1].contains(#""name":"only""#))
        #expect(try Self.received(subscriber, count: 1) == [after])
        withExtendedLifetime(context) {}
    }

    @Test("more strokes than the queue holds: the lane waits for the helper and nothing is lost")
    func bounded() throws {
        try Self.withSink { (sink: inout OffloadingSink, subscriber: ZMQSocket, metrics: WorkerMetrics) throws in
            sink.saturated = true
            var writer = JSONWriter()
            let count = OffloadingSink.queueLimit * 2 + 3
            var expected = [[String]]()
            for k in 0..<count { expected.append(Self.recognize(k, topic: "busy", into: &sink, writer: &writer)) }
            sink.flush()
            #expect(try Self.received(subscriber, count: count) == expected)
            #expect(metrics.snapshot["eventsPublished"] == count)
            #expect(metrics.snapshot["strokesOffloaded"] == count)
            // The queue filled up twice, at queueLimit strokes and at twice as many; the flush is not counted.
            #expect(metrics.snapshot["helperWaits"] == 2)
        }
    }

    @Test("a lane that is not saturated recognizes its strokes itself and never waits for the helper")
    func notSaturatedNeverWaits() throws {
        try Self.withSink { (sink: inout OffloadingSink, subscriber: ZMQSocket, metrics: WorkerMetrics) throws in
            var writer = JSONWriter()
            let count = OffloadingSink.queueLimit + 1
            var expected = [[String]]()
            for k in 0..<count { expected.append(Self.recognize(k, topic: "calm", into: &sink, writer: &writer)) }
            sink.flush()
            #expect(try Self.received(subscriber, count: count) == expected)
            #expect(metrics.snapshot["strokesOffloaded"] == 0)
            #expect(metrics.snapshot["helperWaits"] == 0)
            #expect(metrics.snapshot["helperWaitMicroseconds"] == 0)
        }
    }

    /// Calls `send()` as a lane does between messages, never flushing, until `count` events have come; at most
    /// 5,000 times, a millisecond apart.
    static func sendUntilReceived(
        _ count: Int, _ sink: inout OffloadingSink, _ subscriber: ZMQSocket
    ) throws -> [[String]] {
        var received = [[String]]()
        for _ in 0..<5000 where received.count < count {
            sink.send()
            while received.count < count, let frames = try subscriber.receiveMultipart(dontWait: true) {
                received.append(frames.map { String(decoding: $0, as: UTF8.self) })
            }
            if received.count < count { usleep(1000) }
        }
        return received
    }

    @Test(
        "gathered strokes wait offerAfterSends sends, then come out without a flush: recognized on the lane up to recognizeHereLimit, by the helper beyond",
        arguments: [1, OffloadingSink.recognizeHereLimit, OffloadingSink.recognizeHereLimit + 1])
    func gatheredStrokes(count: Int) throws {
        try Self.withSink { (sink: inout OffloadingSink, subscriber: ZMQSocket, metrics: WorkerMetrics) throws in
            sink.saturated = true
            var writer = JSONWriter()
            let expected = (0..<count).map {
                Self.recognize($0, topic: "gathered-\(count)", into: &sink, writer: &writer)
            }
            for _ in 1..<OffloadingSink.offerAfterSends { sink.send() }
            #expect(try subscriber.receiveMultipart(dontWait: true) == nil)
            #expect(try Self.sendUntilReceived(count, &sink, subscriber) == expected)
            sink.flush()
            let offloaded = count <= OffloadingSink.recognizeHereLimit ? 0 : count
            #expect(metrics.snapshot["strokesOffloaded", default: 0] == offloaded)
            #expect(try subscriber.receiveMultipart(dontWait: true) == nil)
        }
    }

    @Test("a stroke after others in the helper's hands comes out behind them, whoever recognizes it")
    func behindTheHelper() throws {
        try Self.withSink { (sink: inout OffloadingSink, subscriber: ZMQSocket, metrics: WorkerMetrics) throws in
            sink.saturated = true
            var writer = JSONWriter()
            let count = OffloadingSink.offerThreshold + 1
            var expected = [[String]]()
            for k in 0..<count {
                expected.append(Self.recognize(k, topic: "s\(k % 3)", into: &sink, writer: &writer))
                if k == OffloadingSink.offerThreshold - 1 {
                    // An event of the lane's own between the helper's strokes and the last one.
                    SocketSinkTests.publish(&sink, "lane", "{}")
                    expected.append(["lane", "{}"])
                }
            }
            #expect(try Self.sendUntilReceived(expected.count, &sink, subscriber) == expected)
            sink.flush()
            // The last stroke goes to the helper if the first ones are still out, else the lane recognizes it.
            let offloaded = metrics.snapshot["strokesOffloaded", default: 0]
            #expect(offloaded == count || offloaded == count - 1)
        }
    }

    /// An offloading sink whose helper is not running until `body` starts it.
    static func withStoppedHelper(
        _ body: (
            _ sink: inout OffloadingSink, _ helper: RecognitionHelper, _ subscriber: ZMQSocket, _ metrics: WorkerMetrics
        ) throws -> Void
    ) throws {
        let (context, publisher, subscriber) = try SocketSinkTests.pair()
        let helper = try RecognitionHelper(lane: 0, libraries: LibrarySource(registry), metrics: WorkerMetrics())
        let metrics = WorkerMetrics()
        var sink = OffloadingSink(
            socket: SocketSink(socket: publisher, metrics: metrics), helper: helper, registry: registry)
        try body(&sink, helper, subscriber, metrics)
        withExtendedLifetime(context) {}
    }

    @Test("when the input runs dry the lane does not wait for the helper: its results wake the poll, then go out")
    func idleDoesNotWait() throws {
        try Self.withStoppedHelper {
            (sink: inout OffloadingSink, helper: RecognitionHelper, subscriber: ZMQSocket, metrics: WorkerMetrics)
                throws
            in
            sink.saturated = true
            var writer = JSONWriter()
            var expected = [["lane", "{\"first\":1}"]]
            SocketSinkTests.publish(&sink, "lane", "{\"first\":1}")
            // Two batches of strokes: the first is offered to the helper, the second stays gathered while the
            // helper has not taken the first; then an event of the lane's behind them.
            for k in 0..<2 * OffloadingSink.offerThreshold {
                expected.append(Self.recognize(k, topic: "s\(k % 3)", into: &sink, writer: &writer))
            }
            SocketSinkTests.publish(&sink, "lane", "{\"last\":1}")
            expected.append(["lane", "{\"last\":1}"])
            // The helper is not even running: `idle()` returns with what needs it still queued.
            sink.idle()
            #expect(try Self.received(subscriber, count: 1) == [expected[0]])
            #expect(try subscriber.receiveMultipart(dontWait: true) == nil)
            helper.start()
            defer { helper.finish() }
            var poller = ZMQPoller(readable: [], signals: [try #require(sink.signal)])
            var received = [[String]]()
            for _ in 0..<100 where received.count < expected.count - 1 {
                guard try poller.poll(timeoutMilliseconds: 10_000) > 0 else { break }
                sink.signalled()
                sink.idle()
                while let frames = try subscriber.receiveMultipart(dontWait: true) {
                    received.append(frames.map { String(decoding: $0, as: UTF8.self) })
                }
            }
            #expect(received == Array(expected.dropFirst()))
            #expect(metrics.snapshot["strokesOffloaded"] == 2 * OffloadingSink.offerThreshold)
        }
    }

    @Test("when the input runs dry with strokes gathered and none in the helper's hands, the lane recognizes them")
    func idleRecognizesGathered() throws {
        try Self.withStoppedHelper {
            (sink: inout OffloadingSink, helper: RecognitionHelper, subscriber: ZMQSocket, metrics: WorkerMetrics)
                throws
            in
            sink.saturated = true
            var writer = JSONWriter()
            let expected = (0..<3).map { Self.recognize($0, topic: "dry", into: &sink, writer: &writer) }
            sink.idle()
            #expect(try Self.received(subscriber, count: expected.count) == expected)
            #expect(metrics.snapshot["strokesOffloaded", default: 0] == 0)
            helper.start()
            helper.finish()
        }
    }
}
