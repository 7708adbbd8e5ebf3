import StrokeProtocol

/// A lane's sink when a publisher thread recognizes and publishes: events and finished strokes are copied into
/// a batch that is handed to the publisher (`EventPipe`), in order.
struct PipelineSink: LaneSink {
    let pipe: EventPipe
    private var batch = EventPipe.Batch()

    /// Entries in a batch before the lane waits for the publisher to take the previous one.
    static let batchLimit = 256
    /// Entries in a batch before `send()` (every few dozen messages) offers it: fewer, and a busy lane would wake
    /// the publisher for every stroke or two (measured: those wake-ups cost unbatched input 10%). When the input
    /// runs dry the lane flushes whatever is there.
    static let offerThreshold = 16

    init(pipe: EventPipe) {
        self.pipe = pipe
        batch.bytes.reserveCapacity(1 << 16)
        batch.points.reserveCapacity(1 << 14)
        batch.entries.reserveCapacity(Self.batchLimit)
    }

    mutating func publish(topic: UnsafeRawBufferPointer, payload: [UInt8]) {
        batch.append(topic: topic, payload: payload)
        if batch.entries.count >= Self.batchLimit { pipe.hand(&batch) }
    }

    mutating func publishRecognition(_ request: RecognitionRequest, writer: inout JSONWriter) {
        batch.append(request)
        if batch.entries.count >= Self.batchLimit { pipe.hand(&batch) }
    }

    mutating func send() {
        guard batch.entries.count >= Self.offerThreshold else { return }
        _ = pipe.offer(&batch)
    }

    mutating func flush() {
        guard !batch.entries.isEmpty else { return }
        pipe.hand(&batch)
    }
}
