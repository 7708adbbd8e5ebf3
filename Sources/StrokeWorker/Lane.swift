import Foundation
import StrokeProtocol
import ZeroMQ

#if canImport(Glibc)
    import Glibc
#endif

/// One session thread: owns its SUB socket and a share of the sessions, and runs the receive loop. It owns its
/// XPUB socket too, unless it has a publisher thread (`WorkerConfiguration.recognitionThread`), which then owns
/// the XPUB and recognizes the finished strokes the lane hands it. Otherwise a recognition helper thread
/// (`WorkerConfiguration.recognitionOffload`) takes the finished strokes while the lane is saturated.
struct Lane: Sendable {
    let index: Int
    let context: ZMQContext
    let configuration: WorkerConfiguration
    /// The template libraries; the lane and its helper or publisher threads each take their own copy.
    let libraries: LibrarySource
    let metrics: WorkerMetrics
    let control: WorkerControl
    let logger: Logger
    /// Where the lane's SUB socket reads: the worker's inputs, or the input forwarder's inproc endpoint.
    let inputs: [WorkerConfiguration.Endpoint]
    /// Where the lane's XPUB socket writes: the worker's outputs, or the output forwarder's inproc endpoint.
    let outputs: [WorkerConfiguration.Endpoint]
    /// The topic prefixes this lane subscribes to.
    let prefixes: [String]
    /// Whether this lane publishes the statistics events.
    let publishesStats: Bool
    /// Whether this lane's endpoints are the worker's own (not a forwarder's inproc ones).
    let recordsEndpoints: Bool
    /// The handler of CURVE handshakes, when the lane reads the worker's own input endpoints and they admit listed
    /// client keys only: after a reload revokes keys, the lane cuts the connections made with them
    /// (`ConnectionVetting`).
    let authenticator: ClientAuthenticator?
    /// Where the connection events of the lane's sockets go, when they are the worker's own (`recordsEndpoints`).
    let connectionWatch: ConnectionWatch?
    /// Where the lane hands over its checkpoints (`WorkerConfiguration.checkpointIntervalSeconds`), if it does.
    let checkpointer: Checkpointer?
    /// Sessions of this lane's buckets kept in the state file, restored before the lane reads its first message
    /// (and then let go).
    var restored = SessionHandoff()

    /// Most messages handled between two polls.
    static let batchLimit = 4096
    /// Input messages handled between two sends of the queued events.
    static let eventBatch = 32
    /// Most changed sessions a lane copies for a checkpoint per turn of its loop: at most 2.4–3.2 ms of its time
    /// in `make state-file` (where one part of all 101,000 at once took 47 ms).
    static let checkpointPart = 1024
    /// How long a poll waits before the lane's clock work (idle sweep, statistics) runs anyway.
    static let pollMilliseconds = 100

