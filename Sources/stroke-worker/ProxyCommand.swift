import Foundation
import StrokeRecognition
import StrokeWorker
import Synchronization
import ZeroMQ

/// `stroke-worker proxy`: libzmq's steerable XSUB → XPUB proxy, for the input and results addresses of a
/// sharded cluster.
enum ProxyCommand {
    static let usage = """
        USAGE: stroke-worker proxy --frontend ENDPOINT --backend ENDPOINT [--control ENDPOINT] [--hwm N]

        Forwards messages from publishers (XSUB side, --frontend) to subscribers (XPUB side, --backend) and
        subscriptions back up, with libzmq's zmq_proxy_steerable, or a loop of its own that reads who sent each
        message (--curve-authorized-keys), hands its counts over (--metrics) or connects anew to an endpoint that
        refused the handshake (a side that connects). ENDPOINT: bind:ADDR, connect:ADDR or ADDR (bind).
          --frontend ENDPOINT  [STROKE_PROXY_FRONTEND] where publishers connect, repeatable
          --backend ENDPOINT   [STROKE_PROXY_BACKEND] where subscribers connect, repeatable; one sending a message
                               over 1 KiB (no subscription is that long) is disconnected
          --control ENDPOINT   [STROKE_PROXY_CONTROL] a REP socket taking PAUSE, RESUME, TERMINATE and STATISTICS
                               (answered with the proxy's counters, the others with OK; any other request with
                               ERROR). Default: none
          --hwm N              [STROKE_PROXY_HWM] high-water mark of the messages on both sides; 0: no limit,
                               and the proxy's memory grows with a slow subscriber's backlog. Default: 100000
          --no-drop            [STROKE_PROXY_NO_DROP: 1 or 0] when a subscriber is a high-water mark behind,
                               wait for it (backpressure on every publisher) instead of dropping its messages
                               (which the protocol's sequence numbers then report). Default: off
          --max-message-bytes N
                               [STROKE_PROXY_MAX_MESSAGE_BYTES] a publisher sending a larger message is
                               disconnected, its message never forwarded: a worker would cut its connection to
                               the proxy for it (past 4 times its own --max-message-bytes), losing every other
                               publisher's messages on their way; so is one that sends this and 4 MiB more
                               without finishing a message (every frame flagged "more"); 0: any size. Default:
                               4194304 (a worker's size at its default)
          --max-subscription-bytes N
                               [STROKE_PROXY_MAX_SUBSCRIPTION_BYTES] subscriptions one subscriber connected to a
                               bound --backend may hold, each counted as its prefix's bytes and 64; past them the
                               connection is cut (the proxy keeps each twice, on either side, about 60 bytes of
                               memory a byte); 0: no limit. Default: 16777216 (a worker's)
          --consumer-timeout MS
                               [STROKE_PROXY_CONSUMER_TIMEOUT] a subscriber that takes none of the messages sent
                               to it this long (hung, not reading, or gone with its machine) is disconnected, so
                               that --no-drop waits for it no longer; 0 leaves the system's limit (about 15
                               minutes). Default: 10000
          --ipv6 on|off        [STROKE_PROXY_IPV6] whether host names resolve to IPv6 addresses too, and *
                               binds IPv6 as well as IPv4; an IPv6 address in brackets (tcp://[::1]:5557)
                               works either way. Default: off
          --tcp-keepalive SECONDS
                               [STROKE_PROXY_TCP_KEEPALIVE] TCP keepalive on both sides: a connection on which
                               nothing arrived this long is probed every 2 s and dropped after 5 unanswered
                               probes, so that publishers and idle subscribers that vanished are let go; 0
                               leaves the system's setting. Default: 10
          --metrics HOST:PORT  [STROKE_PROXY_METRICS] HTTP: GET /metrics (frames and bytes forwarded each way,
                               connections and their failures, refused handshakes, time spent waiting for a
                               subscriber behind, in Prometheus's text format), /healthz (200 while the proxy
                               forwards, or waits for such a subscriber with --no-drop) and /readyz (200 when
                               besides every endpoint it connects to has a connection). Default: none
          --handshake-retry SECONDS
                               [STROKE_PROXY_HANDSHAKE_RETRY] libzmq does not connect again to an endpoint that
                               refused the proxy's key or broke the protocol; the proxy does, after 1 s, then
                               twice as long after each failure up to this; 0: never. Default: 30
          --curve-secret-key FILE
                               [STROKE_PROXY_CURVE_SECRET_KEY] encrypt both sides with CURVE: FILE holds the
                               proxy's secret key (stroke-tool keygen); publishers, workers and consumers connect
                               as CURVE clients with its public key. Default: none (plain text, any peer)
          --curve-authorized-keys FILE
                               [STROKE_PROXY_CURVE_AUTHORIZED_KEYS] with --curve-secret-key: admit only clients
                               whose public key is in FILE (one per line; SIGHUP reads it again, and a
                               publisher connected with a key no longer listed is cut at its next message,
                               a subscriber at once).
                               Default: any client with the key
        The log says when an endpoint the proxy connects to does not answer (at once, then every minute), connects,
        is lost or refuses the handshake, and when a side cannot take a connection (out of files).
        SIGINT or SIGTERM terminate the proxy and exit 0; SIGHUP reads --curve-authorized-keys again. Exit status 2
        for a command line or environment it cannot read (an option unknown, unreadable or out of range, a CURVE key
        file missing or holding no key), 1 when the proxy cannot run as configured (two endpoints on one address, an
        address another process holds).
        Under systemd (Type=notify), NOTIFY_SOCKET gets READY=1 once both sides are bound, and STOPPING=1; with
        WatchdogSec= (WATCHDOG_USEC) a WATCHDOG=1 ping at half the interval while the forwarding loop turns.
        """

