import Foundation
import ZeroMQ

/// libzmq's XSUB → XPUB proxy on a dedicated thread, steerable through an inproc control socket.
///
/// A worker with several lanes uses two: one binds (or connects) the worker's inputs and fans them out to the
/// lanes on an inproc endpoint (subscriptions flow back up, so producers still filter by shard); the other
/// gathers the lanes' events and publishes them on the worker's outputs. The `stroke-worker proxy` mode uses
/// the same type between machines.
public struct Forwarder: Sendable {
    /// Where the XSUB side attaches (producers or publishers).
    public var frontend: [WorkerConfiguration.Endpoint]
    /// Where the XPUB side attaches (subscribers).
    public var backend: [WorkerConfiguration.Endpoint]
    /// The inproc endpoint of the control socket (PAIR): send `PAUSE`, `RESUME`, `TERMINATE` or `STATISTICS`.
    public var controlEndpoint: String
    /// High-water mark of the messages' direction, frontend to backend, on both sides.
    public var highWaterMark: Int32
    /// Whether the XPUB side waits for slow subscribers instead of dropping (`ZMQ_XPUB_NODROP`).
    public var noDrop: Bool
    /// Linger of the XPUB side at close, in milliseconds.
    public var lingerMilliseconds: Int32
    /// CURVE on the XSUB side's endpoints (nil: none; inproc ones are never encrypted).
    public var frontendSecurity: TransportSecurity?
    /// CURVE on the XPUB side's endpoints.
    public var backendSecurity: TransportSecurity?
    /// The handler of the XSUB side's CURVE handshakes, when it admits listed client keys only: the forwarder then
    /// reads who sent each message, and after a reload revokes keys it drops the messages of connections made with
    /// them and cuts those connections (`ConnectionVetting`), where libzmq's proxy would forward them unread.
    public var frontendAuthenticator: ClientAuthenticator?
    /// The handler of the XPUB side's CURVE handshakes, when it admits listed client keys only: the forwarder then
    /// notes each subscriber's key, and after a reload revokes keys it cuts the subscribers' connections made with
    /// them (`SubscriberVetting`), where libzmq's proxy would go on publishing to them.
    public var backendAuthenticator: ClientAuthenticator?
    /// TCP keepalive on the XSUB side's connections, after this many seconds in which nothing arrived
    /// (`WorkerConfiguration.tcpKeepaliveSeconds`, for a worker's input); 0: the system's setting.
    public var frontendKeepaliveSeconds: Int32 = 0
    /// ZMTP heartbeat interval on the XSUB side's connections, in milliseconds, a peer silent for three of them
    /// being disconnected (`WorkerConfiguration.heartbeatMilliseconds`, for a worker's input); 0: none.
    public var frontendHeartbeatMilliseconds: Int32 = 0
    /// The size past which a message arriving on the XSUB side ends its connection (`ZMQ_MAXMSGSIZE`;
    /// `WorkerConfiguration.disconnectingMessageBytes`, for a worker's input); nil: any size. Default: `nil`.
    public var frontendMaxMessageBytes: Int64?
    /// The size past which a message arriving on the XPUB side (a subscription) ends its connection
    /// (`ZMQ_MAXMSGSIZE`; `WorkerConfiguration.largestSubscriptionBytes` for a worker's output and a proxy's
    /// backend); nil: any size. Default: `nil`.
    public var backendMaxMessageBytes: Int64?
    /// The bytes of subscriptions one connection of the XPUB side may hold (`SubscriptionLedger`;
    /// `WorkerConfiguration.maxSubscriptionBytes` for a worker's output and a proxy's backend); past them the
    /// connection is cut, counted in `backendMetrics`. 0: no limit. Default: `0`.
    public var backendSubscriptionLimit = 0
    /// Whether the subscriptions read on the XPUB side stay there instead of flowing up to the publishers, the XSUB
    /// side subscribing to everything itself: for a worker's output forwarder, whose publishers are its own lanes.
    /// Each subscription forwarded up is held again by the XSUB side and by each lane (four copies with two lanes:
    /// session 90 measured 2.3 GB at the cut of a subscriber past 16 MiB), where the lanes' events cost little to
    /// hand over whether anyone takes them or not. Only the loop of its own can keep them: setting it runs that
    /// loop. Default: `false`.
    public var keepsSubscriptions = false
    /// Where the subscribers cut for `backendSubscriptionLimit` are counted (`WorkerMetrics.subscribersCut`); nil:
    /// nowhere.
    public var backendMetrics: WorkerMetrics?
    /// How long a subscriber on the XPUB side may take none of the messages sent to it before its connection is
    /// dropped, in milliseconds (`WorkerConfiguration.consumerTimeoutMilliseconds`); 0: the system's limits.
    public var backendTimeoutMilliseconds: Int32 = 0
    /// TCP keepalive on the XPUB side's connections, after this many seconds in which nothing arrived
    /// (`WorkerConfiguration.tcpKeepaliveSeconds`, for a worker's output); 0: the system's setting.
    public var backendKeepaliveSeconds: Int32 = 0
    /// Where the connection events of the sides named in `watchedRoles` go (`ConnectionWatch`); nil: nowhere.
    public var connectionWatch: ConnectionWatch?
    /// The sides whose connections `connectionWatch` watches, and the role each has in its log: a worker's
    /// forwarders watch their external side as its input or output, a proxy both as frontend and backend.
    public var watchedRoles: (frontend: ConnectionWatch.Role?, backend: ConnectionWatch.Role?) = (nil, nil)
    /// Whether the forwarder runs the loop of its own, whose sends to a subscriber behind wait at most 100 ms at a
    /// time and take `TERMINATE` between two waits (`ZMQProxy.runFiltering`), even where nothing else asks for it:
    /// a worker's output forwarder with `--slow-consumers wait`, so that a consumer that takes nothing cannot hold
    /// the worker's stop for good. Default: `false`.
    public var turnsWhileWaiting = false
    /// Where the forwarding loop hands its counts once per turn (`stroke-worker proxy --metrics`); nil: nowhere.
    /// With it the forwarder runs the loop of its own, which turns at least every 100 ms.
    public var metrics: ProxyMetrics?

