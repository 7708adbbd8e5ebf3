import StrokeProtocol
import ZeroMQ

/// A lane's sink that hands finished strokes to a recognition helper thread while the lane is saturated, and
/// publishes every event, in order, on the lane's own XPUB socket.
///
/// A handed-over stroke leaves a placeholder in the queue of events; the events behind it wait until the
/// helper's result fills it. When the lane is not saturated it recognizes strokes itself, as `SocketSink`
/// does, so a lightly loaded worker answers without a thread hop; a busy one gets a second core for the
/// per-stroke work without giving up its socket (one owner per socket). Strokes are handed over in batches
/// (`offerThreshold`); one or two that have waited `offerAfterSends` sends with nothing else outstanding are
/// recognized on the lane after all. Events are sent every `Lane.eventBatch` messages (`send()`) and when the
/// input runs dry (`idle()`), neither of which waits: what waits for the helper goes out when its results wake
/// the lane's poll (`signal`, `signalled()`), so that a lane whose helper is slow to be scheduled goes on reading
/// input meanwhile. Only a full queue (`queueLimit`) and `flush()`, when the lane stops, wait for the helper.
struct OffloadingSink: LaneSink {
    private var socket: SocketSink
    let helper: RecognitionHelper
    /// The lane's copy of the libraries, for the gathered strokes it recognizes itself.
    private(set) var registry: LibraryRegistry
    /// Set by the lane while it is saturated (`LaneLoad`): finished strokes then go to the helper.
    var saturated = false

    /// Strokes not yet handed to the helper.
    private var jobs = EventPipe.Batch()
    /// Queued events, topic and payload bytes back to back.
    private var bytes: [UInt8] = []
    /// The queue, in order: an event in `bytes`, or (`end < 0`) a stroke whose event the helper will return.
    private var queue: [(start: Int, topicEnd: Int, end: Int)] = []
    /// The first queued entry not yet sent.
    private var head = 0
    /// Results taken from the helper and not yet sent, from `nextResult` on.
    private var results = RecognitionResults.Buffer()
    private var nextResult = 0
    /// Strokes handed over (or about to be) whose events have not been sent.
    private var outstanding = 0
    /// Strokes handed over since the counters were last published.
    private var offloaded = 0
    /// Calls of `send()` since gathered strokes were last handed over or recognized.
    private var sendsWaited = 0
    /// The lane's writer for the gathered strokes it recognizes itself.
    private var writer = JSONWriter()
    /// Scratch for their tilt samples (`EventPipe.Batch.forEachEvent`).
    private var tiltSamples: [TiltFeedback.Sample] = []

    /// Queued entries (and strokes in the helper's hands) before the lane waits for the helper.
    static let queueLimit = SocketSink.queueLimit
    /// Strokes gathered before `send()` offers them to the helper (see `PipelineSink.offerThreshold`).
    static let offerThreshold = PipelineSink.offerThreshold
    /// Calls of `send()` (one every `Lane.eventBatch` messages) after which gathered strokes stop waiting for
    /// `offerThreshold` of them: 4, so that a stroke waits about 128 messages at most, not until 16 strokes of
    /// single-point input (a thousand messages or more) have ended or the input runs dry.
    static let offerAfterSends = 4
    /// Gathered strokes that the lane recognizes itself once they have waited that long, when nothing else is in
    /// the helper's hands: waking the helper for every stroke or two cost a lane saturated by single points
    /// 10–20% more time per message, more than the recognitions it moved.
    static let recognizeHereLimit = 2

    init(socket: SocketSink, helper: RecognitionHelper, registry: LibraryRegistry) {
        self.socket = socket
        self.helper = helper
        self.registry = registry
        bytes.reserveCapacity(1 << 16)
        queue.reserveCapacity(Self.queueLimit)
        jobs.bytes.reserveCapacity(1 << 12)
        jobs.points.reserveCapacity(1 << 14)
        jobs.entries.reserveCapacity(Self.queueLimit)
    }

