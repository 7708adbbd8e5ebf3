import Dispatch
import StrokeProtocol
import Synchronization
import ZeroMQ

/// A lane's publisher thread: owns the lane's XPUB socket, recognizes the finished strokes the lane hands over
/// through an `EventPipe` and publishes every event in the order the lane produced them.
///
/// With it the lane thread does the per-point work (decoding, sessions, the checkmark detector) and the
/// publisher the per-stroke work (recognition, encoding, sending): two cores for one lane, one owner for each
/// socket and each piece of state.
final class Publisher: Sendable {
    /// The thread's name.
    let name: String
    let pipe: EventPipe
    let context: ZMQContext
    let configuration: WorkerConfiguration
    let metrics: WorkerMetrics
    let logger: Logger
    let outputs: [WorkerConfiguration.Endpoint]
    /// Where to record the bound endpoints (the worker's own outputs), if anywhere.
    let recordEndpointsIn: WorkerControl?
    /// The libraries, of which the thread keeps a copy of its own.
    let libraries: LibrarySource
    /// The handler of the output's CURVE handshakes, when it admits listed client keys only: the thread then cuts
    /// the consumers whose key a reload revokes (`SubscriberVetting`).
    let authenticator: ClientAuthenticator?
    /// Where the connection events of the thread's socket go, when its endpoints are the worker's own.
    let connectionWatch: ConnectionWatch?
    /// Called when a send waited the send timeout for a consumer behind (`SocketSink.heldBack`, `Lane.heldBack`).
    let heldBack: (@Sendable () -> Bool)?

    /// Signalled by the thread once its socket is attached (or failed), and when it has finished.
    private let started = DispatchSemaphore(value: 0)
    private let stopped = DispatchSemaphore(value: 0)
    private let failure = Mutex<(any Error)?>(nil)

    init(
        name: String, pipe: EventPipe, context: ZMQContext, configuration: WorkerConfiguration, metrics: WorkerMetrics,
        logger: Logger, outputs: [WorkerConfiguration.Endpoint], recordEndpointsIn: WorkerControl?,
        libraries: LibrarySource, authenticator: ClientAuthenticator?, connectionWatch: ConnectionWatch?,
        heldBack: (@Sendable () -> Bool)? = nil
    ) {
        self.heldBack = heldBack
        self.connectionWatch = connectionWatch
        self.libraries = libraries
        self.authenticator = authenticator
        self.name = name
        self.pipe = pipe
        self.context = context
        self.configuration = configuration
        self.metrics = metrics
        self.logger = logger
        self.outputs = outputs
        self.recordEndpointsIn = recordEndpointsIn
    }

    /// Starts the thread and waits until its socket is attached; throws what attaching threw.
    func start() throws {
        ThreadRunner.start(name: name) { self.run() }
        started.wait()
        if let error = failure.withLock({ $0 }) {
            stopped.wait()
            throw error
        }
    }

    /// Tells the thread that the lane is done, and waits until it has published everything and closed its socket
    /// (with the configured linger).
    func finish() {
        pipe.finish()
        stopped.wait()
    }

    /// The high-water mark of the subscriptions each consumer's connection queues for an output socket whose owner
    /// counts them against `--max-subscription-bytes` (`SubscriptionLedger`): eight messages.
    ///
    /// Whenever its owner calls it, libzmq takes the subscriptions queued from a connection into its tree (the memory
    /// at stake), and goes on taking them as long as its I/O thread refills the queue, before the owner reads one of
    /// them: the ledger sees them late, and libzmq holds more than the limit when the connection is cut. A short queue
    /// makes the I/O thread wait for the owner more often. Measured in session 90 (100,000 prefixes of 1,000 bytes
    /// from one raw subscriber, a worker of one lane at the default limit): with libzmq's default queue of 1,000 the
    /// tree held 2.4 GB at the cut; with eight 0.51–1.5 GB over seventeen runs, twelve of them under 0.6 GB (one:
    /// 509–673 MB over five, but it stalled CURVE connections, whose consumers received nothing), while 100,000
    /// prefixes of 36 bytes still reached the worker in 0.60–0.88 s, as with 1,000 (one: 1.5–2.3 s). A full queue
    /// over TCP or ipc:// only makes libzmq read the connection later: nothing is lost.
    static let countedSubscriptionQueue: Int32 = 8

