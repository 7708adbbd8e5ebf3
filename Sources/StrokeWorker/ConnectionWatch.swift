import Synchronization
import ZeroMQ

/// Watches the connections of the worker's own input and output sockets on a thread of its own: libzmq's socket
/// monitor tells it every connection made, lost, refused or not taken, and `ConnectionTracker` turns that into the
/// metrics' connection counts and log records (an endpoint the worker connects to that does not answer, or whose
/// connection was lost, is logged at once and every minute while it lasts).
///
/// A socket's owner calls `watch(_:role:endpoints:)` on its own thread before the socket binds or connects; `run(stopped:)`
/// reads the events until `stopped` and every watched socket has closed: a monitor's reader must outlive its
/// socket's events (`ZMQSocketMonitor`), so the readers close only after their sockets said they stopped, or with
/// this object, which the worker keeps until its sockets are closed.
///
/// libzmq gives up an endpoint whose handshake failed for good (a refused key, a protocol error: it does not connect
/// there again); the watch then asks the socket's thread, through the socket's `Redial`, to connect to it anew after
/// a back-off, so that a key authorized later (the proxy's SIGHUP) is taken without a restart.
///
/// `stroke-worker proxy` watches its two sides the same way, for its log and, with `--metrics`, its `/metrics` and
/// `/readyz` (`ProxyMetrics`).
public final class ConnectionWatch: Sendable {
    /// A reader and what it watches, handed from the socket's thread to the watch's.
    ///
    /// `@unchecked Sendable` for that handover only: libzmq lets a socket move to another thread through a full
    /// memory barrier (zmq(7)), which `shared`'s lock is, and the thread that made the reader keeps no reference
    /// to it. One thread uses it at a time.
    struct Watched: @unchecked Sendable {
        let monitor: ZMQSocketMonitor
        let role: Role
        /// The addresses the socket connects to (not inproc ones, which have no connection events).
        let connecting: [String]
        /// Where the socket's thread finds the endpoints to connect to again.
        let redial: Redial
        /// What the socket's reader notes of the connections its messages come from, when the watch is to cut a
        /// producer's connection that never finishes a message (`UnfinishedMessageTracker`).
        let unfinished: UnfinishedMessageGuard?

        /// `connecting` as `ConnectionTracker.unconnected` names them.
        var expected: [String] { connecting.map { ConnectionTracker.key(role, $0) } }
    }

    /// What the sockets' threads and the watch's share.
    struct Shared {
        /// Readers made on the sockets' threads that the watch's thread has not taken yet.
        var arrivals: [Watched] = []
        /// Endpoints connected to that have no working connection now (`ConnectionTracker.unconnected`), those of
        /// `arrivals` included.
        var unconnected: [String] = []
        /// The tracker's counts, as of the watch's last turn.
        var counts = ConnectionTracker.Counts()
    }

    /// A side of the worker or of a proxy, as the logs name it (the worker's metrics count its input and output).
    public enum Role: String, Sendable, CaseIterable {
        /// The worker's input: producers, or an input proxy.
        case input
        /// The worker's output: consumers, or a results proxy.
        case output
        /// A proxy's XSUB side: publishers.
        case frontend
        /// A proxy's XPUB side: subscribers.
        case backend

        /// The sockets a peer of this side may have, in words: what the others fail the handshake with.
        var peers: String {
            switch self {
            case .input, .frontend: return "a PUB or XPUB socket: a producer, or a proxy's backend"
            case .output, .backend: return "a SUB or XSUB socket: a consumer, or a proxy's frontend"
            }
        }
    }

    /// The events read: every one the tracker uses.
    static let events: [ZMQSocketMonitor.Event.Kind] = [
        .connected, .connectDelayed, .connectRetried, .accepted, .acceptFailed, .disconnected,
        .handshakeSucceeded, .handshakeFailedNoDetail, .handshakeFailedProtocol, .handshakeFailedAuthentication,
    ]

    /// How long a poll of the readers waits before the thread looks for new ones and for `stopped`.
    static let pollMilliseconds = 100
    /// How often the producers' connections are checked for a message they never finish: often, for what a
    /// connection sends between two checks adds to what it may hold (a `getsockopt` per connection and check).
    static let unfinishedCheckInterval = Duration.milliseconds(100)

