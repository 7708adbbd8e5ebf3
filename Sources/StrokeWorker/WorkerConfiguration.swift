import Foundation
import StrokeRecognition

/// Everything a worker needs to run; every field has a documented default, a flag and an environment variable
/// (see `WorkerConfiguration+CommandLine.swift` and `stroke-worker --help`).
public struct WorkerConfiguration: Sendable {
    /// A ZeroMQ endpoint to bind or connect.
    public struct Endpoint: Sendable, Hashable, CustomStringConvertible {
        /// Whether the socket binds (listens) or connects.
        public var bind: Bool
        /// `tcp://host:port`, `ipc://path` or `inproc://name`.
        public var address: String
        /// Whether a host name resolves to IPv6 addresses too, and `*` binds IPv6 as well as IPv4 (`--ipv6`). An
        /// IPv6 address (`tcp://[::1]:5555`) works either way. Default: `false`.
        public var ipv6 = false

        /// Creates an endpoint.
        public init(bind: Bool, address: String) {
            self.bind = bind
            self.address = address
        }

        /// Whether the socket needs libzmq's IPv6 option for this endpoint: asked for (`ipv6`), or a TCP address in
        /// brackets (`tcp://[::1]:5555`, `tcp://[fe80::1%eth0]:*`), which libzmq refuses without it ("No such
        /// device").
        public var usesIPv6: Bool { ipv6 || address.hasPrefix("tcp://[") }

        /// Parses `bind:ADDRESS`, `connect:ADDRESS`, or a bare address (bound).
        public init(parsing text: String) {
            if text.hasPrefix("connect:") {
                self.init(bind: false, address: String(text.dropFirst("connect:".count)))
            } else if text.hasPrefix("bind:") {
                self.init(bind: true, address: String(text.dropFirst("bind:".count)))
            } else {
                self.init(bind: true, address: text)
            }
        }

        /// `bind:ADDRESS` or `connect:ADDRESS`.
        public var description: String { "\(bind ? "bind" : "connect"):\(address)" }
    }

    /// Where producers' touch points come in (SUB). Default: `bind:tcp://127.0.0.1:5555`.
    public var inputs: [Endpoint] = [Endpoint(bind: true, address: "tcp://127.0.0.1:5555")]
    /// Where events go out (XPUB). Default: `bind:tcp://127.0.0.1:5556`.
    public var outputs: [Endpoint] = [Endpoint(bind: true, address: "tcp://127.0.0.1:5556")]
    /// Template libraries loaded besides the built-in `default`. Default: none.
    public var libraries: [TemplateLibrary] = []
    /// The files `libraries` were read from (`--library`), which `Worker.reloadLibraries()` (SIGHUP) reads again.
    /// Default: none.
    public var libraryFiles: [String] = []
    /// This worker's shard: index `shard.index` of `shard.count`. Default: `0/1` (every session).
    public var shard: (index: Int, count: Int) = (0, 1)

    /// Whether this worker's shard holds `bucket` (`ShardKey.bucket(of:)`): `bucket mod shard.count` is its index.
    public func serves(bucket: Int) -> Bool { stateFileShard.serves(bucket: bucket) }
    /// `shard`, as a state file names it.
    public var stateFileShard: StateFile.Shard { StateFile.Shard(index: shard.index, count: shard.count) }
    /// Session threads; sessions are spread over them by shard key. Default: half the cores, at least 1 (libzmq's
    /// I/O threads and the proxies between lanes need the other half).
    public var lanes: Int = Self.defaultLanes

    /// Half the active cores, at least 1.
    public static var defaultLanes: Int { max(1, ProcessInfo.processInfo.activeProcessorCount / 2) }
    /// Whether each lane has a publisher thread that recognizes finished strokes and publishes, so that the lane
    /// thread only decodes, updates sessions and runs the checkmark detector. Default: `false`.
    public var recognitionThread = false
    /// When a lane hands finished strokes to a recognition helper thread, which recognizes them on another core
    /// while the lane goes on. Not used with `recognitionThread`. Default: `.whenBusy`.
    public var recognitionOffload = RecognitionOffload.whenBusy

