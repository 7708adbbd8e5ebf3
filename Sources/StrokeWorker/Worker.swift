import Foundation
import StrokeProtocol
import StrokeRecognition
import Synchronization
import ZeroMQ

/// The stroke worker: lanes of sessions fed by ZeroMQ SUB sockets, events out on XPUB.
///
/// `run()` starts the lanes (and, with several lanes, an input and an output forwarder) on dedicated threads
/// and returns once they have drained after `shutdown()`: intake stops, every message already received is
/// handled, and events are flushed with the configured linger.
public final class Worker: Sendable {
    /// The configuration in use.
    public let configuration: WorkerConfiguration
    /// Shared counters.
    public let metrics = WorkerMetrics()
    let context: ZMQContext
    /// The template libraries, reloaded by `reloadLibraries()`.
    let libraries: LibrarySource
    /// Serializes reloads.
    let reloading = Mutex(())
    let logger: Logger
    let control = WorkerControl()
    let lifecycle = Mutex(WorkerLifecycle())
    let identifier = UInt32.random(in: 0...UInt32.max)
    /// The ZAP handler, when only authorized CURVE clients are admitted.
    let authenticator: ClientAuthenticator?
    /// The writer of checkpoints to the state file, when there is one and checkpoints are on.
    let checkpointer: Checkpointer?
    /// The watch of the input and output sockets' connections: counts and logs them.
    let connections: ConnectionWatch

    /// Creates a worker; libraries are compiled here.
    ///
    /// - Parameter context: a shared context (tests use one to speak inproc); by default the worker makes its own.
    public init(configuration: WorkerConfiguration, context: ZMQContext? = nil, logger: Logger? = nil) throws {
        var configuration = configuration
        // Through a symbolic link, the state file is the link's target: read, removed, checkpointed and written
        // there, with the link kept. Renamed over the link's own path, it replaced the link (and landed beside it,
        // not on the volume the link points to).
        configuration.stateFile = configuration.stateFile.map(RecognitionError.linkTarget(of:))
        try configuration.validate()
        // Touched once here, so that a path the worker cannot write (a directory that does not exist) stops it at
        // the start with the system's reason, instead of failing every liveness probe that reads the file.
        if let healthFile = configuration.healthFile, let failure = WorkerControl.touch(healthFile) {
            throw RecognitionError(.invalidConfiguration, "--health-file \(healthFile): \(failure)")
        }
        self.configuration = configuration
        metrics.lanes.store(configuration.lanes, ordering: .relaxed)
        self.context = try context ?? ZMQContext(ioThreads: 1)
        self.logger =
            logger
            ?? Logger(
                level: configuration.logLevel, format: configuration.logFormat,
                label: "stroke-worker \(configuration.shard.index)/\(configuration.shard.count)")
        self.libraries = LibrarySource(
            try LibraryRegistry(
                [try TemplateLibrary.builtIn()] + configuration.libraries, configuration: configuration.recognizer))
        authenticator = ClientAuthenticator.forListedClients(
            configuration.security, context: self.context, logger: self.logger, metrics: metrics)
        checkpointer =
            configuration.writesCheckpoints
            ? Checkpointer(
                path: configuration.stateFile!, shard: configuration.stateFileShard, lanes: configuration.lanes,
                logger: self.logger, metrics: metrics)
            : nil
        connections = ConnectionWatch(
            context: self.context, addressPrefix: "inproc://stroke-worker-\(identifier)-monitor", logger: self.logger,
            metrics: metrics,
            retryLimit: configuration.handshakeRetrySeconds > 0
                ? .seconds(Int(configuration.handshakeRetrySeconds)) : nil)
    }

    /// The endpoints actually bound or connected, as `input:…` and `output:…`, inputs first (available once
    /// ready).
    public var endpoints: [String] {
        let all = control.endpoints.withLock { $0 }
        return all.filter { $0.hasPrefix("input:") } + all.filter { !$0.hasPrefix("input:") }
    }

