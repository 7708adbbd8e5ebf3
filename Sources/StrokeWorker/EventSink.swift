import StrokeProtocol

/// Where a session processor's events go: a PUB socket in the worker, an array in tests.
public protocol EventSink {
    /// Publishes one event: `topic` is the session id (or `$system`), `payload` its JSON.
    mutating func publish(topic: UnsafeRawBufferPointer, payload: [UInt8])

    /// Publishes the answer to a finished stroke, in order with the other events: recognizing it now (the
    /// default, with `writer` as scratch) or later.
    mutating func publishRecognition(_ request: RecognitionRequest, writer: inout JSONWriter)
}

extension EventSink {
    /// Recognizes the stroke now and publishes the event.
    public mutating func publishRecognition(_ request: RecognitionRequest, writer: inout JSONWriter) {
        request.encode(into: &writer)
        publish(topic: request.context.session, payload: writer.bytes)
    }
}

/// An event sink that keeps every event, for tests and tools.
public struct CollectingSink: EventSink, Sendable {
    /// The events, in order: topic and payload as text.
    public private(set) var events: [(topic: String, payload: String)] = []

    /// Creates an empty sink.
    public init() {}

    /// Keeps the event.
    public mutating func publish(topic: UnsafeRawBufferPointer, payload: [UInt8]) {
        events.append((String(decoding: topic, as: UTF8.self), String(decoding: payload, as: UTF8.self)))
    }

    /// Forgets the events kept so far.
    public mutating func removeAll() { events.removeAll() }
}

/// An event sink that counts events and drops them: the processor's own work, measured without a consumer.
public struct CountingSink: EventSink, Sendable {
    /// Events published so far.
    public private(set) var events = 0

    /// Creates a sink that has counted nothing.
    public init() {}

    /// Counts the event.
    public mutating func publish(topic: UnsafeRawBufferPointer, payload: [UInt8]) { events += 1 }
}

extension SessionProcessor where Sink == CountingSink {
    /// `handle(batch:)`, compiled in this module for this sink, as the lane's own is for its sinks: a caller in
    /// another module (`stroke-bench`) would otherwise run the unspecialized generic code, which looks up type
    /// metadata on every message.
    public mutating func handleCounting(
        batch: UnsafeBufferPointer<(topic: UnsafeRawBufferPointer, payload: UnsafeRawBufferPointer)>
    ) {
        handle(batch: batch)
    }
}