    /// What the output does for a consumer whose queue of events is full (`highWaterMark` behind).
    public enum SlowConsumers: String, Sendable, CaseIterable {
        /// That consumer misses the events that do not fit, alone (its `eventSeq` shows the gap); publishing never
        /// waits, and the other consumers get every event. The worker cannot count these drops (libzmq does not
        /// report them).
        case drop
        /// The worker waits up to `sendTimeoutMilliseconds` for it, then drops the event for every consumer of that
        /// session and counts it (`eventsDropped`): backpressure for a single consumer that must see every event,
        /// at a price: a consumer that stops reading holds every event of its sessions back by that long, and the
        /// lane with them (one that subscribed to all topics, every other consumer too), until it is
        /// disconnected (`consumerTimeoutMilliseconds`). The worker stays live meanwhile (`/healthz`, the watchdog):
        /// each such wait counts as its first lane's beat; and once stopping, sends wait no more than
        /// `lingerMilliseconds` after the stop, so that such a consumer cannot hold the drain back for good.
        case wait
    }

    /// When a lane hands finished strokes to its recognition helper thread.
    public enum RecognitionOffload: String, Sendable, CaseIterable {
        /// Never: the lane recognizes every stroke itself (no helper thread).
        case off
        /// While the lane is saturated: it spent at least 90% of the last 10 ms handling input rather than
        /// waiting for it. A lightly loaded lane answers without a thread hop.
        case whenBusy = "busy"
        /// Always (for tests).
        case always
    }
    /// Most points kept per stroke; beyond it the stroke ends without a match. Default: `10000`.
    public var maxPointsPerStroke: Int = 10_000
    /// Most points in one message. Default: `4096`.
    public var maxPointsPerMessage: Int = 4096
    /// Most strokes open at once in one session. Default: `16`.
    public var maxOpenStrokes: Int = 16
    /// Most templates one session may learn (`end` with `learn`); 0 turns learning off. Default: `32`.
    public var maxSessionTemplates: Int = 32
    /// Most learned templates the worker holds over all its sessions (lanes check it apart, so each may pass it
    /// by one). Measured (`scripts/learned-memory.py`): about 2 KB a template, 6 KB for a session's first, so the
    /// default bounds them to 100–300 MB. Default: `50000`.
    public var maxLearnedTemplates: Int = 50_000
    /// Most sessions held by this worker. Default: `1000000`.
    public var maxSessions: Int = 1_000_000
    /// Largest message accepted, in bytes; larger ones get an error. Default: `1048576`.
    public var maxMessageBytes: Int = 1 << 20
    /// The size past which a producer's message ends its connection (`ZMQ_MAXMSGSIZE` on the socket that reads
    /// producers from the network, a lane's or the input forwarder's): four times `maxMessageBytes`, at least
    /// 256 KiB, so that a message somewhat too large still gets its error event and one far too large is never
    /// taken whole into memory.
    public var disconnectingMessageBytes: Int64 { Int64(max(maxMessageBytes, 1 << 16)) * 4 }
    /// The largest message a consumer may send the worker's output, and a subscriber a proxy's backend; a larger
    /// one ends its connection (`ZMQ_MAXMSGSIZE`). A consumer sends subscriptions, a flag byte and a prefix, and no
    /// topic is longer than 128 bytes (a session id): 1 KiB leaves room. libzmq keeps each subscription in a tree
    /// of about a node per byte; before session 88 five subscriptions of 50 MiB took a worker to 1.5 GB resident.
    public static let largestSubscriptionBytes: Int64 = 1024
    /// The bytes of subscriptions one consumer's connection may hold, each subscription counted as its prefix and
    /// 64 bytes (`SubscriptionLedger`); past them the connection is cut, with a warning naming its peer. libzmq
    /// keeps every subscription in memory, in a tree of about 25–32 bytes a byte subscribed (session 90: 910 bytes
    /// for a prefix of 36, 32 KB for one of 1,000), for as long as the connection lasts: at the default one raw
    /// subscriber's flood of long prefixes was cut with a worker holding 0.5–1.5 GB (libzmq takes them in before
    /// they are read: `SubscriptionLedger`), where it took a worker to 3.1 GB and growing before. A consumer that
    /// follows sessions one by one holds about 100 bytes for each (a UUID's 36 and 64), so the default lets one
    /// connection follow 160,000 sessions. Only consumers that connect to the worker's bound outputs are counted
    /// (`outputSubscriptionLimit`). 0: no limit. Default: `16777216`.
    public var maxSubscriptionBytes: Int = 16 << 20