    /// The lane's libraries were reloaded.
    mutating func replaceRegistry(_ registry: LibraryRegistry) { self.registry = registry }

    // MARK: - EventSink

    /// Queues the event behind everything queued before it.
    mutating func publish(topic: UnsafeRawBufferPointer, payload: [UInt8]) {
        let start = bytes.count
        bytes.append(contentsOf: topic)
        let topicEnd = bytes.count
        bytes.append(contentsOf: payload)
        queue.append((start, topicEnd, bytes.count))
        if queue.count - head >= Self.queueLimit { drain(full: true) }
    }

    /// Hands the stroke to the helper when the lane is saturated; else recognizes it now.
    mutating func publishRecognition(_ request: RecognitionRequest, writer: inout JSONWriter) {
        guard saturated else {
            socket.metrics.count(request.encode(into: &writer))
            publish(topic: request.context.session, payload: writer.bytes)
            return
        }
        jobs.append(request)
        queue.append((0, 0, -1))
        outstanding += 1
        offloaded += 1
        if jobs.entries.count >= Self.offerThreshold, helper.jobs.offer(&jobs) { sendsWaited = 0 }
        if outstanding >= Self.queueLimit || queue.count - head >= Self.queueLimit { drain(full: true) }
    }

    // MARK: - LaneSink

    /// Sends what is ready, without waiting, after dealing with the gathered strokes: offered to the helper once
    /// there are `offerThreshold` of them (offering fewer would wake the helper for every stroke or two, which
    /// costs a busy lane more than it saves); after `offerAfterSends` calls, recognized here if they are few and
    /// all that is outstanding, else offered however few.
    mutating func send() {
        if !jobs.entries.isEmpty {
            sendsWaited += 1
            if jobs.entries.count >= Self.offerThreshold {
                if helper.jobs.offer(&jobs) { sendsWaited = 0 }
            } else if sendsWaited >= Self.offerAfterSends {
                if jobs.entries.count <= Self.recognizeHereLimit, outstanding == jobs.entries.count {
                    recognizeGathered()
                } else if helper.jobs.offer(&jobs) {
                    sendsWaited = 0
                }
            }
        }
        sendReady()
    }

    /// Recognizes the gathered strokes on the lane and puts their events in their places in the queue. Only
    /// when they are all the outstanding strokes: then their places are the queue's placeholders, in order.
    private mutating func recognizeGathered() {
        var gathered = EventPipe.Batch()
        var writer = JSONWriter()
        swap(&gathered, &jobs)
        swap(&writer, &self.writer)
        var place = head
        gathered.forEachEvent(
            encodingRequestsWith: &writer, registry: registry, metrics: socket.metrics, tiltSamples: &tiltSamples
        ) { topic, payload in
            while queue[place].end >= 0 { place += 1 }
            let start = bytes.count
            bytes.append(contentsOf: topic)
            let topicEnd = bytes.count
            bytes.append(contentsOf: payload)
            queue[place] = (start, topicEnd, bytes.count)
            place += 1
        }
        outstanding -= gathered.entries.count
        offloaded -= gathered.entries.count
        gathered.removeAll()
        swap(&gathered, &jobs)
        swap(&writer, &self.writer)
        sendsWaited = 0
    }

    /// The input ran dry: hands the gathered strokes over (or recognizes them here if the helper holds nothing
    /// else), sends what is ready and asks the helper to signal when the rest is; never waits for it.
    mutating func idle() {
        sendsWaited = 0
        while true {
            if !jobs.entries.isEmpty {
                if outstanding == jobs.entries.count, jobs.entries.count <= Self.offerThreshold {
                    // The lane has time now for a few, and nothing in the helper's hands comes before these.
                    recognizeGathered()
                } else {
                    // Not `hand`: that waits while the helper has not taken its last batch. What stays gathered
                    // goes over when the results of that batch wake the lane.
                    _ = helper.jobs.offer(&jobs)
                }
            }
            sendReady()
            guard head < queue.count else { break }
            // Results of the strokes in the helper's hands that the lane has not taken yet; none when the queue
            // waits on gathered strokes alone, which the next round recognizes here or hands over.
            let missing = outstanding - jobs.entries.count - (results.events.count - nextResult)
            if missing > 0, !helper.results.notify(when: missing) { break }
        }
        socket.flush()
        publishCounters()
    }

