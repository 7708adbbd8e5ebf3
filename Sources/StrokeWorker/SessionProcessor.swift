import StrokeProtocol
import StrokeRecognition

/// The sessions of one lane: decodes each message in place, updates its session's state in order, runs the
/// checkmark detector as points arrive and the template matcher when a stroke ends, and publishes events.
///
/// It owns its state outright and is used by one thread; nothing here touches a socket, so it is tested with a
/// `CollectingSink`.
public struct SessionProcessor<Sink: EventSink> {
    /// The sessions, and everything else: kept apart so that a session is updated in place (`core` mutates
    /// while `table` lends it one session) with no copy of its buffers.
    var table = SessionTable()
    var core: Core
    /// Scratch for `handle(batch:)`.
    let preparedTopics = PreparedTopics(count: batchLimit)

    /// Where events go.
    public var sink: Sink {
        get { core.sink }
        _modify { yield &core.sink }
    }

    /// The lane's clock in seconds, advanced by the caller.
    public var now: UInt32 = 0

    /// Creates a processor.
    public init(sink: Sink, configuration: WorkerConfiguration, registry: LibraryRegistry, metrics: WorkerMetrics) {
        self.core = Core(sink: sink, configuration: configuration, registry: registry, metrics: metrics)
    }

    /// Number of sessions held.
    public var sessionCount: Int { table.count }

    /// Recognizes with `registry` from now on: the same libraries in the same order, reloaded (sessions keep
    /// their library's index).
    mutating func replaceRegistry(_ registry: LibraryRegistry) where Sink: LaneSink {
        core.registry = registry
        core.sink.replaceRegistry(registry)
        // Learned templates follow their library's orientation and rotation bound, which the reload may change.
        core.learned = core.learned.mapValues {
            $0.recompiled(entry: registry.entries[Int($0.slot.library)], metrics: metrics)
        }
    }

    var configuration: WorkerConfiguration { core.configuration }
    var metrics: WorkerMetrics { core.metrics }

    // MARK: - Messages

    /// Handles one two-frame input message.
    public mutating func handle(topic: UnsafeRawBufferPointer, payload: UnsafeRawBufferPointer) {
        applyTiltFeedback()
        handle(topic: topic, payload: payload, prepared: PreparedTopic())
    }

    /// Handles a message whose topic `SessionTable.prepare` may have split and hashed already.
    @inline(__always)
    mutating func handle(topic: UnsafeRawBufferPointer, payload: UnsafeRawBufferPointer, prepared: PreparedTopic) {
        core.pendingMessages += 1
        let range: Range<Int>
        var hash = prepared.hash
        var head = prepared.head
        if let prepared = prepared.sessionID {
            range = prepared
        } else if let split = ShardKey.sessionIDRange(unchecked: topic) {
            range = split
            let id = UnsafeRawBufferPointer(rebasing: topic[range])
            head = SessionKey.head(of: id)
            hash = table.hash(id, head: head)
        } else {
            // A topic of another shape, which the check refuses with its reason.
            let passed = checkTopic(topic)
            assert(!passed, "the check passed a topic that sessionIDRange(unchecked:) refused")
            return
        }
        let id = UnsafeRawBufferPointer(rebasing: topic[range])
        var index = table.find(id, hash: hash, head: head)
        // A known session vouches for the topic it began under; anything else is checked in full: a new id, or a
        // known one under other first bytes (another shard key, which the check refuses).
        let shardKey = topic.loadUnaligned(as: UInt32.self)
        if index.map({ table.shardKey(at: $0) }) != shardKey {
            guard checkTopic(topic) else { return }
        }
        guard payload.count <= configuration.maxMessageBytes else {
            // A binary message's `seq` is in its header; a JSON text this large is not scanned for it.
            refuse(
                id, at: index, code: ProtocolError.Code.messageTooLarge.rawValue,
                "message is \(payload.count) bytes; the limit is \(configuration.maxMessageBytes)",
                sequence: payload.first == BinaryCodec.magic ? InputDecoder.sequence(ofRefused: payload) : nil)
            return
        }
        do {
            try core.decoder.decode(payload, into: &core.message)
        } catch {
            refuse(
                id, at: index, code: error.code.rawValue, error.message,
                sequence: InputDecoder.sequence(ofRefused: payload))
            return
        }
        core.pendingPoints += core.message.points.count
        if index == nil {
            // A ping creates no session (`Core.process` answers one for a session held).
            if core.message.kind == .ping {
                core.pong(id, known: false)
                return
            }
            guard table.count < configuration.maxSessions else {
                sessionError(
                    id, at: nil, code: "too_many_sessions",
                    "the worker holds \(configuration.maxSessions) sessions, its limit", sequence: core.message.sequence
                )
                return
            }
            index = table.insert(
                Session(
                    key: SessionKey(id), hash: hash, shardKey: shardKey, now: now,
                    checkmark: configuration.checkmarkByDefault, followsTilt: configuration.checkmarkFollowsTilt,
                    multistroke: UInt16(configuration.multistrokeMilliseconds)))
            metrics.sessions.add(1, ordering: .relaxed)
        }
        if core.process(&table[index!], id: id) {
            table[index!].lastActive = now
        } else {
            endSession(at: index!)
        }
    }