    /// The receive loop; returns after a graceful drain.
    func run() throws {
        let input = try ZMQSocket(context, .sub)
        try configureInput(input)
        // Endpoints libzmq gave up after a failed handshake, connected again on this thread (`ConnectionWatch`).
        // A producer's message that never ends is held by libzmq, out of the lane's sight: the connection watch
        // cuts it, from what the lane notes of the connections it reads (`UnfinishedMessageTracker`).
        let unfinished = connectionWatch.map { _ in
            UnfinishedMessageGuard(disconnectingMessageBytes: configuration.disconnectingMessageBytes)
        }
        var redials =
            try connectionWatch.map {
                [(try $0.watch(input, role: .input, endpoints: inputs, unfinished: unfinished), input)]
            } ?? []
        // The lane's own copy of the libraries: lanes and helper threads share no reference count.
        var generation = -1
        let registry = libraries.refresh(&generation)!
        if configuration.recognitionThread {
            let pipe = EventPipe()
            let publisher = Publisher(
                name: "publish-\(index)", pipe: pipe, context: context, configuration: configuration, metrics: metrics,
                logger: logger, outputs: outputs, recordEndpointsIn: recordsEndpoints ? control : nil,
                libraries: libraries, authenticator: authenticator, connectionWatch: connectionWatch,
                heldBack: heldBack)
            try publisher.start()
            defer { publisher.finish() }
            try attachInputs(input)
            var processor = SessionProcessor(
                sink: PipelineSink(pipe: pipe), configuration: configuration, registry: registry, metrics: metrics)
            try loop(
                input: input, output: nil, processor: &processor, generation: generation, redials: redials,
                unfinished: unfinished)
        } else {
            let output = try ZMQSocket(context, .xpub)
            try Publisher.configure(output, configuration, external: recordsEndpoints)
            if let redial = try connectionWatch?.watch(output, role: .output, endpoints: outputs) {
                redials.append((redial, output))
            }
            let subscriptions = try OutputSubscriptions(
                socket: output, authenticator: authenticator,
                limit: recordsEndpoints ? configuration.outputSubscriptionLimit : 0, metrics: metrics, logger: logger)
            for endpoint in outputs { try attach(output, endpoint, role: "output") }
            try attachInputs(input)
            var sink = SocketSink(socket: output, metrics: metrics)
            sink.heldBack = heldBack
            if configuration.recognitionOffload != .off {
                let helper = try RecognitionHelper(lane: index, libraries: libraries, metrics: metrics)
                helper.start()
                defer { helper.finish() }
                var processor = SessionProcessor(
                    sink: OffloadingSink(socket: sink, helper: helper, registry: registry),
                    configuration: configuration,
                    registry: registry, metrics: metrics)
                try loop(
                    input: input, output: subscriptions, processor: &processor, generation: generation,
                    redials: redials, unfinished: unfinished)
            } else {
                var processor = SessionProcessor(
                    sink: sink, configuration: configuration, registry: registry, metrics: metrics)
                try loop(
                    input: input, output: subscriptions, processor: &processor, generation: generation,
                    redials: redials, unfinished: unfinished)
            }
        }
    }

