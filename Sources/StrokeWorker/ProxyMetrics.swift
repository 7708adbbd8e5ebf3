import Dispatch
import Synchronization
import ZeroMQ

/// What `stroke-worker proxy --metrics` serves: on `/metrics` the frames and bytes it forwarded each way, its
/// connections and their failures, and the handshakes its authenticator refused; on `/healthz` whether its
/// forwarding loop turns, and on `/readyz` that and whether every endpoint it connects to has a connection.
///
/// The forwarding thread hands over its counts once per turn of its loop (`record`), which turns at least every
/// 100 ms while the proxy is served (`Forwarder.metrics`), also while a message waits for a subscriber behind
/// (`--no-drop`: the proxy is then alive, holding its publishers back); the HTTP thread reads them, and under
/// systemd's watchdog `superviseWatchdog` pings while they show the loop turning. Nothing per message.
public final class ProxyMetrics: Sendable {
    /// The counts of the forwarding loop as of its last turn.
    private let traffic = Mutex(ZMQProxy.Counts())
    /// When the forwarding loop last turned (`DispatchTime` nanoseconds); 0 before its first turn.
    private let heartbeat = Atomic<UInt64>(0)
    /// Whether the proxy is stopping: `/healthz` and `/readyz` then answer 503.
    private let stopping = Atomic<Bool>(false)
    /// The counters the CURVE authenticator, the vetting of revoked keys and the ledger of subscriptions keep, as a
    /// worker's do: only `handshakesRefused`, `connectionsCut`, `messagesRevoked` and `subscribersCut` are shown.
    public let authentication = WorkerMetrics()
    private let connections: ConnectionWatch

    /// Metrics of a proxy whose connections `connections` watches.
    public init(connections: ConnectionWatch) {
        self.connections = connections
    }

    /// Takes the forwarding loop's counts (its thread, once per turn), and notes that it turns.
    func record(_ counts: ZMQProxy.Counts) {
        traffic.withLock { $0 = counts }
        heartbeat.store(DispatchTime.now().uptimeNanoseconds, ordering: .relaxed)
    }

    /// Notes that the proxy stops: from now on it is neither live nor ready.
    public func stop() { stopping.store(true, ordering: .relaxed) }

    /// Whether the forwarding loop turned in the last five seconds and the proxy is not stopping.
    public var isLive: Bool {
        let beat = heartbeat.load(ordering: .relaxed)
        let age = Double(DispatchTime.now().uptimeNanoseconds &- beat) / 1e9
        return !stopping.load(ordering: .relaxed) && beat > 0 && age < 5
    }

    // MARK: - systemd's watchdog

    /// Pings systemd's watchdog (`WATCHDOG=1`) at half its interval while the forwarding loop turns (`isLive`),
    /// until `stopped()`; returns at once without a watchdog. A proxy whose loop hangs stops pinging, and systemd
    /// restarts it after `WatchdogSec=`.
    public func superviseWatchdog(_ systemd: SystemdNotifier, stopped: @Sendable () -> Bool) async throws {
        guard let interval = systemd.watchdogInterval else { return }
        // Half the interval, as sd_watchdog_enabled(3) advises; the stop flag is checked every 100 ms.
        let period = interval / 2
        var next = ContinuousClock.now
        while !stopped() {
            let now = ContinuousClock.now
            if now >= next {
                if isLive { systemd.notify("WATCHDOG=1") }
                next = now + period
            }
            try await Task.sleep(for: min(.milliseconds(100), next - now))
        }
    }

    // MARK: - Serving

    /// Binds the HTTP endpoint at `address` (`HOST:PORT`; port 0 picks one) and returns the address bound and the
    /// blocking loop that answers it until `stopped()` (run it on a thread of its own).
    ///
    /// - Throws: `CommandLineArguments.Failure` for an address that is not one, `WorkerError` where the system
    ///   refused to listen there (a port another process holds), each naming the address.
    public func listen(on address: String) throws -> (address: String, run: @Sendable (() -> Bool) -> Void) {
        let server = try MetricsServer(address: address)
        return (server.boundAddress, { stopped in server.run(stopped: stopped) { self.httpResponse($0) } })
    }