    /// Drops a session that closed. Out of line: the per-message path only branches to it (inlined, its code cost
    /// every message 8 instructions, `make profile`).
    @inline(never)
    private mutating func endSession(at index: Int) {
        core.noteSettingsChanged(table[index].key)
        table.remove(at: index)
        metrics.sessions.subtract(1, ordering: .relaxed)
    }

    /// Checks a topic in full (`ShardKey.check`); reports why it is refused, if it is.
    private mutating func checkTopic(_ topic: UnsafeRawBufferPointer) -> Bool {
        do {
            _ = try ShardKey.check(topic: topic)
            return true
        } catch {
            core.systemError(error.code.rawValue, "\(error.message) (topic \(Self.preview(topic)))")
            return false
        }
    }

    /// Handles a message that does not have exactly two frames.
    public mutating func handleFrameCount(_ count: Int, firstFrame: UnsafeRawBufferPointer) {
        core.pendingMessages += 1
        let message = "a message has 2 frames [topic, payload]; this one had \(count)"
        if let range = try? ShardKey.sessionID(inTopic: firstFrame) {
            let id = UnsafeRawBufferPointer(rebasing: firstFrame[range])
            sessionError(id, at: table.find(id, hash: table.hash(id)), code: "frame_count", message)
        } else {
            core.systemError("frame_count", message)
        }
    }

    /// Reports a message refused before it reached its session. Where its `seq` could be read, it takes its number
    /// in a session the worker holds, as a message the session drops after decoding does (Protocol/README.md,
    /// section 5): the next one is in line, not reported as a gap. A session the worker holds no state for gets
    /// none.
    private mutating func refuse(
        _ id: UnsafeRawBufferPointer, at index: Int?, code: String, _ text: String, sequence: UInt32?
    ) {
        guard let index, let sequence else {
            sessionError(id, at: index, code: code, text, sequence: sequence)
            return
        }
        core.refuse(&table[index], id: id, code: code, text, sequence: sequence)
        table[index].lastActive = now
    }

    /// An error for a session that may have no state (then its event is numbered 0).
    private mutating func sessionError(
        _ id: UnsafeRawBufferPointer, at index: Int?, code: String, _ text: String, sequence: UInt32? = nil
    ) {
        var eventSequence: UInt64 = 0
        if let index {
            table[index].eventSequence += 1
            eventSequence = table[index].eventSequence
        }
        core.sessionError(id, eventSequence: eventSequence, code: code, text, sequence: sequence)
    }

    // MARK: - Idle sessions

    /// Drops sessions idle for longer than the configured timeout, with a `closed` event (`reason: idle`).
    public mutating func evictIdle() {
        let timeout = UInt32(clamping: configuration.idleTimeoutSeconds)
        var index = table.count - 1
        while index >= 0 {
            if now &- table[index].lastActive > timeout {
                core.closeIdle(&table[index])
                core.noteSettingsChanged(table[index].key)
                table.remove(at: index)
                metrics.sessions.subtract(1, ordering: .relaxed)
            }
            index -= 1
        }
        core.choicePool.prune()
    }

    /// Adds the counts of the messages handled since the last call to the shared metrics.
    public mutating func flushMetrics() { core.flushMetrics() }

    static func preview(_ bytes: UnsafeRawBufferPointer) -> String {
        let head = bytes.prefix(48).map {
            $0 >= 0x20 && $0 < 0x7F ? String(UnicodeScalar($0)) : "\\x" + String($0, radix: 16)
        }
        return "\"" + head.joined() + (bytes.count > 48 ? "…" : "") + "\""
    }
}