    /// The ZeroMQ context of the monitors, and so of the sockets watched.
    public let context: ZMQContext
    let logger: Logger
    private let metrics: WorkerMetrics?
    /// The start of the readers' inproc addresses, unique to the worker.
    private let addressPrefix: String
    private let serial = Atomic<Int>(0)
    private let shared = Mutex(Shared())
    private let reminder: Duration
    private let retryLimit: Duration?

    /// Creates a watch whose readers' addresses start with `addressPrefix` (unique in `context`), which counts in
    /// `metrics` (if any) and logs to `logger`; a lasting outage is logged again every `reminder` (default: 60 s),
    /// and an endpoint libzmq gave up is connected again after 1 s, then twice as long after each failure up to
    /// `retryLimit` (nil: never; default: 30 s).
    public init(
        context: ZMQContext, addressPrefix: String, logger: Logger, metrics: WorkerMetrics?,
        reminder: Duration = .seconds(60), retryLimit: Duration? = .seconds(30)
    ) {
        self.context = context
        self.addressPrefix = addressPrefix
        self.logger = logger
        self.metrics = metrics
        self.reminder = reminder
        self.retryLimit = retryLimit
    }

    /// Whether endpoints libzmq gave up are connected again (a `retryLimit` was given).
    var retries: Bool { retryLimit != nil }

    /// The connections open on each side and the failures counted, as of the watch's last turn (a proxy's
    /// `/metrics`; a worker's go to its `WorkerMetrics`).
    var counts: ConnectionTracker.Counts { shared.withLock { $0.counts } }

    /// Endpoints connected to that have no working connection now, as `role address`, sorted (none made yet, or
    /// lost): empty when every one the worker connects to has completed its handshake.
    var unconnected: [String] { shared.withLock { $0.unconnected } }

    /// Makes `socket`'s connection events reach the watch: call on the socket's thread, before it binds or connects
    /// to `endpoints` (those it connects to count as not connected until their first handshake). Returns where
    /// that thread finds the endpoints to connect to again (`Redial.apply(to:logger:)`, on each turn of its loop).
    @discardableResult
    public func watch(
        _ socket: ZMQSocket, role: Role, endpoints: [WorkerConfiguration.Endpoint]
    ) throws(ZMQError) -> Redial {
        try watch(socket, role: role, endpoints: endpoints, unfinished: nil)
    }

    /// Watches `socket` as `watch(_:role:endpoints:)` does; with `unfinished`, which the socket's reader feeds, the
    /// watch also cuts a connection of the socket that sends more than the guard's limit without finishing a message.
    @discardableResult
    func watch(
        _ socket: ZMQSocket, role: Role, endpoints: [WorkerConfiguration.Endpoint],
        unfinished: UnfinishedMessageGuard?
    ) throws(ZMQError) -> Redial {
        let address = "\(addressPrefix)-\(serial.add(1, ordering: .relaxed).newValue)"
        let connecting = endpoints.filter { !$0.bind && !$0.address.hasPrefix("inproc://") }.map(\.address)
        let entry = Watched(
            monitor: try ZMQSocketMonitor(context, address: address), role: role, connecting: connecting,
            redial: Redial(), unfinished: unfinished)
        try socket.startMonitor(address, events: ZMQSocketMonitor.mask(Self.events))
        shared.withLock {
            $0.arrivals.append(entry)
            $0.unconnected = ($0.unconnected + entry.expected).sorted()
        }
        return entry.redial
    }

