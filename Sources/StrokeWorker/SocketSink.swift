import StrokeProtocol
import ZeroMQ

/// Publishes events on the lane's XPUB socket; counts what a slow consumer made it drop.
///
/// Events are queued while a burst of input is handled and sent together by `send()` (the lane calls it every
/// `Lane.eventBatch` messages and whenever its input queue is empty): libzmq then wakes its I/O thread once per
/// burst instead of once per event (measured: that wake-up, an eventfd write and a context switch, cost the lane
/// more than encoding the event).
struct SocketSink: EventSink {
    let socket: ZMQSocket
    let metrics: WorkerMetrics
    var published = 0
    var dropped = 0
    /// Called when a send waited the socket's send timeout for a consumer behind and the event was dropped (an
    /// `XPUB_NODROP` socket: `--slow-consumers wait`, or a lane's inproc one with several lanes); false: later sends
    /// wait no more, an event that does not fit is dropped at once (`Lane.heldBack`: the worker is stopping). Nil:
    /// nothing.
    var heldBack: (@Sendable () -> Bool)?
    /// Whether sends still wait the send timeout for a consumer behind (until `heldBack` says no more).
    private var waits = true
    /// Queued events: topic and payload bytes back to back, and where each event ends.
    private var bytes: [UInt8] = []
    private var events: [(topicEnd: Int, end: Int)] = []

    init(socket: ZMQSocket, metrics: WorkerMetrics) {
        self.socket = socket
        self.metrics = metrics
        bytes.reserveCapacity(1 << 16)
        events.reserveCapacity(256)
    }

    /// Events queued before `publish` sends them itself (an idle sweep can close thousands of sessions at once).
    static let queueLimit = 256

    /// Queues the event (sent by `send()`, or at once when `queueLimit` are waiting).
    mutating func publish(topic: UnsafeRawBufferPointer, payload: [UInt8]) {
        bytes.append(contentsOf: topic)
        let topicEnd = bytes.count
        bytes.append(contentsOf: payload)
        events.append((topicEnd, bytes.count))
        if events.count >= Self.queueLimit { send() }
    }

    /// Recognizes the stroke now, counts how it was answered, and queues the event.
    mutating func publishRecognition(_ request: RecognitionRequest, writer: inout JSONWriter) {
        metrics.count(request.encode(into: &writer))
        publish(topic: request.context.session, payload: writer.bytes)
    }

    /// Sends the queued events, in order.
    mutating func send() {
        guard !events.isEmpty else { return }
        // The bytes are moved out while they are read, since sending updates this sink's counters.
        var bytes = [UInt8]()
        swap(&bytes, &self.bytes)
        bytes.withUnsafeBytes { all in
            var start = 0
            for event in events {
                sendNow(
                    topic: UnsafeRawBufferPointer(rebasing: all[start..<event.topicEnd]),
                    payload: UnsafeRawBufferPointer(rebasing: all[event.topicEnd..<event.end]))
                start = event.end
            }
        }
        bytes.removeAll(keepingCapacity: true)
        swap(&bytes, &self.bytes)
        events.removeAll(keepingCapacity: true)
    }

    /// Sends one event now, as `[topic, payload]`.
    mutating func sendNow(topic: UnsafeRawBufferPointer, payload: UnsafeRawBufferPointer) {
        do {
            // XPUB_NODROP with a send timeout: wait for a slow consumer that long, then drop and count.
            guard try socket.send(topic, more: true, dontWait: !waits) else {
                // Counted now, not at the next flush: a batch sent at 100 ms an event can take many seconds.
                metrics.eventsDropped.add(1, ordering: .relaxed)
                if waits, let heldBack { waits = heldBack() }
                return
            }
            try socket.send(payload)
            published += 1
        } catch {
            dropped += 1
        }
    }

    /// Sends what is queued and adds the counts to the shared metrics.
    mutating func flush() {
        send()
        if published > 0 { metrics.eventsPublished.add(published, ordering: .relaxed) }
        if dropped > 0 { metrics.eventsDropped.add(dropped, ordering: .relaxed) }
        published = 0
        dropped = 0
    }
}