    /// Creates a forwarder description.
    public init(
        frontend: [WorkerConfiguration.Endpoint], backend: [WorkerConfiguration.Endpoint], controlEndpoint: String,
        highWaterMark: Int32 = 100_000, noDrop: Bool = false, lingerMilliseconds: Int32 = 1000,
        frontendSecurity: TransportSecurity? = nil, backendSecurity: TransportSecurity? = nil,
        frontendAuthenticator: ClientAuthenticator? = nil, backendAuthenticator: ClientAuthenticator? = nil
    ) {
        self.frontend = frontend
        self.backend = backend
        self.controlEndpoint = controlEndpoint
        self.highWaterMark = highWaterMark
        self.noDrop = noDrop
        self.lingerMilliseconds = lingerMilliseconds
        self.frontendSecurity = frontendSecurity
        self.backendSecurity = backendSecurity
        self.frontendAuthenticator = frontendAuthenticator
        self.backendAuthenticator = backendAuthenticator
    }

    /// High-water mark of the subscriptions' direction, backend to frontend, whatever `highWaterMark` is: a
    /// subscriber sends up to 4,096 bucket prefixes at once, and one lost subscription silently loses a bucket's
    /// input.
    public static let subscriptionHighWaterMark: Int32 = 100_000

    /// Binds and connects, then runs the proxy until `TERMINATE` arrives (blocking; call on its own thread).
    ///
    /// - Parameter ready: called once the sockets are attached, with each side's endpoints: those bound (with the
    ///   ports chosen for `:*`), and those connected to as `connect:ADDRESS` (until session 73 left out: a worker
    ///   with several lanes that connects to an input proxy did not say so in its `listening` record).
    public func run(context: ZMQContext, ready: (_ frontend: [String], _ backend: [String]) -> Void) throws {
        let xsub = try ZMQSocket(context, .xsub)
        let xpub = try ZMQSocket(context, .xpub)
        let control = try ZMQSocket(context, .pair)
        try xsub.setHighWaterMarks(send: Self.subscriptionHighWaterMark, receive: highWaterMark)
        try xpub.setHighWaterMarks(send: highWaterMark, receive: subscriptionReceiveHighWaterMark)
        if noDrop { try xpub.setNoDrop(true) }
        try xpub.setLinger(milliseconds: lingerMilliseconds)
        try xsub.setLinger(milliseconds: 0)
        try frontendSecurity?.apply(to: xsub)
        try WorkerConfiguration.applyKeepalive(seconds: frontendKeepaliveSeconds, to: xsub)
        try WorkerConfiguration.applyHeartbeat(milliseconds: frontendHeartbeatMilliseconds, to: xsub)
        if let frontendMaxMessageBytes { try xsub.setMaxMessageSize(frontendMaxMessageBytes) }
        try backendSecurity?.apply(to: xpub)
        try WorkerConfiguration.applyConsumerTimeout(milliseconds: backendTimeoutMilliseconds, to: xpub)
        try WorkerConfiguration.applyKeepalive(seconds: backendKeepaliveSeconds, to: xpub)
        if let backendMaxMessageBytes { try xpub.setMaxMessageSize(backendMaxMessageBytes) }
        var subscribers =
            backendAuthenticator != nil || backendSubscriptionLimit > 0
            ? try OutputSubscriptions(
                socket: xpub, authenticator: backendAuthenticator, limit: backendSubscriptionLimit,
                metrics: backendMetrics, logger: connectionWatch?.logger ?? backendAuthenticator?.logger ?? Logger())
            : nil
        try control.bind(controlEndpoint)
        // Endpoints libzmq gave up after a failed handshake, connected again on this thread (`ConnectionWatch`).
        var redials: [(ConnectionWatch.Redial, ZMQSocket)] = []
        // A publisher's message that never ends is held by libzmq, out of the loop's sight: the watch cuts it, from
        // what the loop notes of the connections it reads (`UnfinishedMessageTracker`). Only where a frame's size
        // is bounded: otherwise no amount of a message under way is too much.
        let unfinished =
            connectionWatch != nil && watchedRoles.frontend != nil
            ? frontendMaxMessageBytes.map { UnfinishedMessageGuard(disconnectingMessageBytes: $0) } : nil
        if let connectionWatch {
            if let role = watchedRoles.frontend {
                redials.append(
                    (try connectionWatch.watch(xsub, role: role, endpoints: frontend, unfinished: unfinished), xsub))
            }
            if let role = watchedRoles.backend {
                redials.append((try connectionWatch.watch(xpub, role: role, endpoints: backend), xpub))
            }
        }
        // Only a side that connects over a network can be given up.
        let connects = [(watchedRoles.frontend, frontend), (watchedRoles.backend, backend)].contains {
            role, endpoints in
            role != nil && endpoints.contains { !$0.bind && !$0.address.hasPrefix("inproc://") }
        }
        let logger = connectionWatch?.logger
        let attachedFrontend = try frontend.map { endpoint throws(ZMQError) in
            try xsub.attach(endpoint) ?? "connect:\(endpoint.address)"
        }
        let attachedBackend = try backend.map { endpoint throws(ZMQError) in
            try xpub.attach(endpoint) ?? "connect:\(endpoint.address)"
        }
        // The lanes' every event, whoever subscribed: the XPUB side filters them for its subscribers.
        if keepsSubscriptions { _ = try xsub.send([1]) }
        ready(attachedFrontend, attachedBackend)
        // libzmq's proxy has no turn of its own to connect again in: a forwarder that may need one, or reads who
        // sends, runs the loop of its own.
        let turns =
            metrics != nil || turnsWhileWaiting || unfinished != nil || keepsSubscriptions
            || connects && connectionWatch?.retries == true
        guard frontendAuthenticator != nil || subscribers != nil || turns else {
            try ZMQProxy.runSteerable(frontend: xsub, backend: xpub, control: control)
            return
        }
        var vetting = frontendAuthenticator.map { ConnectionVetting(authenticator: $0) }
        var sampler = unfinished.map { _ in MessageSampler() }
        try ZMQProxy.runFiltering(
            frontend: xsub, backend: xpub, control: control,
            pollMilliseconds: subscribers == nil && !turns ? -1 : Self.vettingPollMilliseconds,
            turn: { counts in
                if let unfinished, sampler != nil { unfinished.collect(from: &sampler!) }
                metrics?.record(counts)
                subscribers?.refresh()
                if let logger { for (redial, socket) in redials { redial.apply(to: socket, logger: logger) } }
            },
            admitBackend: { message in
                subscribers?.read(message)
                return !keepsSubscriptions
            },
            frontendRead: { bytes, message in sampler?.read(bytes: bytes) { message.sourceDescriptor } },
            frontendEmptied: { sampler?.emptied = true },
            admit: { message in
                vetting?.refresh()
                return vetting?.admits(message) ?? true
            })
    }