    /// The answer to `GET path`.
    func httpResponse(_ path: String) -> MetricsServer.Response {
        .route(
            path, service: "stroke-worker proxy", live: isLive, notLive: "not forwarding",
            unconnected: { connections.unconnected }, metrics: { prometheusText() })
    }

    /// The counters in Prometheus's text exposition format (0.0.4).
    func prometheusText() -> String {
        let counts = traffic.withLock { $0 }
        let links = connections.counts
        var text = ""
        func family(_ name: String, _ type: String, _ help: String, _ samples: [(labels: String, value: UInt64)]) {
            text += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n"
            for sample in samples {
                text +=
                    sample.labels.isEmpty ? "\(name) \(sample.value)\n" : "\(name){\(sample.labels)} \(sample.value)\n"
            }
        }
        let directions = [
            ("side=\"frontend\",direction=\"in\"", counts.frontendIn),
            ("side=\"frontend\",direction=\"out\"", counts.frontendOut),
            ("side=\"backend\",direction=\"in\"", counts.backendIn),
            ("side=\"backend\",direction=\"out\"", counts.backendOut),
        ]
        family(
            "stroke_proxy_frames_total", "counter",
            "Message frames received (in) and sent (out) on each side: publishers' messages come in on the frontend "
                + "and go out on the backend, subscriptions the other way.", directions.map { ($0.0, $0.1.frames) })
        family(
            "stroke_proxy_bytes_total", "counter", "Bytes of those frames.", directions.map { ($0.0, $0.1.bytes) })
        family(
            "stroke_proxy_connections", "gauge", "Connections open now on each side.",
            [ConnectionWatch.Role.frontend, .backend].map {
                ("side=\"\($0.rawValue)\"", UInt64(links.connections[$0] ?? 0))
            })
        family(
            "stroke_proxy_connect_retries_total", "counter", "Failed attempts to connect to an endpoint (connect:).",
            [("", UInt64(links.connectRetries))])
        family(
            "stroke_proxy_disconnections_total", "counter", "Connections that ended, whoever ended them.",
            [("", UInt64(links.disconnections))])
        family(
            "stroke_proxy_handshakes_failed_total", "counter",
            "Handshakes that failed (not ZMTP, a socket of the wrong type, a CURVE key that does not fit, a refused key).",
            [("", UInt64(links.handshakesFailed))])
        family(
            "stroke_proxy_accept_failures_total", "counter",
            "Connections a bound endpoint could not take (out of files, most often).",
            [("", UInt64(links.acceptFailures))])
        family(
            "stroke_proxy_unfinished_messages_cut_total", "counter",
            "Publishers' connections cut for sending more than a limit without finishing a message.",
            [("", UInt64(links.unfinishedMessagesCut))])
        family(
            "stroke_proxy_subscribers_cut_total", "counter",
            "Subscribers' connections cut for holding subscriptions past --max-subscription-bytes.",
            [("", UInt64(authentication.subscribersCut.load(ordering: .relaxed)))])
        let refused = authentication.handshakesRefused.load(ordering: .relaxed)
        family(
            "stroke_proxy_handshakes_refused_total", "counter",
            "CURVE handshakes refused (key not in --curve-authorized-keys).", [("", UInt64(refused))])
        let cut = authentication.connectionsCut.load(ordering: .relaxed)
        family(
            "stroke_proxy_connections_cut_total", "counter",
            "Connections cut after a reload took their client's key off the list.", [("", UInt64(cut))])
        let revoked = authentication.messagesRevoked.load(ordering: .relaxed)
        family(
            "stroke_proxy_messages_revoked_total", "counter",
            "Messages dropped because their publisher's key was taken off the list.", [("", UInt64(revoked))])
        family(
            "stroke_proxy_send_waits_total", "counter",
            "Poll intervals (100 ms) a message waited for a subscriber a high-water mark behind (--no-drop).",
            [("", counts.waits)])
        family(
            "stroke_proxy_waiting", "gauge",
            "1 while a message waits for a subscriber a high-water mark behind (--no-drop), else 0.",
            [("", counts.waiting ? 1 : 0)])
        family(
            "stroke_proxy_up", "gauge", "1 while the forwarding loop turns, else 0.", [("", isLive ? 1 : 0)])
        return text
    }
}