    /// Whether every lane is receiving.
    public var isReady: Bool { lifecycle.withLock { $0.state == .running } }

    private var inputControl: String { "inproc://stroke-worker-\(identifier)-input-control" }
    private var outputControl: String { "inproc://stroke-worker-\(identifier)-output-control" }

    // MARK: - Running

    /// Runs until `shutdown()` and the drain that follows. First raises the process's open files limit to its hard
    /// limit, since every connection takes a file (`OpenFileLimit`).
    public func run() async throws {
        guard lifecycle.withLock({ $0.start() }) == .startThreads else { return }
        OpenFileLimit.raise(reportingTo: logger)
        let lanes = makeLanes(restoring: takeSavedSessions())
        let forwarders = configuration.lanes > 1
        do {
            let metricsServer = try configuration.metricsAddress.map { try MetricsServer(address: $0) }
            try await withThrowingDiscardingTaskGroup { group in
                if let metricsServer {
                    control.endpoints.withLock { $0.append("metrics:\(metricsServer.boundAddress)") }
                    group.addTask { [control] in
                        try await ThreadRunner.run(name: "metrics") {
                            metricsServer.run(stopped: { control.lanesDone.load(ordering: .acquiring) }) { path in
                                self.httpResponse(path)
                            }
                        }
                    }
                }
                // Before any socket accepts a connection: the handler that checks CURVE clients' keys, until the
                // lanes have finished.
                await authenticator?.start(
                    in: &group, threadName: "zap",
                    stopped: { [control] in control.lanesDone.load(ordering: .acquiring) }
                ) { error in
                    self.logger.error("the CURVE authenticator failed: \(error)")
                    self.shutdown()
                }
                if forwarders {
                    var input = Forwarder(
                        frontend: configuration.inputs,
                        backend: [.init(bind: true, address: "inproc://stroke-worker-\(identifier)-input")],
                        controlEndpoint: inputControl, highWaterMark: configuration.inputHighWaterMark, noDrop: true,
                        lingerMilliseconds: 0, frontendSecurity: configuration.security,
                        frontendAuthenticator: authenticator)
                    input.frontendKeepaliveSeconds = configuration.tcpKeepaliveSeconds
                    input.frontendHeartbeatMilliseconds = configuration.heartbeatMilliseconds
                    // As a single lane's input does: before session 88 a worker of several lanes took a message of
                    // any size whole into memory, and only then refused it.
                    input.frontendMaxMessageBytes = configuration.disconnectingMessageBytes
                    input.connectionWatch = connections
                    input.watchedRoles = (frontend: .input, backend: nil)
                    // With `--slow-consumers wait` the forwarder waits for a full consumer until it takes events or
                    // is disconnected: the lanes meanwhile wait for it, and drop and count, as a single lane does.
                    var output = Forwarder(
                        frontend: [.init(bind: true, address: "inproc://stroke-worker-\(identifier)-output")],
                        backend: configuration.outputs, controlEndpoint: outputControl,
                        highWaterMark: configuration.highWaterMark, noDrop: configuration.slowConsumers == .wait,
                        lingerMilliseconds: configuration.lingerMilliseconds, backendSecurity: configuration.security,
                        backendAuthenticator: authenticator)
                    output.backendTimeoutMilliseconds = configuration.consumerTimeoutMilliseconds
                    output.backendKeepaliveSeconds = configuration.tcpKeepaliveSeconds
                    output.backendMaxMessageBytes = WorkerConfiguration.largestSubscriptionBytes
                    output.backendSubscriptionLimit = configuration.outputSubscriptionLimit
                    output.backendMetrics = metrics
                    output.keepsSubscriptions = true
                    output.connectionWatch = connections
                    output.watchedRoles = (frontend: nil, backend: .output)
                    // Waiting for a consumer, the loop of its own still takes the TERMINATE sent once the lanes are
                    // done, where libzmq's proxy would stay in its send until the consumer reads or is cut.
                    output.turnsWhileWaiting = configuration.slowConsumers == .wait
                    for (name, forwarder) in [("input", input), ("output", output)] {
                        group.addTask { [context, control] in
                            // A forwarder that fails (its address in use) stops the worker, as a lane does: the
                            // group waits for the lanes, which run until told to stop (session 81: with --lanes 2
                            // and --output on a port another process held, the worker hung until a signal).
                            do {
                                try await ThreadRunner.run(name: "forward-\(name)") {
                                    try forwarder.run(context: context) { frontend, backend in
                                        let external = name == "input" ? frontend : backend
                                        control.endpoints.withLock {
                                            $0.append(contentsOf: external.map { "\(name):\($0)" })
                                        }
                                        control.readyForwarders.add(1, ordering: .releasing)
                                    }
                                }
                            } catch {
                                self.logger.error("the \(name) forwarder failed: \(error)")
                                self.shutdown()
                                throw error
                            }
                        }
                    }
                }
                // Before any socket binds or connects: it reads their connection events until they close.
                group.addTask { [control, connections] in
                    try await ThreadRunner.run(name: "connections") {
                        connections.run(stopped: { control.lanesDone.load(ordering: .acquiring) })
                    }
                }
                if let checkpointer {
                    group.addTask { [control] in
                        try await ThreadRunner.run(name: "checkpoint") {
                            checkpointer.run(stopped: { control.lanesDone.load(ordering: .acquiring) })
                        }
                    }
                }
                group.addTask {
                    defer { self.control.lanesDone.store(true, ordering: .releasing) }
                    // The output forwarder ends at this TERMINATE alone, and the group waits for it: sent however
                    // the lanes ended. Before session 81 a failure elsewhere (the input forwarder's address in use)
                    // cancelled the group, the sleep threw, and the worker hung even through SIGTERM.
                    do {
                        try await self.runLanes(lanes)
                    } catch {
                        if forwarders {
                            try? Forwarder.send(.terminate, to: self.outputControl, context: self.context)
                        }
                        throw error
                    }
                    self.saveSessions()
                    if forwarders {
                        // Time for the lanes' last events to reach the forwarder; none once the group is cancelled.
                        try? await Task.sleep(for: .milliseconds(200))
                        try? Forwarder.send(.terminate, to: self.outputControl, context: self.context)
                    }
                }
                group.addTask {
                    try await self.announceWhenReady(lanes: lanes.count, forwarders: forwarders ? 2 : 0)
                    if let systemd = self.configuration.systemd { try await self.superviseWithSystemd(systemd) }
                }
            }
        } catch {
            shutdown()
            if forwarders {
                try? Forwarder.send(.terminate, to: outputControl, context: context)
            }
            throw error
        }
        logger.info("stopped", metrics.snapshot.mapValues(String.init))
        // A stop that lost the sessions' state is not a clean one: the exit status says so (session 81: 0).
        if let failure = control.stateFileFailure.withLock({ $0 }) { throw RecognitionError(.io, failure) }
    }