    /// Reads and handles events until `stopped()` returns true and every socket watched so far has stopped its
    /// events (on its thread, as it closed). Blocking: run it on a thread of its own.
    public func run(stopped: () -> Bool) {
        var watched: [Watched] = []
        var tracker = ConnectionTracker(reminder: reminder, retryLimit: retryLimit)
        let clock = ContinuousClock()
        // By monitor address, for the sockets whose producers' connections are checked.
        var unfinished: [String: UnfinishedMessageTracker] = [:]
        var lastCheck = clock.now
        // Rebuilt only when the readers change.
        var poller = ZMQPoller(readable: [])
        while true {
            var arrived: [Watched] = []
            shared.withLock { swap(&$0.arrivals, &arrived) }
            for entry in arrived {
                for endpoint in entry.connecting { tracker.expect(endpoint, role: entry.role, at: clock.now) }
                if let guarded = entry.unfinished {
                    unfinished[entry.monitor.address] = UnfinishedMessageTracker(limit: guarded.limit)
                }
            }
            if !arrived.isEmpty {
                watched += arrived
                poller = ZMQPoller(readable: watched.map(\.monitor.socket))
            }
            if watched.isEmpty, stopped() { return }
            do {
                let ready = try poller.poll(timeoutMilliseconds: Self.pollMilliseconds)
                for (role, endpoint) in tracker.takeDueRetries(at: clock.now) {
                    // The socket of that role that connects there (a worker and a proxy have one of each role).
                    let candidates = watched.filter { $0.role == role }
                    let entry = candidates.first { $0.connecting.contains(endpoint) } ?? candidates.first
                    entry?.redial.request(endpoint)
                }
                if clock.now - lastCheck >= Self.unfinishedCheckInterval, !unfinished.isEmpty {
                    lastCheck = clock.now
                    checkUnfinished(watched, &unfinished, &tracker)
                    publish(tracker)
                }
                guard ready > 0 else { continue }
                var ended = Set<Int>()
                for (index, entry) in watched.enumerated() where poller.isReadable(index) {
                    while let event = try entry.monitor.receive() {
                        if event.kind == .monitorStopped {
                            ended.insert(index)
                            break
                        }
                        if let record = tracker.handle(event, role: entry.role, at: clock.now) {
                            logger.log(record.level, record.message, record.metadata)
                        }
                        if entry.unfinished != nil { unfinished[entry.monitor.address]?.follow(event) }
                    }
                }
                publish(tracker)
                if !ended.isEmpty {
                    for index in ended { unfinished[watched[index].monitor.address] = nil }
                    watched = watched.enumerated().filter { !ended.contains($0.offset) }.map(\.element)
                    poller = ZMQPoller(readable: watched.map(\.monitor.socket))
                }
            } catch  where error.code == .terminated {
                return
            } catch {
                // The readers stay open with this object, for their sockets may still send events.
                logger.error("reading connection events failed; they are no longer watched: \(error)")
                shared.withLock { $0.arrivals.append(contentsOf: watched) }
                return
            }
        }
    }

    /// Checks the producers' connections of the sockets that have a guard, and cuts those that sent more than its
    /// limit without finishing a message (`UnfinishedMessageTracker`), each with a warning that names its peer.
    private func checkUnfinished(
        _ watched: [Watched], _ trackers: inout [String: UnfinishedMessageTracker], _ tracker: inout ConnectionTracker
    ) {
        for entry in watched {
            guard let guarded = entry.unfinished, var checking = trackers[entry.monitor.address] else { continue }
            let (noted, emptied) = guarded.take()
            let cuts = checking.check(
                noted: noted, emptied: emptied, bytesReceived: ZMQConnection.bytesReceived(descriptor:))
            trackers[entry.monitor.address] = checking
            for cut in cuts {
                let peer = ZMQConnection.peerAddress(descriptor: cut.descriptor)
                let done = ZMQConnection.cut(descriptor: cut.descriptor, ifStill: cut.identity)
                tracker.countUnfinishedMessageCut()
                logger.warning(
                    "cut a producer's connection that sent more than the limit without finishing a message: libzmq "
                        + "holds a message's frames in memory until its last one arrives",
                    [
                        "role": entry.role.rawValue, "peer": peer ?? "unknown", "bytes": "\(cut.unexplainedBytes)",
                        "limit": "\(guarded.limit)", "shutdown": done ? "done" : "failed",
                    ])
            }
        }
    }

    /// Hands the tracker's counts to the metrics (this thread is their only writer), and what it has not connected
    /// to, with what the sockets' threads have handed over since, to `unconnected`.
    private func publish(_ tracker: ConnectionTracker) {
        let unconnected = tracker.unconnected
        shared.withLock {
            $0.unconnected = (unconnected + $0.arrivals.flatMap(\.expected)).sorted()
            $0.counts = tracker.counts
        }
        guard let metrics else { return }
        let counts = tracker.counts
        metrics.inputConnections.store(counts.connections[.input] ?? 0, ordering: .relaxed)
        metrics.outputConnections.store(counts.connections[.output] ?? 0, ordering: .relaxed)
        metrics.connectRetries.store(counts.connectRetries, ordering: .relaxed)
        metrics.disconnections.store(counts.disconnections, ordering: .relaxed)
        metrics.handshakesFailed.store(counts.handshakesFailed, ordering: .relaxed)
        metrics.acceptFailures.store(counts.acceptFailures, ordering: .relaxed)
        metrics.unfinishedMessagesCut.store(counts.unfinishedMessagesCut, ordering: .relaxed)
    }
}
