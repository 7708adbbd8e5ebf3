/// Where a session processor's events go: a PUB socket in the worker, an array in tests.
public protocol EventSink {
    /// Publishes one event: `topic` is the session id (or `$system`), `payload` its JSON.
    mutating func publish(topic: UnsafeRawBufferPointer, payload: [UInt8])
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
