import StrokeProtocol
import StrokeRecognition
import StrokeWorker

// MARK: - Messages to a session processor

extension FuzzTarget {
    /// The topics a fuzzed message goes to, by the low 3 bits of its first byte: four sessions with their right
    /// shard keys, one with a wrong key, an empty topic; 6 takes the topic from the input, 7 is a message of the
    /// wrong frame count.
    static let topics: [[UInt8]] =
        (0..<4).map { Array(ShardKey.topic(for: "fuzz-\($0)").utf8) } + [
            Array("fff/fuzz-0".utf8), [],
        ]

    /// One step of a fuzzed run.
    enum Step {
        /// A two-frame message.
        case message(topic: [UInt8], payload: [UInt8])
        /// A message of 1 or 3 frames (the first given).
        case frames(count: Int, first: [UInt8])
        /// The clocks move on: the gestures' by 250 ms (and those due are matched), the idle clock by 100 s (and
        /// idle sessions are closed).
        case tick(idle: Bool)
    }

    /// Splits `bytes` into steps. Each message is a control byte (the topic, above; bit 3 adds a tick before the
    /// message, bit 4 an idle tick), a 16-bit little-endian payload length (cut to what is left) and the payload.
    static func steps(_ bytes: UnsafeRawBufferPointer) -> [Step] {
        var steps = [Step]()
        var at = 0
        func take(_ count: Int) -> [UInt8] {
            let end = min(at + count, bytes.count)
            defer { at = end }
            return Array(bytes[at..<end])
        }
        while at < bytes.count {
            let control = bytes[at]
            at += 1
            if control & 8 != 0 { steps.append(.tick(idle: false)) }
            if control & 16 != 0 { steps.append(.tick(idle: true)) }
            var topic = Int(control & 7) < topics.count ? topics[Int(control & 7)] : []
            if control & 7 == 6 { topic = take(Int(take(1).first ?? 0) % 40) }
            let length = take(2)
            let payload = take(length.count == 2 ? Int(length[0]) | Int(length[1]) << 8 : 0)
            if control & 7 == 7 {
                steps.append(.frames(count: control & 32 == 0 ? 1 : 3, first: payload))
            } else {
                steps.append(.message(topic: topic, payload: payload))
            }
        }
        return steps
    }

    /// Feeds the steps of `bytes` to two processors, one message at a time and in batches of up to 16, which must
    /// publish the same events; the sessions they then hold must write to a state file and read back the same; and a
    /// bystander session's check must still get its checkmark and its match.
    static func processor(_ bytes: UnsafeRawBufferPointer) {
        let steps = steps(bytes)
        var single = makeProcessor()
        var batched = makeProcessor()
        var pending = [(topic: [UInt8], payload: [UInt8])]()
        func flush() {
            feedBatches(&batched, pending)
            pending.removeAll()
        }
        for step in steps {
            switch step {
            case .message(let topic, let payload):
                topic.withUnsafeBytes { topic in
                    payload.withUnsafeBytes { single.handle(topic: topic, payload: $0) }
                }
                pending.append((topic, payload))
            case .frames(let count, let first):
                flush()
                for processor in [0, 1] {
                    first.withUnsafeBytes {
                        if processor == 0 {
                            single.handleFrameCount(count, firstFrame: $0)
                        } else {
                            batched.handleFrameCount(count, firstFrame: $0)
                        }
                    }
                }
            case .tick(let idle):
                flush()
                tick(&single, idle: idle)
                tick(&batched, idle: idle)
            }
        }
        flush()
        single.matchAllGestures()
        batched.matchAllGestures()
        let one = single.sink.events
        let other = batched.sink.events
        guard one.count == other.count, zip(one, other).allSatisfy({ $0 == $1 }) else {
            let at = zip(one, other).enumerated().first { $0.element.0 != $0.element.1 }?.offset
            let shown = at.map { "\(one[$0]) one at a time, \(other[$0]) in batches" } ?? "one stream ends first"
            fail("\(one.count) events one at a time, \(other.count) in batches; the first that differs: \(shown)")
        }
        expectWrittenAndReadBack(single)
        expectBystanderAnswered(&single)
    }

    /// A processor of the built-in library with the worker's defaults.
    static func makeProcessor() -> SessionProcessor<CollectingSink> {
        SessionProcessor(
            sink: CollectingSink(), configuration: WorkerConfiguration(), registry: FuzzFixtures.shared.registry,
            metrics: WorkerMetrics())
    }

    /// Hands `messages` to `processor` in batches of up to `batchLimit`, as the lane does.
    private static func feedBatches(
        _ processor: inout SessionProcessor<CollectingSink>, _ messages: [(topic: [UInt8], payload: [UInt8])]
    ) {
        guard !messages.isEmpty else { return }
        // Copied into one buffer, so that the frames' pointers stay valid for the whole batch.
        let total = messages.reduce(0) { $0 + $1.topic.count + $1.payload.count }
        let storage = UnsafeMutableRawBufferPointer.allocate(byteCount: max(total, 1), alignment: 8)
        defer { storage.deallocate() }
        var frames = [(topic: UnsafeRawBufferPointer, payload: UnsafeRawBufferPointer)]()
        var offset = 0
        func place(_ bytes: [UInt8]) -> UnsafeRawBufferPointer {
            let target = UnsafeMutableRawBufferPointer(rebasing: storage[offset..<offset + bytes.count])
            bytes.withUnsafeBytes { target.copyMemory(from: $0) }
            offset += bytes.count
            return UnsafeRawBufferPointer(target)
        }
        for message in messages { frames.append((place(message.topic), place(message.payload))) }
        frames.withUnsafeBufferPointer { processor.handle(batch: $0) }
    }

    /// Moves the processor's clocks on (`Step.tick`).
    private static func tick(_ processor: inout SessionProcessor<CollectingSink>, idle: Bool) {
        if idle {
            processor.now += 100
            processor.evictIdle()
        } else {
            processor.milliseconds += 250
            processor.matchDueGestures()
        }
    }

    /// Sends a check for a session no fuzzed message names, and stops the run unless it gets its `checkmark` and
    /// its `match` of `check`, and nothing else.
    static func expectBystanderAnswered(_ processor: inout SessionProcessor<CollectingSink>) {
        processor.sink.removeAll()
        let topic = Array(ShardKey.topic(for: "bystander").utf8)
        let check = FuzzFixtures.shared.check
        let points = check.map { WirePoint(x: $0.x, y: $0.y, t: $0.time) }
        let messages = [
            InputMessage(kind: .begin, sequence: 1, stroke: 1, points: Array(points[..<12])),
            InputMessage(kind: .points, sequence: 2, stroke: 1, points: Array(points[12..<30])),
            InputMessage(kind: .end, sequence: 3, stroke: 1, points: Array(points[30...])),
        ]
        for message in messages {
            topic.withUnsafeBytes { topic in
                BinaryCodec.encode(message).withUnsafeBytes { processor.handle(topic: topic, payload: $0) }
            }
        }
        let kinds = processor.sink.events.map { event in
            (try? OutputEvent(decoding: Array(event.payload.utf8))).map { "\($0.kind) \($0.name ?? "")" } ?? "?"
        }
        guard kinds == ["checkmark ", "match check"] else { fail("the bystander's check got \(kinds)") }
    }
}