    /// The helper's results wake the lane's poll through this.
    var signal: ZMQPollSignal? { helper.results.ready }

    /// Sends what the helper's results have made ready.
    mutating func signalled() {
        helper.results.ready.clear()
        sendReady()
    }

    /// Sends everything, waiting for the helper's outstanding results, and publishes the counters.
    mutating func flush() {
        drain()
        socket.flush()
        publishCounters()
    }

    private mutating func publishCounters() {
        if offloaded > 0 { socket.metrics.strokesOffloaded.add(offloaded, ordering: .relaxed) }
        offloaded = 0
    }

    // MARK: - Sending

    /// Hands over the gathered strokes and sends the whole queue, waiting for results where needed. `full`: the
    /// queue filled up; if strokes in the helper's hands filled it, the time the lane then waits for them is
    /// counted (`WorkerMetrics.helperWaits`).
    private mutating func drain(full: Bool = false) {
        let counted = full && outstanding > 0
        let clock = ContinuousClock()
        var waited = Duration.zero
        if !jobs.entries.isEmpty {
            let started = clock.now
            helper.jobs.hand(&jobs)
            waited += clock.now - started
        }
        sendsWaited = 0
        sendReady()
        while head < queue.count {
            // Every outstanding result but those already taken, in one wake-up.
            let started = clock.now
            helper.results.wait(
                for: max(1, outstanding - (results.events.count - nextResult)), milliseconds: Lane.pollMilliseconds)
            waited += clock.now - started
            sendReady()
        }
        if counted {
            socket.metrics.helperWaits.add(1, ordering: .relaxed)
            socket.metrics.helperWaitMicroseconds.add(Int(waited / .microseconds(1)), ordering: .relaxed)
        }
    }

    /// Sends queued events in order up to the first stroke whose result has not come back.
    private mutating func sendReady() {
        // The buffers are moved out while they are read, since sending updates the socket sink's counters.
        var bytes = [UInt8]()
        var results = RecognitionResults.Buffer()
        swap(&bytes, &self.bytes)
        swap(&results, &self.results)
        bytes.withUnsafeBytes { bytes in
            while head < queue.count {
                let entry = queue[head]
                if entry.end >= 0 {
                    socket.sendNow(
                        topic: UnsafeRawBufferPointer(rebasing: bytes[entry.start..<entry.topicEnd]),
                        payload: UnsafeRawBufferPointer(rebasing: bytes[entry.topicEnd..<entry.end]))
                } else {
                    if nextResult == results.events.count {
                        helper.results.take(into: &results)
                        nextResult = 0
                        guard !results.events.isEmpty else { break }
                    }
                    let start = nextResult == 0 ? 0 : results.events[nextResult - 1].end
                    let event = results.events[nextResult]
                    results.bytes.withUnsafeBytes { all in
                        socket.sendNow(
                            topic: UnsafeRawBufferPointer(rebasing: all[start..<event.topicEnd]),
                            payload: UnsafeRawBufferPointer(rebasing: all[event.topicEnd..<event.end]))
                    }
                    nextResult += 1
                    outstanding -= 1
                }
                head += 1
            }
        }
        if head == queue.count {
            queue.removeAll(keepingCapacity: true)
            bytes.removeAll(keepingCapacity: true)
            head = 0
        }
        swap(&bytes, &self.bytes)
        swap(&results, &self.results)
    }
}