    /// `generation`: that of the libraries the processor holds (`LibrarySource.refresh`); `redials`: the lane's
    /// sockets that `connectionWatch` watches, with where it asks for their endpoints to be connected again;
    /// `unfinished`: where the lane hands what it notes of its producers' connections, when it reads them.
    private func loop<Sink: LaneSink>(
        input: ZMQSocket, output: OutputSubscriptions?, processor: inout SessionProcessor<Sink>, generation: Int,
        redials: [(ConnectionWatch.Redial, ZMQSocket)], unfinished: UnfinishedMessageGuard?
    ) throws {
        var output = output
        var generation = generation
        if let sessions = restored.take(), !sessions.isEmpty {
            let clock = ContinuousClock()
            let started = clock.now
            let restoring = processor.restore(sessions)
            report(restoring, took: clock.now - started)
        }
        checkpoint(&processor, whole: true)
        if publishesStats { beat() }
        control.readyLanes.add(1, ordering: .releasing)
        defer { control.finishedLanes.add(1, ordering: .releasing) }
        let batch = MessageBatch(count: SessionProcessor<Sink>.batchLimit)
        // With a publisher thread, that thread owns the output socket and reads its subscriptions. A sink whose
        // events wait for a helper's results is woken by its signal, after the sockets.
        let sockets = output.map { [input, $0.socket] } ?? [input]
        let signal = processor.sink.signal
        var poller = ZMQPoller(readable: sockets, signals: signal.map { [$0] } ?? [])
        let clock = ContinuousClock()
        let started = clock.now
        var lastSweep: UInt32 = 0
        var lastStats: UInt32 = 0
        var lastCheckpoint: UInt32 = 0
        var checkpointDue = false
        var load = LaneLoad(now: started)
        // Time between polls, handed to the metrics once a second (`laneBusyMicroseconds`).
        var busy = Duration.zero
        var lastPolled = started
        var vetting = authenticator.map { ConnectionVetting(authenticator: $0) }
        var sampler = unfinished.map { _ in MessageSampler() }
        processor.sink.saturated = configuration.recognitionOffload == .always
        /// Milliseconds from the lane's start to `instant`, by which gestures of several strokes wait.
        func milliseconds(_ instant: ContinuousClock.Instant = clock.now) -> UInt64 {
            let (seconds, attoseconds) = (instant - started).components
            return UInt64(max(0, seconds)) * 1000 + UInt64(max(0, attoseconds) / 1_000_000_000_000_000)
        }
        while !control.isStopping {
            let polling = clock.now
            busy += polling - lastPolled
            // A gesture due before the usual timeout shortens the poll.
            var timeout = Self.pollMilliseconds
            if processor.nextGestureDeadline != .max {
                let now = milliseconds()
                let due = processor.nextGestureDeadline
                timeout = due <= now ? 0 : Int(min(UInt64(timeout), due - now))
            }
            let ready = try poller.poll(timeoutMilliseconds: timeout)
            let polled = clock.now
            lastPolled = polled
            processor.milliseconds = milliseconds(polled)
            // Reloaded libraries (SIGHUP) apply from the messages read after it, one atomic load per poll.
            if let fresh = libraries.refresh(&generation) { processor.replaceRegistry(fresh) }
            // Revoked client keys (SIGHUP) are looked for from the messages read after it: one atomic load.
            vetting?.refresh()
            output?.refresh()
            // Endpoints given up after a failed handshake: one atomic load per socket and poll.
            for (redial, socket) in redials { redial.apply(to: socket, logger: logger) }
            if configuration.recognitionOffload == .whenBusy {
                load.waited(from: polling, to: polled)
                processor.sink.saturated = load.saturated
            }
            if ready > 0, poller.isReadable(0) {
                try receiveBatch(input, batch, &processor, &vetting, &sampler, limit: Self.batchLimit)
            } else {
                sampler?.emptied = true
            }
            if let unfinished, sampler != nil { unfinished.collect(from: &sampler!) }
            if ready > 0 {
                if output != nil, poller.isReadable(1) { try output?.drain() }
                if signal != nil, poller.isReadable(sockets.count) { processor.sink.signalled() }
            }
            if processor.nextGestureDeadline != .max {
                processor.milliseconds = milliseconds()
                processor.matchDueGestures()
            }
            processor.flushMetrics()
            processor.sink.idle()
            let now = UInt32(clamping: (clock.now - started).components.seconds)
            if now != processor.now {
                processor.now = now
                if now &- lastSweep >= 1 {
                    lastSweep = now
                    metrics.laneBusyMicroseconds.add(Int(busy / .microseconds(1)), ordering: .relaxed)
                    busy = .zero
                    processor.evictIdle()
                    processor.sink.idle()  // the closed events now, not after the next poll
                    if publishesStats { beat() }
                }
                if publishesStats, configuration.statsIntervalSeconds > 0,
                    now &- lastStats >= UInt32(configuration.statsIntervalSeconds)
                {
                    lastStats = now
                    publishStats(into: &processor.sink)
                }
                if checkpointer != nil, now &- lastCheckpoint >= UInt32(configuration.checkpointIntervalSeconds) {
                    lastCheckpoint = now
                    checkpointDue = true
                }
            }
            if checkpointDue { checkpointDue = checkpoint(&processor, whole: false) }
        }
        // Stop intake: finish what is already queued (bounded in time), then close with a linger.
        let drainStarted = clock.now
        while clock.now - drainStarted < .seconds(2),
            try receiveBatch(input, batch, &processor, &vetting, &sampler, limit: Self.batchLimit) > 0
        {}
        // Gestures still waiting for a stroke are matched with the strokes they have.
        processor.matchAllGestures()
        processor.flushMetrics()
        processor.sink.flush()
        try? input.setLinger(milliseconds: 0)
        if configuration.stateFile != nil {
            let sessions = processor.snapshot()
            control.savedSessions.withLock { $0.append(contentsOf: sessions) }
        }
    }

