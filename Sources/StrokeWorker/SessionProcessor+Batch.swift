import StrokeProtocol

extension SessionProcessor {
    // MARK: - Batches

    /// Messages that `handle(batch:)` takes at once, at most.
    public static var batchLimit: Int { 16 }

    /// Handles two-frame messages in order, exactly as `handle(topic:payload:)` one after the other would, but
    /// fetches their sessions' memory ahead first (`SessionTable.prepare`), `batchLimit` messages at a time: with
    /// many sessions most of it is not in the cache, and this way the misses of a batch are waited for together.
    ///
    /// As one at a time, the tilts of matches made so far are taken in before each message, not once a batch: a
    /// session's strokes that end in one batch (whole strokes sent at once) are then matched as they would be one
    /// message at a time, each turned back by the tilt the matches before it showed.
    public mutating func handle(
        batch: UnsafeBufferPointer<(topic: UnsafeRawBufferPointer, payload: UnsafeRawBufferPointer)>
    ) {
        let prepared = preparedTopics.topics
        var start = 0
        while start < batch.count {
            let end = min(start + Self.batchLimit, batch.count)
            let part = UnsafeBufferPointer(rebasing: batch[start..<end])
            table.prepare(part, into: prepared)
            for k in part.indices {
                applyTiltFeedback()
                handle(topic: part[k].topic, payload: part[k].payload, prepared: prepared[k])
            }
            start = end
        }
    }
}