    private func runLanes(_ lanes: [Lane]) async throws {
        defer { _ = lifecycle.withLock { $0.lanesFinished() } }
        try await withThrowingDiscardingTaskGroup { group in
            for lane in lanes {
                group.addTask {
                    do {
                        try await ThreadRunner.run(name: "lane-\(lane.index)") { try lane.run() }
                    } catch {
                        self.logger.error("lane \(lane.index) failed: \(error)")
                        self.shutdown()
                        throw error
                    }
                }
            }
        }
    }

    /// Marks the worker ready once every lane receives and every forwarder has recorded its endpoints (lanes
    /// connect to the forwarders over inproc, which may come first), and logs it.
    private func announceWhenReady(lanes: Int, forwarders: Int) async throws {
        while control.readyLanes.load(ordering: .acquiring) < lanes
            || control.readyForwarders.load(ordering: .acquiring) < forwarders
        {
            if control.isStopping || control.finishedLanes.load(ordering: .acquiring) > 0 { return }
            try await Task.sleep(for: .milliseconds(5))
        }
        if lifecycle.withLock({ $0.lanesReady() }) == .announceReady {
            if let ignored = ElasticMatcher.KernelBuild.requestIgnored { logger.warning(ignored) }
            if !configuration.unknownEnvironmentVariables.isEmpty {
                logger.warning(
                    "environment variables that name no option, ignored",
                    ["variables": configuration.unknownEnvironmentVariables.joined(separator: ", ")])
            }
            for inert in configuration.inertOptions { logger.warning(inert) }
            logger.info(
                "listening",
                [
                    "endpoints": endpoints.joined(separator: " "), "lanes": "\(lanes)",
                    "libraries": libraries.registry.entries.map(\.name).joined(separator: ","),
                    "kernels": ElasticMatcher.KernelBuild.current.rawValue,
                ])
            if let unused = libraries.registry.checkmarkGestureWarning(configuration.recognizer) {
                logger.warning(unused)
            }
            for empty in libraries.registry.emptyLibraryWarnings { logger.warning(empty) }
        }
    }