    /// Hands the lane's checkpoint (`whole`) or a part of what changed in it (`checkpointPart` sessions) to the
    /// checkpointer, if there is one, with the time it took to make; returns whether more of the changes wait.
    @discardableResult
    private func checkpoint(_ processor: inout SessionProcessor<some LaneSink>, whole: Bool) -> Bool {
        guard let checkpointer else { return false }
        let clock = ContinuousClock()
        let started = clock.now
        let handover: Checkpointer.Handover =
            whole ? .all(processor.checkpoint()) : .changes(processor.checkpointChanges(limit: Self.checkpointPart))
        let more = processor.hasCheckpointChanges
        checkpointer.handOver(lane: index, handover, took: clock.now - started, completesRound: !more)
        return more
    }

    /// Logs what the lane made of the sessions of the state file, in `took`.
    private func report(_ report: RestoreReport, took: Duration) {
        logger.info(
            "sessions restored from the state file",
            [
                "lane": "\(index)", "restored": "\(report.restored)", "skipped": "\(report.skipped.count)",
                "learnedTemplatesDropped": "\(report.templatesDropped)", "milliseconds": took.millisecondsText,
            ])
        for reason in report.skipped.prefix(5) { logger.warning("not restored: \(reason)") }
        if report.skipped.count > 5 { logger.warning("not restored: \(report.skipped.count - 5) more sessions") }
    }

    /// Tells the liveness checks that the loop runs: the health file and `/healthz`.
    private func beat() {
        Self.log(control.beat(healthFile: configuration.healthFile), healthFile: configuration.healthFile, logger)
    }

    /// Logs a change in whether the health file can be touched: a probe that reads it fails meanwhile, and would
    /// otherwise restart a worker that runs, with nothing in its log to say why.
    private static func log(_ change: WorkerControl.HealthFileChange?, healthFile: String?, _ logger: Logger) {
        switch change {
        case .failing(let reason)?:
            logger.warning(
                "cannot touch the health file; liveness probes that read it will fail",
                ["path": healthFile ?? "", "reason": reason])
        case .touchedAgain?: logger.info("the health file is touched again", ["path": healthFile ?? ""])
        case nil: break
        }
    }

    /// What the lane's events do when a send waited the send timeout for a consumer behind (`SocketSink.heldBack`),
    /// with `--slow-consumers wait`: the first lane tells the liveness checks that the worker runs, for a worker that
    /// waits for a slow consumer by design is not hung (restarted, it would lose its sessions, and the consumer would
    /// be as slow); and once the stop was asked for `--linger` ago, every lane's sends stop waiting (false), so that a
    /// consumer that takes nothing cannot hold the drain, and the state file, back for good. Nil in `drop` mode,
    /// where such a wait is the worker's own (its output forwarder).
    var heldBack: (@Sendable () -> Bool)? {
        guard configuration.slowConsumers == .wait else { return nil }
        let (control, healthFile, beats, logger) = (control, configuration.healthFile, publishesStats, logger)
        let linger = configuration.lingerMilliseconds
        return {
            if beats { Self.log(control.beat(healthFile: healthFile), healthFile: healthFile, logger) }
            return !control.stoppedLongerThan(milliseconds: linger)
        }
    }

    private func configureInput(_ input: ZMQSocket) throws {
        // Subscriptions travel upstream as messages on the send side: with a shard's 1,365 bucket prefixes the
        // default send high-water mark (1,000) would drop some of them silently.
        try input.setHighWaterMarks(send: 0, receive: configuration.inputHighWaterMark)
        try input.setMaxMessageSize(configuration.disconnectingMessageBytes)
        try WorkerConfiguration.applyHeartbeat(milliseconds: configuration.heartbeatMilliseconds, to: input)
        try WorkerConfiguration.applyKeepalive(seconds: configuration.tcpKeepaliveSeconds, to: input)
        if recordsEndpoints { try configuration.security?.apply(to: input) }
        for prefix in prefixes { try input.subscribe(prefix) }
    }

    private func attachInputs(_ input: ZMQSocket) throws {
        for endpoint in inputs { try attach(input, endpoint, role: "input") }
    }