    /// The limit the owners of the output sockets apply to each consumer's connection: `maxSubscriptionBytes` when
    /// an output endpoint binds, 0 when the worker only connects its outputs (to a results proxy: its one
    /// connection carries every distinct prefix of all the proxy's subscribers, whom the proxy counts itself).
    public var outputSubscriptionLimit: Int { outputs.contains { $0.bind } ? maxSubscriptionBytes : 0 }
    /// Seconds without input after which a session is dropped. Default: `300`.
    public var idleTimeoutSeconds: Int = 300
    /// High-water mark of the input: how many received messages may wait in the worker, per lane (and in the
    /// input forwarder when there are several lanes). Beyond it libzmq stops reading from the network, so the
    /// backlog waits in the kernel's socket buffers and in the producer's send queue instead, where the
    /// producer's own high-water mark applies.
    ///
    /// Deep, so that the lane stays supplied while libzmq's I/O thread waits for a core: against 5,000 (the default
    /// until session 65) it handled 6–13% more single binary points and 32-point binary messages a second at 1,000
    /// sessions, 2–11% more single points and about as many batched binary messages at 10,000, and up to 5% fewer
    /// 32-point JSON messages (Benchmarks-history.md, session 65). The price: a saturated worker holds 33–43 MB more
    /// per lane with 32-point messages (8 MB with single points), malloc keeps some of it after a burst, and under
    /// sustained overload a full queue is a wait of about 25 ms of single points or 90 ms of 32-point messages on the
    /// benchmark's machine, where a producer that drops at its own high-water mark would drop sooner instead; `5000`
    /// gives them back. 0: no limit (the worker's memory grows with any backlog). Default: `50000`.
    public var inputHighWaterMark: Int32 = 50_000
    /// High-water mark of the output sockets (and of the output forwarder), in messages: how far a consumer of
    /// results may fall behind before `slowConsumers` applies; 0: no limit (the worker's memory grows with a slow
    /// consumer's backlog until `consumerTimeoutMilliseconds` cuts it). Default: `100000`.
    public var highWaterMark: Int32 = 100_000
    /// What the output does for a consumer that has fallen `highWaterMark` events behind. Default: `.drop`.
    public var slowConsumers = SlowConsumers.drop
    /// How long a publish may wait for a slow consumer before the event is dropped and counted, in milliseconds
    /// (with `slowConsumers` `.wait` only). Default: `100`.
    public var sendTimeoutMilliseconds: Int32 = 100
    /// How long a consumer may take none of the events sent to it before its connection is dropped, in
    /// milliseconds: its system has acknowledged nothing, or kept its receive window closed, that long
    /// (`ZMQ_TCP_MAXRT`); 0 leaves the system's limits (about 15 minutes on Linux). It finds a consumer that
    /// hangs, stopped reading, or vanished with its machine, and frees its queued events; its libzmq, if it runs,
    /// connects and subscribes again, and its `eventSeq` shows what it missed. ZMTP heartbeats cannot: their ping
    /// waits behind the events the consumer does not take. Default: `10000`.
    public var consumerTimeoutMilliseconds: Int32 = 10_000
    /// How long unsent events are kept at shutdown, in milliseconds; -1 keeps them until they are sent (or their
    /// consumer is cut by `consumerTimeoutMilliseconds`), and with `SlowConsumers.wait` sends wait for a slow
    /// consumer after the stop as before it. Default: `2000`.
    public var lingerMilliseconds: Int32 = 2000
    /// ZMTP heartbeat interval on the input (the peer is dropped after three silent intervals), in milliseconds; 0
    /// disables. Default: `0`.
    ///
    /// Off by default since session 70: libzmq sends its heartbeats whatever the connection carries, and one that
    /// reaches a producer which has just closed its connection, while the worker has not yet read all it sent,
    /// makes the producer's system reset the connection, and the worker's system then discards the unread
    /// messages (`stroke-bench` lost the last 0.9% of a run's strokes so, in 5 runs of about 55 at the old 5,000
    /// ms and 6 of 10 at 100). `tcpKeepaliveSeconds` finds vanished producers instead.
    public var heartbeatMilliseconds: Int32 = 0
    /// Seconds in which nothing arrived on an input or output connection before the system's TCP keepalive probes
    /// the peer (then every `keepaliveProbeSeconds`, dropping the connection after `keepaliveProbes` unanswered
    /// probes): how the worker lets go of producers, and of consumers that had no events coming, that vanished
    /// without closing their connections, and how one that connects to a proxy finds a dead proxy and connects
    /// again. (A consumer that vanishes while events are sent to it is `consumerTimeoutMilliseconds`'s.) 0 leaves
    /// the system's setting (Linux: no keepalive). Default: `10`.
    public var tcpKeepaliveSeconds: Int32 = 10
    /// Seconds between TCP keepalive probes (`tcpKeepaliveSeconds`).
    static let keepaliveProbeSeconds: Int32 = 2
    /// Unanswered TCP keepalive probes after which a connection is dropped (`tcpKeepaliveSeconds`).
    static let keepaliveProbes: Int32 = 5
    /// The longest wait, in seconds, before the worker connects again to an endpoint whose handshake failed for
    /// good: libzmq does not connect again after the peer refused the worker's key or broke the protocol (a peer of
    /// the wrong socket type), so the worker does, after 1 s, then twice as long after each failure up to this.
    /// A key the proxy authorizes later (its SIGHUP) is then taken without a restart. 0: never, as libzmq.
    /// Default: `30`.
    public var handshakeRetrySeconds: Int32 = 30
    /// Seconds between statistics events on the `$system` topic and in the log; 0 disables. Default: `10`.
    public var statsIntervalSeconds: Int = 10
    /// A file whose modification time the worker refreshes every second while its receive loop runs (for
    /// liveness probes); `nil` for none. Created at the start (with "ok") where it does not exist: a path the
    /// worker cannot write, or one that is no regular file, stops it there; a failure to touch it later is
    /// logged, as is its end. Default: `nil`.
    public var healthFile: String?
    /// A file the worker writes its sessions to when it stops gracefully, and reads them back from (then removes)
    /// when it starts: their numbering, options and learned gestures (`SessionSnapshot`), so that a restart or a
    /// rolling update loses only the strokes open at that moment. Sessions of buckets the worker no longer serves
    /// (another `--shard`) are left out; their new worker may adopt them (`adoptStatePaths`). `nil`: sessions end
    /// with the worker (their next message starts them afresh with `session_reset`). Through a symbolic link, the
    /// file is the link's target, and the link stays. Default: `nil`.
    public var stateFile: String?
    /// With a state file, how often the worker also writes a checkpoint there while it runs, in seconds: the
    /// sessions whose options, chosen gestures or learned gestures differ from a new session's, without their
    /// numbering. A worker that crashed brings them back from it (their next message gets `session_reset` with
    /// `restored: true`); what changed after the checkpoint is lost. 0: no checkpoints (a crash loses every
    /// session). Default: `30`.
    public var checkpointIntervalSeconds = 30
    /// Other workers' state files (or directories of them, searched one level deep) whose sessions of this worker's
    /// buckets it takes at its start, for a change of the shard count: a session whose bucket moved comes back with
    /// its options, chosen gestures and learned gestures, without its numbering (its next message gets
    /// `session_reset` with `restored: true`, as after a crash). Its own `stateFile` comes first; the files are
    /// read, never changed or removed. Paths that do not exist are passed over. Default: none.
    public var adoptStatePaths: [String] = []
    /// Files of `adoptStatePaths` last written longer ago than this, in seconds, are passed over: left by a worker
    /// that is gone, they would bring back what their sessions have changed since. The default is the default
    /// `idleTimeoutSeconds`: had their worker run on, it would have closed those sessions as idle. Default: `300`.
    public var adoptStateMaxAgeSeconds = 300

