import StrokeProtocol

/// A topic split and hashed ahead of its message, and where its session was found.
struct PreparedTopic {
    /// The session id's place in the topic (`ShardKey.sessionIDRange(unchecked:)`), or `nil` for a topic of
    /// another shape (or one not prepared).
    var sessionID: Range<Int>?
    /// The id's first 32 bytes, zero-padded (`SessionKey.head(of:)`), which the lookup compares.
    var head = SIMD4<UInt64>()
    /// The session table's hash of the id.
    var hash: UInt64 = 0
    /// The session's index if the first slots of its probe hold it (a hint for fetching only), else -1.
    var index: Int32 = -1
}

/// Room for a batch's prepared topics, allocated once per processor.
final class PreparedTopics {
    let topics: UnsafeMutablePointer<PreparedTopic>

    init(count: Int) {
        topics = .allocate(capacity: count)
        topics.initialize(repeating: PreparedTopic(), count: count)
    }

    deinit { topics.deallocate() }
}

extension SessionTable {
    /// Sessions from which `prepare` fetches their memory ahead. Measured in process (`stroke-bench --only
    /// processor`, single points): at 1,000 sessions, whose state stays in the caches, the extra passes cost 8-11%;
    /// at 10,000 they broke even until the second pass read more than the home slot (since then, ten rounds
    /// alternating: 374 against 476 ns per message, medians); at 100,000 they save 30%.
    static let prefetchFrom = 4096

    /// Splits and hashes each message's topic (the handler checks what no known session vouches for) and, from
    /// `prefetchFrom` sessions, fetches its session's memory ahead, in four passes: the home slot, the session,
    /// its first stroke's header, the lines the message will write. Each pass reads only what the pass before
    /// asked for, so the cache misses of the whole batch are waited for together.
    ///
    /// Mutating only so that the caller's processor is not copied for the call; nothing changes.
    mutating func prepare(
        _ batch: UnsafeBufferPointer<(topic: UnsafeRawBufferPointer, payload: UnsafeRawBufferPointer)>,
        into prepared: UnsafeMutablePointer<PreparedTopic>
    ) {
        let ahead = count >= Self.prefetchFrom
        for k in batch.indices {
            let topic = batch[k].topic
            if let range = ShardKey.sessionIDRange(unchecked: topic) {
                let id = UnsafeRawBufferPointer(rebasing: topic[range])
                let head = SessionKey.head(of: id)
                let hash = hash(id, head: head)
                if ahead { prefetchSlot(hash: hash) }
                prepared[k] = PreparedTopic(sessionID: range, head: head, hash: hash)
            } else {
                prepared[k] = PreparedTopic()
            }
        }
        guard ahead else { return }
        for k in batch.indices where prepared[k].sessionID != nil {
            prepared[k].index = prefetchSession(hash: prepared[k].hash)
        }
        for k in batch.indices where prepared[k].index >= 0 { prefetchStrokeHeader(at: prepared[k].index) }
        for k in batch.indices where prepared[k].index >= 0 { prefetchStrokeTail(at: prepared[k].index) }
    }
}