    /// Waits until every lane is receiving (or the worker stopped).
    public func waitUntilReady() async {
        while !isReady && !control.isStopping {
            try? await Task.sleep(for: .milliseconds(5))
        }
    }

    /// Stops intake and lets `run()` drain and return. Safe from any thread, any number of times.
    public func shutdown() {
        let (action, wasStarting) = lifecycle.withLock { lifecycle in
            let starting = lifecycle.state == .starting
            return (lifecycle.shutdownRequested(), starting)
        }
        guard action == .stopIntake else {
            control.requestStop()
            return
        }
        // A lane that could not bind, or a signal while the start is under way: nothing was taken in to drain.
        logger.info(wasStarting ? "stopping before the start completed" : "shutting down: intake stopped, draining")
        configuration.systemd?.notify("STOPPING=1")
        if configuration.lanes > 1 {
            try? Forwarder.send(.terminate, to: inputControl, context: context)
        }
        control.requestStop()
    }

    // MARK: - Lanes

    private func makeLanes(restoring saved: StateFile.Saved) -> [Lane] {
        let count = configuration.lanes
        let prefixes = ShardKey.subscriptionPrefixes(shard: configuration.shard.index, of: configuration.shard.count)
        let shard = configuration.shard
        /// The lane whose share holds one of the shard's buckets: its position among them, modulo the lanes.
        func lane(ofBucket bucket: Int) -> Int { (bucket / shard.count) % count }
        var shares = [[String]](repeating: [], count: count)
        if count == 1 {
            shares[0] = prefixes
        } else {
            // Split the shard's buckets among lanes (with 1 shard, all 4,096 buckets).
            for bucket in stride(from: shard.index, to: ShardKey.bucketCount, by: shard.count) {
                shares[lane(ofBucket: bucket)].append("\(ShardKey.key(ofBucket: bucket))/")
            }
        }
        // Only sessions of the shard's buckets (`takeSavedSessions()` left out the others).
        var restored = [[SessionSnapshot]](repeating: [], count: count)
        for session in saved.sessions where configuration.serves(bucket: session.bucket) {
            restored[lane(ofBucket: session.bucket)].append(session)
        }
        return (0..<count).map { index in
            var lane = Lane(
                index: index, context: context, configuration: configuration, libraries: libraries, metrics: metrics,
                control: control, logger: logger,
                inputs: count == 1
                    ? configuration.inputs
                    : [.init(bind: false, address: "inproc://stroke-worker-\(identifier)-input")],
                outputs: count == 1
                    ? configuration.outputs
                    : [.init(bind: false, address: "inproc://stroke-worker-\(identifier)-output")],
                prefixes: shares[index], publishesStats: index == 0, recordsEndpoints: count == 1,
                authenticator: count == 1 ? authenticator : nil, connectionWatch: count == 1 ? connections : nil,
                checkpointer: checkpointer)
            lane.restored = SessionHandoff(restored[index])
            return lane
        }
    }
}