    /// Whether the worker writes checkpoints: it has a state file and a checkpoint interval above 0.
    public var writesCheckpoints: Bool { stateFile != nil && checkpointIntervalSeconds > 0 }
    /// Where an HTTP endpoint serves `/metrics` (Prometheus), `/healthz` and `/readyz`, as `HOST:PORT`; `nil` for none.
    /// Default: `nil`.
    public var metricsAddress: String?
    /// systemd's notification socket and watchdog, in a unit of `Type=notify`: the worker says when it is ready,
    /// reloading and stopping, and pings the watchdog while it receives. The command line takes it from the
    /// environment that systemd sets (`NOTIFY_SOCKET`, `WATCHDOG_USEC`, `WATCHDOG_PID`). Default: `nil`.
    public var systemd: SystemdNotifier?
    /// Log level. Default: `.info`.
    public var logLevel: Logger.Level = .info
    /// Log format. Default: `.text`.
    public var logFormat: Logger.Format = .text
    /// Checkmark detector tuning. Default: `CheckmarkConfiguration.default`.
    public var checkmark = CheckmarkConfiguration.default
    /// Whether a new session runs the checkmark detector, until an `options` message of its own says otherwise.
    /// The detector is about a quarter of the work per message, so a worker whose games never use checks saves it
    /// by starting sessions without it. Default: `true`.
    public var checkmarkByDefault = true
    /// Whether the checkmark detector judges each session's strokes turned back by the tilt its matches show
    /// (`TiltEstimate`): past 8° either way, once two matches of open shapes are in. The detector knows upright
    /// checks; tilted by 30°, 39–57% of the $1 logs' checks fired it as drawn and 98.7–100% followed, and tilted 20°
    /// counter-clockwise, 20% of the v's fired it as drawn and 2–3% followed (`stroke-tool tilt`). Default: `true`.
    public var checkmarkFollowsTilt = true
    /// Whether a session that follows its tilt (`checkmarkFollowsTilt`, or its own `followTilt` option) also has its
    /// strokes matched turned back by it: the library's templates see them as if drawn upright (a session's learned
    /// templates as drawn, by the same hand), and a match's `rotation` is still the stroke's turn from its template.
    /// Tilted by 30°, the built-in library recognized 97.67–98.54% of the $1 logs' strokes as drawn and 99.67%
    /// followed; by 45°, 76.62–79.08% and 99.46–99.50%; upright, 99.75% either way (`stroke-tool tilt`, session 49).
    /// Default: `true`.
    public var matchFollowsTilt = true
    /// How long a new session's gesture waits for its next stroke, in milliseconds (0 to 10,000), until an
    /// `options` message of its own says otherwise: with 0 every stroke is a gesture of its own; above, the
    /// strokes a session draws one after another are matched together, as one gesture of several strokes
    /// (Protocol/README.md §4.2). Default: `0`.
    public var multistrokeMilliseconds = 0
    /// The size, in the producers' coordinates, that a new session's stroke must reach on the longer side of its
    /// bounding box to be matched, until an `options` message of its own says otherwise (`minimumSize`): a smaller
    /// one (a tap, a finger's rest) ends with a `nomatch` (`too_small`), which a template scaled up from its noise
    /// could otherwise match. 0 matches every stroke. Default: `0` (the coordinates have no unit the worker knows).
    public var minimumStrokeSize = 0.0
    /// Template matcher tuning. Default: `RecognizerConfiguration.default`.
    public var recognizer = RecognizerConfiguration.default
    /// CURVE encryption (and client authentication) on the input and output endpoints; `nil` sends in the clear
    /// and admits any peer. Default: `nil`.
    public var security: TransportSecurity?
    /// The environment's `STROKE_WORKER_…` variables that name no option (a misspelt one: `STROKE_WORKER_LANE`),
    /// each with the nearest option's variable where one is close; the worker warns of them when it starts.
    /// Default: none.
    public var unknownEnvironmentVariables: [String] = []
    /// Options given that have no effect in this configuration, each said with why (`--checkpoint-interval has no
    /// effect without --state-file`); the worker warns of them when it starts. Default: none.
    public var inertOptions: [String] = []

    /// The defaults.
    public init() {}
}