    /// Sets an output socket's options, for the publisher thread and for a lane that publishes itself.
    ///
    /// `external`: the socket attaches the worker's own endpoints, not the output forwarder's inproc one; the
    /// transport security, the slow-consumer policy (`WorkerConfiguration.slowConsumers`), the consumer
    /// timeout and TCP keepalive then apply.
    static func configure(_ output: ZMQSocket, _ configuration: WorkerConfiguration, external: Bool) throws {
        if external { try configuration.security?.apply(to: output) }
        try output.setHighWaterMarks(
            send: configuration.highWaterMark,
            receive: external && configuration.outputSubscriptionLimit > 0 ? Self.countedSubscriptionQueue : nil)
        // A lane's output to the output forwarder always waits: the forwarder reads it at once, and applies
        // `slowConsumers` on its own XPUB.
        try output.setNoDrop(!external || configuration.slowConsumers == .wait)
        try output.setTimeouts(send: configuration.sendTimeoutMilliseconds)
        try output.setLinger(milliseconds: configuration.lingerMilliseconds)
        if external {
            try WorkerConfiguration.applyConsumerTimeout(
                milliseconds: configuration.consumerTimeoutMilliseconds, to: output)
            try WorkerConfiguration.applyKeepalive(seconds: configuration.tcpKeepaliveSeconds, to: output)
            try output.setMaxMessageSize(WorkerConfiguration.largestSubscriptionBytes)
        }
    }

    // MARK: - The thread

    private func run() {
        defer { stopped.signal() }
        let output: ZMQSocket
        var subscriptions: OutputSubscriptions
        let redial: ConnectionWatch.Redial?
        do {
            output = try ZMQSocket(context, .xpub)
            try Self.configure(output, configuration, external: recordEndpointsIn != nil)
            redial = try connectionWatch?.watch(output, role: .output, endpoints: outputs)
            subscriptions = try OutputSubscriptions(
                socket: output, authenticator: authenticator,
                limit: recordEndpointsIn != nil ? configuration.outputSubscriptionLimit : 0, metrics: metrics,
                logger: logger)
            for endpoint in outputs {
                let bound = try output.attach(endpoint)
                recordEndpointsIn?.endpoints.withLock { $0.append("output:\(bound ?? "connect:\(endpoint.address)")") }
            }
        } catch {
            failure.withLock { $0 = error }
            started.signal()
            return
        }
        started.signal()
        var sink = SocketSink(socket: output, metrics: metrics)
        sink.heldBack = heldBack
        var writer = JSONWriter()
        var tiltSamples: [TiltFeedback.Sample] = []
        var generation = -1
        var registry = libraries.refresh(&generation)!
        while true {
            pipe.waitForWork(milliseconds: Lane.pollMilliseconds)
            try? subscriptions.drain()
            subscriptions.refresh()
            redial?.apply(to: output, logger: logger)
            var finished = false
            while true {
                let next = pipe.take()
                guard let batch = next.batch else {
                    finished = next.finished
                    break
                }
                // The lane took reloaded libraries before it handed this batch over.
                if let fresh = libraries.refresh(&generation) { registry = fresh }
                publish(batch, to: &sink, writer: &writer, tiltSamples: &tiltSamples, registry: registry)
                pipe.recycle(batch)
            }
            sink.flush()
            if finished { break }
        }
    }

    /// Recognizes the batch's strokes and sends its events, in order.
    private func publish(
        _ batch: EventPipe.Batch, to sink: inout SocketSink, writer: inout JSONWriter,
        tiltSamples: inout [TiltFeedback.Sample], registry: LibraryRegistry
    ) {
        batch.forEachEvent(
            encodingRequestsWith: &writer, registry: registry, metrics: sink.metrics, tiltSamples: &tiltSamples
        ) { topic, payload in sink.sendNow(topic: topic, payload: payload) }
    }
}
