import StrokeProtocol

extension SessionProcessor {
    // MARK: - Batches

    /// Messages that `handle(batch:)` takes at once, at most.
    public static var batchLimit: Int { 16 }

    /// Handles a batch of (at most `batchLimit`) two-frame messages in order, exactly as `handle(topic:payload:)`
    /// one after the other would, but fetches their sessions' memory ahead first (`SessionTable.prepare`): with
    /// many sessions most of it is not in the cache, and this way the misses of a batch are waited for together.
    public mutating func handle(
        batch: UnsafeBufferPointer<(topic: UnsafeRawBufferPointer, payload: UnsafeRawBufferPointer)>
    ) {
        let count = batch.count
        guard count > 0 else { return }
        precondition(count <= Self.batchLimit, "a batch holds at most \(Self.batchLimit) messages")
        let prepared = preparedTopics.topics
        table.prepare(batch, into: prepared)
        for k in 0..<count { handle(topic: batch[k].topic, payload: batch[k].payload, prepared: prepared[k]) }
    }
}