    private func attach(_ socket: ZMQSocket, _ endpoint: WorkerConfiguration.Endpoint, role: String) throws {
        let bound = try socket.attach(endpoint)
        guard recordsEndpoints else { return }
        let actual = bound ?? "connect:\(endpoint.address)"
        control.endpoints.withLock { $0.append("\(role):\(actual)") }
    }

    /// Receives what is queued (at most `limit` messages) without blocking and hands the two-frame messages to
    /// the processor in batches; a message of another shape is reported in its place in the order, and one whose
    /// connection's client key was revoked is dropped (`vetting`). Each message read, whatever its shape, goes by
    /// `sampler`, which is told when the input was found empty. Returns how many messages it received.
    @discardableResult
    private func receiveBatch(
        _ input: ZMQSocket, _ batch: MessageBatch, _ processor: inout SessionProcessor<some LaneSink>,
        _ vetting: inout ConnectionVetting?, _ sampler: inout MessageSampler?, limit: Int
    ) throws -> Int {
        let messages = batch.messages
        var handled = 0
        var pending = 0
        do {
            while handled < limit, try input.receive(into: messages, at: 2 * pending, dontWait: true) {
                handled += 1
                var frames = 1
                // The bytes of a message of another shape, all its frames.
                var bytes = 0
                if messages.hasMore(at: 2 * pending) {
                    try input.receive(into: messages, at: 2 * pending + 1)
                    frames = 2
                    if !messages.hasMore(at: 2 * pending + 1) {
                        let parts = (messages.bytes(at: 2 * pending), messages.bytes(at: 2 * pending + 1))
                        sampler?.read(bytes: parts.0.count + parts.1.count) {
                            messages.sourceDescriptor(at: 2 * pending)
                        }
                        if vetting?.admits(messages, at: 2 * pending) == false { continue }
                        batch.frames[pending] = parts
                        pending += 1
                        let sends = handled % Self.eventBatch == 0
                        if pending == batch.count || sends {
                            processor.handle(batch: batch.pending(pending))
                            pending = 0
                        }
                        if sends { processor.sink.send() }
                        continue
                    }
                    let extra = ZMQMessage()
                    repeat {
                        try input.receive(into: extra)
                        frames += 1
                        bytes += extra.count
                    } while extra.hasMore
                }
                bytes += messages.bytes(at: 2 * pending).count
                if frames > 1 { bytes += messages.bytes(at: 2 * pending + 1).count }
                sampler?.read(bytes: bytes) { messages.sourceDescriptor(at: 2 * pending) }
                if vetting?.admits(messages, at: 2 * pending) == false { continue }
                // One frame, or more than two: the messages before it first.
                processor.handle(batch: batch.pending(pending))
                processor.handleFrameCount(frames, firstFrame: messages.bytes(at: 2 * pending))
                pending = 0
            }
        } catch {
            // What was received is handled even when a receive fails (the socket closing under a shutdown).
            processor.handle(batch: batch.pending(pending))
            throw error
        }
        processor.handle(batch: batch.pending(pending))
        processor.sink.send()
        // Fewer than `limit`: the last receive found the input empty.
        if handled < limit { sampler?.emptied = true }
        return handled
    }

    private func publishStats(into sink: inout some LaneSink) {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("v")
        writer.integer(1)
        writer.key("event")
        writer.string("stats")
        writer.key("shard")
        writer.string("\(configuration.shard.index)/\(configuration.shard.count)")
        writer.key("counters")
        writer.beginObject()
        let snapshot = metrics.snapshot
        for (name, value) in snapshot.sorted(by: { $0.key < $1.key }) {
            writer.keyDynamic(name)
            writer.integer(value)
        }
        writer.endObject()
        writer.endObject()
        var topic = EventEncoder.systemTopic
        topic.withUTF8 { sink.publish(topic: UnsafeRawBufferPointer($0), payload: writer.bytes) }
        sink.idle()
        logger.info("stats", snapshot.mapValues(String.init))
    }
}
