import Foundation
import StrokeProtocol
import ZeroMQ

/// A `StrokeProducer` for async code: an actor whose every call runs on a thread of its own, where its socket lives.
///
/// ```swift
/// let input = WorkerConfiguration.Endpoint(parsing: "connect:tcp://127.0.0.1:5555")
/// let producer = try await AsyncStrokeProducer.connect(.init(endpoints: [input]))
/// guard try await producer.waitForAllBuckets(timeout: .seconds(5)) else { … }
/// try await producer.sendStroke(points, session: "room42/alice")
/// ```
///
/// Any number of tasks may share one: their calls are serialized by the actor, and each call's messages go out
/// together, in the order the calls ran. The socket's blocking calls hold the actor's thread (a `ThreadExecutor`),
/// never a thread of Swift's cooperative pool, and `waitForAllBuckets` waits by sleeping between looks, so that
/// other calls run meanwhile and a cancelled task stops waiting. When the last reference goes, the socket is
/// closed on that thread (lingering up to a second for what is queued) and the thread ends.
public actor AsyncStrokeProducer {
    private let executor: ThreadExecutor
    /// Created on the executor's thread by `connect`, and used there only.
    private var producer: StrokeProducer?

    /// The executor's thread runs every call, the creation of the socket and its closing.
    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    private init(executor: ThreadExecutor) {
        self.executor = executor
    }

    /// Starts the producer's thread and connects (or binds) its XPUB socket there. `context`: the ZeroMQ context
    /// of the socket (needed for `inproc://` endpoints; default: a context of the producer's own).
    public static func connect(
        _ configuration: StrokeProducer.Configuration, context: ZMQContext? = nil
    ) async throws(ZMQError) -> AsyncStrokeProducer {
        try await connect(configuration, context: context, threadName: "stroke-producer")
    }

    /// `connect(_:context:)` with the thread named `threadName` (at most 15 bytes are kept).
    static func connect(
        _ configuration: StrokeProducer.Configuration, context: ZMQContext?, threadName: String
    ) async throws(ZMQError) -> AsyncStrokeProducer {
        let producer = AsyncStrokeProducer(executor: ThreadExecutor(name: threadName))
        let shared: ZMQContext
        if let context = context ?? configuration.connections?.context {
            shared = context
        } else {
            shared = try ZMQContext()
        }
        try await producer.open(configuration, context: shared)
        return producer
    }

    private func open(_ configuration: StrokeProducer.Configuration, context: ZMQContext) throws(ZMQError) {
        producer = try StrokeProducer(configuration, context: context)
    }

    isolated deinit {
        // The socket closes here, on its own thread; the thread ends once this job is over.
        producer = nil
        executor.finish()
    }

    /// The producer, which `connect` created before handing this actor out.
    private var opened: StrokeProducer {
        guard let producer else { preconditionFailure("AsyncStrokeProducer: used before connect finished") }
        return producer
    }

    // MARK: - Subscriptions

    /// The shard buckets the workers' subscriptions in force cover now, of `ShardKey.bucketCount`.
    public func coveredBuckets() throws(ZMQError) -> Int {
        try opened.coveredBuckets()
    }

    /// Waits until the workers' subscriptions in force cover every shard bucket; false if they do not within
    /// `timeout`. It looks every 10 ms and sleeps between looks, leaving the actor to other calls. Call it again
    /// after a worker restarts or the shard count changes.
    ///
    /// - Throws: `CancellationError` when the task is cancelled while it waits; `ZMQError`.
    public func waitForAllBuckets(timeout: Duration) async throws -> Bool {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        while try coveredBuckets() < ShardKey.bucketCount {
            guard clock.now < deadline else { return false }
            try await Task.sleep(for: .milliseconds(10))
        }
        return true
    }

    // MARK: - Sending

    /// Sends `message` for `session`, numbered as its next message (`StrokeProducer.send`).
    ///
    /// - Throws: `ProtocolError` (`bad_topic`) for a session id the protocol does not allow; `ZMQError`.
    public func send(_ message: InputMessage, session: String) throws {
        try opened.send(message, session: session)
    }

    /// Sends a whole stroke for `session`, its messages one after the other with no other call's between them
    /// (`StrokeProducer.sendStroke`: `learn` teaches it, `last` ends a gesture of several strokes). Returns the
    /// stroke's id.
    @discardableResult
    public func sendStroke(
        _ points: [WirePoint], session: String, batch: Int = 32, pointer: UInt16 = 0, learn: String? = nil,
        last: Bool = false
    ) throws -> UInt32 {
        try opened.sendStroke(points, session: session, batch: batch, pointer: pointer, learn: learn, last: last)
    }

    /// Sends a gesture of several strokes for `session`, with no other call's messages between them
    /// (`StrokeProducer.sendGesture`). Returns the strokes' ids.
    @discardableResult
    public func sendGesture(
        _ strokes: [[WirePoint]], session: String, batch: Int = 32, learn: String? = nil
    ) throws -> [UInt32] {
        try opened.sendGesture(strokes, session: session, batch: batch, learn: learn)
    }

    /// Restores `session` in a worker that forgot it (`OutputEvent.needsReteach`): its options and the gestures it
    /// was taught (`StrokeProducer.reteach`). Returns how many gestures were sent.
    @discardableResult
    public func reteach(session: String, batch: Int = 32) throws -> Int {
        try opened.reteach(session: session, batch: batch)
    }

    /// Sets `session`'s options (its library, checkmark detector, chosen gestures, …).
    public func setOptions(_ options: SessionOptions, session: String) throws {
        try opened.setOptions(options, session: session)
    }

    /// Pings `session`: its worker answers with a `pong` event (outside the session's numbering).
    public func ping(session: String) throws {
        try opened.ping(session: session)
    }

    /// Closes `session` (the worker drops its state) and forgets its numbering, options and taught gestures.
    public func close(session: String) throws {
        try opened.close(session: session)
    }

    /// Starts `session`'s numbering over (`StrokeProducer.forget`).
    public func forget(session: String) {
        opened.forget(session: session)
    }
}