    /// The high-water mark of the subscriptions the XPUB side receives: `subscriptionHighWaterMark`, or
    /// `Publisher.countedSubscriptionQueue` (eight messages) where subscriptions are counted against a limit and no
    /// backend endpoint is inproc (a full queue over a network only makes libzmq read the connection later; an
    /// inproc peer would drop them), so that libzmq takes fewer of them into its tree before the loop reads them.
    var subscriptionReceiveHighWaterMark: Int32 {
        let network = !backend.contains { $0.address.hasPrefix("inproc://") }
        return backendSubscriptionLimit > 0 && network
            ? Publisher.countedSubscriptionQueue : Self.subscriptionHighWaterMark
    }

    /// How long the forwarder's poll waits at most when it checks its subscribers' keys, connects again or hands
    /// its counts over: the longest a revoked subscriber of an idle forwarder goes on receiving.
    static let vettingPollMilliseconds = 100

    /// Sends a command to a running forwarder's control socket (`.terminate`, `.pause`, `.resume`).
    public static func send(_ command: ZMQProxy.Command, to controlEndpoint: String, context: ZMQContext) throws {
        let socket = try ZMQSocket(context, .pair)
        try socket.setLinger(milliseconds: 1000)
        try socket.setTimeouts(send: 1000)
        try socket.connect(controlEndpoint)
        try socket.send(command.rawValue)
    }
}