    /// The default of `--max-message-bytes`: the size past which a worker at its default `--max-message-bytes`
    /// disconnects (`WorkerConfiguration.disconnectingMessageBytes`).
    static let defaultMaxMessageBytes = WorkerConfiguration().disconnectingMessageBytes

    /// The proxy's options; each has its environment variable (`variable(_:)`).
    static let optionNames = [
        "frontend", "backend", "control", "hwm", "no-drop", "max-message-bytes", "max-subscription-bytes",
        "curve-secret-key",
        "curve-authorized-keys", "consumer-timeout", "tcp-keepalive", "ipv6", "handshake-retry", "metrics",
    ]

    /// An option's environment variable: `--tcp-keepalive`, `STROKE_PROXY_TCP_KEEPALIVE`.
    static func variable(_ flag: String) -> String {
        "STROKE_PROXY_" + flag.uppercased().replacingOccurrences(of: "-", with: "_")
    }

    static func main(_ arguments: [String], _ environment: [String: String]) async -> Int32 {
        var parsed: CommandLineArguments?
        // The listening endpoints, each with the option that names it: a bind that failed is said with its option.
        var named: [(named: String, endpoint: WorkerConfiguration.Endpoint)] = []
        do {
            let args = try CommandLineArguments(
                arguments, flagNames: ["help", "no-drop"], known: Set(optionNames), environment: environment)
            parsed = args
            guard args.positional.isEmpty else {
                throw CommandLineArguments.Failure(description: "unexpected argument \"\(args.positional[0])\"")
            }
            if args.flag("help") {
                print(usage)
                return 0
            }
            let noDrop = try args.flag("no-drop", env: variable("no-drop"))
            let ipv6 =
                try WorkerConfiguration.switchValue("ipv6", args.value("ipv6", env: variable("ipv6"))) ?? false
            /// The endpoints of a side, each with `--ipv6`'s choice.
            func endpoints(_ flag: String, env: String) throws -> [WorkerConfiguration.Endpoint] {
                try args.values(flag, env: env).map {
                    var endpoint = WorkerConfiguration.Endpoint(parsing: $0)
                    endpoint.ipv6 = ipv6
                    try endpoint.check(flag: flag)
                    return endpoint
                }
            }
            let frontend = try endpoints("frontend", env: variable("frontend"))
            let backend = try endpoints("backend", env: variable("backend"))
            let control = try endpoints("control", env: variable("control"))  // checked here, bound once it runs
            guard !frontend.isEmpty, !backend.isEmpty else {
                throw CommandLineArguments.Failure(description: "--frontend and --backend are required\n\n\(usage)")
            }
            named =
                [("frontend", frontend), ("backend", backend), ("control", control)].flatMap { flag, side in
                    side.map { ("--\(flag) \($0)", $0) }
                }
                + (args.value("metrics", env: variable("metrics")).flatMap(WorkerConfiguration.metricsEndpoint)
                    .map { [$0] } ?? [])
            // A configuration it cannot run, status 1, as the worker's (2 before session 86).
            if let shared = WorkerConfiguration.sharedAddress(among: named) {
                throw RecognitionError(.invalidConfiguration, shared)
            }
            // Read as 32-bit numbers: a larger one is refused with the option's name, not trapped on.
            let hwm = try args.parsed("hwm", env: variable("hwm"), default: Int32(100_000))
            let consumerTimeout = try args.parsed(
                "consumer-timeout", env: variable("consumer-timeout"), default: Int32(10_000))
            let keepalive = try args.parsed("tcp-keepalive", env: variable("tcp-keepalive"), default: Int32(10))
            let retry = try args.parsed("handshake-retry", env: variable("handshake-retry"), default: Int32(30))
            guard (0...10_000_000).contains(hwm) else {
                throw CommandLineArguments.Failure(description: "--hwm \(hwm) is outside 0...10000000")
            }
            let maxMessageBytes = try args.parsed(
                "max-message-bytes", env: variable("max-message-bytes"), default: Self.defaultMaxMessageBytes)
            guard (0...Int64(Int32.max)).contains(maxMessageBytes) else {
                throw CommandLineArguments.Failure(
                    description: "--max-message-bytes \(maxMessageBytes) is outside 0...\(Int32.max)")
            }
            let maxSubscriptionBytes = try args.parsed(
                "max-subscription-bytes", env: variable("max-subscription-bytes"),
                default: WorkerConfiguration().maxSubscriptionBytes)
            guard (0...(1 << 40)).contains(maxSubscriptionBytes) else {
                throw CommandLineArguments.Failure(
                    description: "--max-subscription-bytes \(maxSubscriptionBytes) is outside 0...\(1 << 40)")
            }
            guard (0...3600).contains(retry) else {
                throw CommandLineArguments.Failure(description: "--handshake-retry \(retry) is outside 0...3600")
            }
            guard (0...86_400).contains(keepalive) else {
                throw CommandLineArguments.Failure(description: "--tcp-keepalive \(keepalive) is outside 0...86400")
            }
            guard (0...3_600_000).contains(consumerTimeout) else {
                throw CommandLineArguments.Failure(
                    description: "--consumer-timeout \(consumerTimeout) is outside 0...3600000")
            }
            let security = try TransportSecurity.load(
                secretKeyFile: args.value("curve-secret-key", env: variable("curve-secret-key")), serverKey: nil,
                authorizedKeysFile: args.value("curve-authorized-keys", env: variable("curve-authorized-keys")))
            let context = try ZMQContext()
            let internalControl = "inproc://stroke-proxy-control"
            let logger = Logger(label: "stroke-proxy")
            let unknown = CommandLineArguments.unknownVariables(
                prefix: "STROKE_PROXY_", known: optionNames.map(variable), in: environment)
            if !unknown.isEmpty {
                logger.warning(
                    "environment variables that name no option, ignored", ["variables": unknown.joined(separator: ", ")]
                )
            }
            // Every producer's and consumer's connection takes a file: the proxy holds a whole fleet's.
            OpenFileLimit.raise(reportingTo: logger)
            let terminated = StopFlag()
            // Its connections logged: an endpoint it connects to that does not answer, or is lost; failed accepts.
            let connections = ConnectionWatch(
                context: context, addressPrefix: "inproc://stroke-proxy-monitor", logger: logger, metrics: nil,
                retryLimit: retry > 0 ? .seconds(Int(retry)) : nil)
            // Under systemd's Type=notify: ready once bound, each reload and the stop announced, and with
            // WatchdogSec= a ping while the forwarding loop turns.
            let systemd = SystemdNotifier.fromEnvironment(environment)
            // Bound now, so that a bad address is refused before anything starts.
            let served = try args.value("metrics", env: variable("metrics")).map { address in
                let metrics = ProxyMetrics(connections: connections)
                return (metrics: metrics, server: try metrics.listen(on: address))
            }
            // The watchdog asks whether the loop turns, which the metrics know, served or not.
            let metrics =
                served?.metrics ?? (systemd?.watchdogInterval != nil ? ProxyMetrics(connections: connections) : nil)
            let metricsServer = served?.server
            let authenticator = ClientAuthenticator.forListedClients(
                security, context: context, logger: logger, metrics: metrics?.authentication)
            var configured = Forwarder(
                frontend: frontend, backend: backend, controlEndpoint: internalControl, highWaterMark: hwm,
                noDrop: noDrop, frontendSecurity: security,
                backendSecurity: security, frontendAuthenticator: authenticator, backendAuthenticator: authenticator)
            configured.frontendMaxMessageBytes = maxMessageBytes > 0 ? maxMessageBytes : nil
            configured.backendMaxMessageBytes = WorkerConfiguration.largestSubscriptionBytes
            // As a worker's: subscribers that connect to the proxy are counted, not those it connects to.
            configured.backendSubscriptionLimit = backend.contains { $0.bind } ? maxSubscriptionBytes : 0
            configured.backendMetrics = metrics?.authentication
            configured.backendTimeoutMilliseconds = consumerTimeout
            configured.frontendKeepaliveSeconds = keepalive
            configured.backendKeepaliveSeconds = keepalive
            configured.connectionWatch = connections
            configured.metrics = metrics
            configured.watchedRoles = (frontend: .frontend, backend: .backend)
            let forwarder = configured
            let reload = SignalHandling.onReload {
                systemd?.notify(SystemdNotifier.reloadingState())
                if let authenticator { authenticator.reload() } else { logger.warning("no authorized keys to reload") }
                systemd?.notify("READY=1")
            }
            defer { reload.cancel() }
            let signals = SignalHandling.onTermination { _ in
                logger.info("terminating")
                metrics?.stop()
                systemd?.notify("STOPPING=1")
                terminated.value.store(true, ordering: .releasing)
                // The control PAIR may be taken by the relay; shutting the context down ends the proxy
                // (zmq_proxy_steerable returns ETERM) and every blocking call with it.
                context.shutdown()
            }
            defer { signals.forEach { $0.cancel() } }
            let controlEndpoint = args.value("control", env: variable("control"))
            let controlBinding = controlEndpoint.map { _ in ControlRelay.Binding() }
            try await withThrowingDiscardingTaskGroup { group in
                // Whichever thread ends first (TERMINATE, a signal, a bind error) ends the other: the proxy and
                // the relay block in libzmq, where only a context shutdown reaches them.
                @Sendable func endAll() {
                    terminated.value.store(true, ordering: .releasing)
                    context.shutdown()
                }
                // Bound before the proxy's sockets accept anyone.
                await authenticator?.start(
                    in: &group, threadName: "stroke-proxy-zap",
                    stopped: { terminated.value.load(ordering: .acquiring) }
                ) { _ in endAll() }
                group.addTask {
                    defer { endAll() }
                    try await ThreadRunner.run(name: "stroke-proxy") {
                        try forwarder.run(context: context) { frontend, backend in
                            var fields = [
                                "frontend": frontend.joined(separator: " "), "backend": backend.joined(separator: " "),
                            ]
                            if let metricsServer { fields["metrics"] = metricsServer.address }
                            // The control socket binds on the relay's thread, its owner; said here once bound,
                            // so that the line names every address the proxy listens on. A relay that failed
                            // ends the proxy: it is not said to listen, nor to be ready.
                            if let controlBinding {
                                guard let bound = controlBinding.wait() else { return }
                                fields["control"] = bound
                            }
                            logger.info("proxy listening", fields)
                            systemd?.notify(
                                "READY=1\nSTATUS=forwarding \(frontend.joined(separator: " ")) to "
                                    + backend.joined(separator: " "))
                        }
                    }
                }
                if let systemd, let metrics {
                    group.addTask {
                        try await metrics.superviseWatchdog(systemd) { terminated.value.load(ordering: .acquiring) }
                    }
                }
                if let metricsServer {
                    group.addTask {
                        try await ThreadRunner.run(name: "stroke-proxy-metrics") {
                            metricsServer.run { terminated.value.load(ordering: .acquiring) }
                        }
                    }
                }
                group.addTask {
                    try await ThreadRunner.run(name: "stroke-proxy-connections") {
                        connections.run(stopped: { terminated.value.load(ordering: .acquiring) })
                    }
                }
                if let controlEndpoint, let controlBinding {
                    group.addTask {
                        defer { endAll() }
                        try await ThreadRunner.run(name: "stroke-proxy-control") {
                            try ControlRelay.run(
                                context: context, external: controlEndpoint, proxyControl: internalControl,
                                binding: controlBinding, stopped: { terminated.value.load(ordering: .acquiring) })
                        }
                    }
                }
            }
            return 0
        } catch let failure as CommandLineArguments.Failure {
            let named = parsed?.naming(failure) { optionNames.contains($0) ? variable($0) : nil } ?? failure
            LogOutput.write("stroke-worker proxy: \(named)\n")
            return 2
        } catch {
            let failedBind = WorkerConfiguration.bindFailure(error, among: named)
            LogOutput.write("stroke-worker proxy: \(failedBind ?? "\(error)")\n")
            return 1
        }
    }
}

/// A stop flag shared by the signal handler and the control relay.
final class StopFlag: Sendable {
    let value = Atomic<Bool>(false)
}
