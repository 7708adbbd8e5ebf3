import StrokeProtocol
import StrokeRecognition
import StrokeWorker

// MARK: - Messages to a session processor

extension FuzzTarget {
    /// The topics a fuzzed message goes to, by the low 3 bits of its control byte (`steps(_:)`): four sessions with their right
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

    /// The worker's configuration for a run, from the input's first byte: each bit turns one setting away from its
    /// default (bit 3 sets limits so small that fuzzed sessions meet them).
    static func configuration(_ bits: UInt8) -> WorkerConfiguration {
        var configuration = WorkerConfiguration()
        if bits & 1 != 0 { configuration.multistrokeMilliseconds = 500 }
        if bits & 2 != 0 { configuration.minimumStrokeSize = 20 }
        if bits & 4 != 0 { configuration.checkmarkByDefault = false }
        if bits & 8 != 0 {
            configuration.maxPointsPerStroke = 200
            configuration.maxPointsPerMessage = 64
            configuration.maxOpenStrokes = 2
            configuration.maxSessionTemplates = 2
            configuration.maxLearnedTemplates = 3
            configuration.maxSessions = 3
            configuration.maxMessageBytes = 2048
        }
        if bits & 16 != 0 { configuration.matchFollowsTilt = false }
        if bits & 32 != 0 { configuration.checkmarkFollowsTilt = false }
        return configuration
    }

    /// Feeds the steps of `bytes` (after its first byte, the configuration's) to two processors, one message at a
    /// time and in batches of up to 16, which must publish the same events; the sessions they then hold must write
    /// to a state file and read back the same; and a bystander session's check must still get its checkmark and its
    /// match (under the default configuration's limits: with bit 3's, the bystander may be one session too many).
    static func processor(_ bytes: UnsafeRawBufferPointer) {
        guard let bits = bytes.first else { return }
        let steps = steps(UnsafeRawBufferPointer(rebasing: bytes[1...]))
        var single = makeProcessor(configuration(bits))
        var batched = makeProcessor(configuration(bits))
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
        if bits & 8 == 0 { expectBystanderAnswered(&single) }
    }

    /// A processor of the built-in library with `configuration` (the worker's defaults unless given).
    static func makeProcessor(_ configuration: WorkerConfiguration = WorkerConfiguration()) -> SessionProcessor<
        CollectingSink
    > {
        SessionProcessor(
            sink: CollectingSink(), configuration: configuration, registry: FuzzFixtures.shared.registry,
            metrics: WorkerMetrics())
    }

    /// Hands `messages` to `processor` in batches of up to `batchLimit`, as the lane does.
    private static func feedBatches(
        _ processor: inout SessionProcessor<CollectingSink>, _ messages: [(topic: [UInt8], payload: [UInt8])]
    ) {
        guard !messages.isEmpty else { return }
        FrameCopies(messages).withBatch { processor.handle(batch: $0) }
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

    /// Sends a check for a session no fuzzed message names (its options first, over whatever the configuration
    /// gives a new session), and stops the run unless it gets its `checkmark` and its `match` of `check`, and
    /// nothing else.
    static func expectBystanderAnswered(_ processor: inout SessionProcessor<CollectingSink>) {
        processor.sink.removeAll()
        let topic = Array(ShardKey.topic(for: "bystander").utf8)
        let check = FuzzFixtures.shared.check
        let points = check.map { WirePoint(x: $0.x, y: $0.y, t: $0.time) }
        let options = SessionOptions(checkmark: true, multistroke: 0, minimumSize: 0)
        let payloads = [
            JSONInputEncoder.encode(InputMessage(kind: .options, sequence: 1, options: options)),
            BinaryCodec.encode(InputMessage(kind: .begin, sequence: 2, stroke: 1, points: Array(points[..<12]))),
            BinaryCodec.encode(InputMessage(kind: .points, sequence: 3, stroke: 1, points: Array(points[12..<30]))),
            BinaryCodec.encode(InputMessage(kind: .end, sequence: 4, stroke: 1, points: Array(points[30...]))),
        ]
        for payload in payloads {
            topic.withUnsafeBytes { topic in payload.withUnsafeBytes { processor.handle(topic: topic, payload: $0) } }
        }
        let kinds = processor.sink.events.map { event in
            (try? OutputEvent(decoding: Array(event.payload.utf8))).map { "\($0.kind) \($0.name ?? "")" } ?? "?"
        }
        guard kinds == ["checkmark ", "match check"] else { fail("the bystander's check got \(kinds)") }
    }
}
