import Foundation
import StrokeProtocol
import StrokeRecognition
import ZeroMQ

extension WorkerConfiguration {
    /// One command-line option: its flag, environment variable, value name and help.
    struct Option {
        let flag: String
        let env: String
        let value: String
        let help: String
    }

    static let options: [Option] = [
        Option(
            flag: "input", env: "STROKE_WORKER_INPUT", value: "ENDPOINT",
            help: "where producers' messages come in (SUB), repeatable; bind:ADDR, connect:ADDR or ADDR (bind). "
                + "Default: bind:tcp://127.0.0.1:5555"),
        Option(
            flag: "output", env: "STROKE_WORKER_OUTPUT", value: "ENDPOINT",
            help: "where events go out (XPUB), repeatable; a consumer sending a message over 1 KiB (no subscription "
                + "is that long) is disconnected. Default: bind:tcp://127.0.0.1:5556"),
        Option(
            flag: "ipv6", env: "STROKE_WORKER_IPV6", value: "on|off",
            help: "whether host names in --input and --output resolve to IPv6 addresses too, and * binds IPv6 as "
                + "well as IPv4, for IPv6 and dual-stack networks; an IPv6 address in brackets (tcp://[::1]:5555) "
                + "works either way. Default: off"),
        Option(
            flag: "library", env: "STROKE_WORKER_LIBRARY", value: "FILE",
            help: "template library file to load besides the built-in \"default\", repeatable; SIGHUP reads the "
                + "files again (same library names; one read from a pipe is kept as read). Default: none"),
        Option(
            flag: "shard", env: "STROKE_WORKER_SHARD", value: "I/N",
            help: "serve shard I of N (sessions whose bucket mod N is I); I may be \"ordinal\": the trailing "
                + "number of the host name (a StatefulSet pod). Default: 0/1"),
        Option(
            flag: "lanes", env: "STROKE_WORKER_LANES", value: "K",
            help: "session threads (with K > 1, libzmq proxies fan input out and events in). Default: half the "
                + "cores, at least 1"),
        Option(
            flag: "recognition-thread", env: "STROKE_WORKER_RECOGNITION_THREAD", value: "on|off",
            help: "give each lane a publisher thread that recognizes finished strokes and publishes every event "
                + "in order (the lane keeps decoding, sessions and the checkmark detector). Default: off"),
        Option(
            flag: "recognition-offload", env: "STROKE_WORKER_RECOGNITION_OFFLOAD", value: "busy|always|off",
            help: "when a lane hands finished strokes to a helper thread that recognizes them while the lane goes "
                + "on: while the lane is saturated (90% busy over 10 ms), always, or never. Default: busy"),
        Option(
            flag: "checkmark", env: "STROKE_WORKER_CHECKMARK", value: "on|off",
            help: "whether sessions run the streaming checkmark detector until their own options message says "
                + "otherwise (off saves about a quarter of the work per message where no game uses checks). "
                + "Default: on"),
        Option(
            flag: "checkmark-config", env: "STROKE_WORKER_CHECKMARK_CONFIG", value: "FILE",
            help: "the checkmark detector's tuning: a JSON object with any of CheckmarkConfiguration's fields "
                + "(as stroke-tool eval --checkmark-config reads it; the others keep their defaults). "
                + "Default: the built-in tuning"),
        Option(
            flag: "checkmark-gesture", env: "STROKE_WORKER_CHECKMARK_GESTURE", value: "NAME",
            help: "the libraries' gesture the checkmark detector stands for: where it fired on a stroke, that "
                + "gesture is the match if it scored within --checkmark-margin of the best; where it ran and did "
                + "not fire, a best match of that gesture yields to a runner-up that close; \"\" turns this off. "
                + "Default: check"),
        Option(
            flag: "checkmark-margin", env: "STROKE_WORKER_CHECKMARK_MARGIN", value: "SCORE",
            help: "how close in score (0...1) the checkmark detector's choice must be to the best candidate to "
                + "become the match; 0 turns this off. Default: 0.04"),
        Option(
            flag: "checkmark-follow-tilt", env: "STROKE_WORKER_CHECKMARK_FOLLOW_TILT", value: "on|off",
            help: "whether the checkmark detector judges a session's strokes turned back by the tilt its matches "
                + "show (the mean rotation of its matches of open shapes, once two are in and past 8 degrees), so "
                + "that a player whose hand is tilted gets the checks an upright one does; off: sessions follow "
                + "their tilt only when they ask (options followTilt). Default: on"),
        Option(
            flag: "match-follow-tilt", env: "STROKE_WORKER_MATCH_FOLLOW_TILT", value: "on|off",
            help: "whether a session that follows its tilt also has its strokes matched turned back by it, as if "
                + "drawn upright (the session's learned templates see them as drawn); a match's rotation is still "
                + "the stroke's turn from its template. Default: on"),
        Option(
            flag: "choice-margin", env: "STROKE_WORKER_CHOICE_MARGIN", value: "SCORE|inf",
            help: "in a session that chose the gestures it may match (options gestures), how far above the best "
                + "chosen match a gesture outside the choice must score to answer nomatch not_chosen, naming it, "
                + "instead of the chosen one; each stroke of such a session is then also recognized among all "
                + "gestures; inf answers with a chosen match whenever one reaches the threshold. Default: 0.05"),
        Option(
            flag: "curve-secret-key", env: "STROKE_WORKER_CURVE_SECRET_KEY", value: "FILE",
            help: "encrypt the input and output endpoints with CURVE: FILE holds this worker's secret key (40 Z85 "
                + "characters, or a ZeroMQ certificate; stroke-tool keygen makes a pair); producers and consumers "
                + "connect as CURVE clients with its public key. Default: none (plain text, any peer)"),
        Option(
            flag: "curve-server-key", env: "STROKE_WORKER_CURVE_SERVER_KEY", value: "KEY|FILE",
            help: "with --curve-secret-key: handshake as a CURVE client of servers (proxies) with this public key "
                + "instead of being the server. Default: none (the worker is the server)"),
        Option(
            flag: "curve-authorized-keys", env: "STROKE_WORKER_CURVE_AUTHORIZED_KEYS", value: "FILE",
            help: "with --curve-secret-key: admit only clients whose public key is in FILE (one per line, # "
                + "comments; SIGHUP reads it again, and a producer connected with a key no longer listed is cut "
                + "at its next message, a consumer at once); others are refused at the handshake, logged and counted. "
                + "Default: any client that knows the worker's public key"),
        Option(
            flag: "max-points-per-stroke", env: "STROKE_WORKER_MAX_POINTS_PER_STROKE", value: "N",
            help: "points kept per stroke; beyond, it ends without a match. Default: 10000"),
        Option(
            flag: "multistroke", env: "STROKE_WORKER_MULTISTROKE", value: "MS",
            help: "how long a new session's gesture waits for its next stroke, until its own options message says "
                + "otherwise: 0 matches every stroke alone; above, strokes drawn one after another are matched "
                + "together as one gesture of several strokes (at most 10000). Default: 0"),
        Option(
            flag: "minimum-stroke-size", env: "STROKE_WORKER_MINIMUM_STROKE_SIZE", value: "SIZE",
            help: "in the producers' coordinates, how long the longer side of a stroke's bounding box must be for a "
                + "new session's stroke to be matched, until its own options message says otherwise (minimumSize): "
                + "a smaller one, a tap or a finger's rest, ends with nomatch too_small; 0 matches every stroke. "
                + "Default: 0"),
        Option(
            flag: "max-points-per-message", env: "STROKE_WORKER_MAX_POINTS_PER_MESSAGE", value: "N",
            help: "points per message. Default: 4096"),
        Option(
            flag: "max-open-strokes", env: "STROKE_WORKER_MAX_OPEN_STROKES", value: "N",
            help: "strokes open at once per session. Default: 16"),
        Option(
            flag: "max-session-templates", env: "STROKE_WORKER_MAX_SESSION_TEMPLATES", value: "N",
            help: "templates one session may learn (an end message with \"learn\"); 0 turns learning off. "
                + "Default: 32"),
        Option(
            flag: "max-learned-templates", env: "STROKE_WORKER_MAX_LEARNED_TEMPLATES", value: "N",
            help: "learned templates held over all sessions: about 2 KB each, 6 KB for a session's first. "
                + "Default: 50000"),
        Option(
            flag: "max-sessions", env: "STROKE_WORKER_MAX_SESSIONS", value: "N",
            help: "sessions held by the worker. Default: 1000000"),
        Option(
            flag: "max-message-bytes", env: "STROKE_WORKER_MAX_MESSAGE_BYTES", value: "N",
            help: "largest payload accepted; a peer sending more than 4x this is disconnected, as is one that sends "
                + "4x this and 4 MiB more without finishing a message (every frame flagged 'more'). Default: 1048576"),
        Option(
            flag: "max-subscription-bytes", env: "STROKE_WORKER_MAX_SUBSCRIPTION_BYTES", value: "N",
            help: "subscriptions one consumer connected to a bound --output may hold, each counted as its prefix's "
                + "bytes and 64; past them the connection is cut (libzmq keeps each in memory, 25-32 bytes a byte); "
                + "not counted where the worker connects (to a results proxy). 0: no limit. Default: 16777216"),
        Option(
            flag: "idle-timeout", env: "STROKE_WORKER_IDLE_TIMEOUT", value: "SECONDS",
            help: "drop sessions idle this long (a closed event with reason idle). Default: 300"),
        Option(
            flag: "input-hwm", env: "STROKE_WORKER_INPUT_HWM", value: "N",
            help: "received messages that may wait in the worker, per lane; beyond, libzmq stops reading and "
                + "the backlog waits in the network and the producer; 0: no limit, and the worker's memory grows with "
                + "any backlog. Default: 50000"),
        Option(
            flag: "hwm", env: "STROKE_WORKER_HWM", value: "N",
            help: "high-water mark of the output sockets, in messages; 0: no limit, and the worker's memory grows with "
                + "a slow consumer's backlog until --consumer-timeout cuts it. Default: 100000"),
        Option(
            flag: "slow-consumers", env: "STROKE_WORKER_SLOW_CONSUMERS", value: "drop|wait",
            help: "for a consumer --hwm events behind: drop, and it alone misses events (its eventSeq shows the "
                + "gap) while the others get every one; or wait up to --send-timeout, then drop the event for "
                + "every consumer of that session and count it (a consumer that stops reading then holds the "
                + "others back; the worker stays live meanwhile). Default: drop"),
        Option(
            flag: "send-timeout", env: "STROKE_WORKER_SEND_TIMEOUT", value: "MS",
            help: "with --slow-consumers wait, how long a publish waits for a slow consumer before the event is "
                + "dropped and counted. Default: 100"),
        Option(
            flag: "linger", env: "STROKE_WORKER_LINGER", value: "MS",
            help: "how long unsent events are kept at shutdown; -1: until they are sent (or --consumer-timeout cuts "
                + "their consumer), and with --slow-consumers wait, sends wait for a slow consumer as before the "
                + "stop. Default: 2000"),
        Option(
            flag: "heartbeat", env: "STROKE_WORKER_HEARTBEAT", value: "MS",
            help: "ZMTP heartbeat interval on the input, 0 to disable. A heartbeat that reaches a producer which "
                + "has just closed its connection makes its system reset it, losing what the worker had not read "
                + "yet: --tcp-keepalive finds vanished producers without that. Default: 0"),
        Option(
            flag: "consumer-timeout", env: "STROKE_WORKER_CONSUMER_TIMEOUT", value: "MS",
            help: "a consumer that takes none of the events sent to it this long (hung, not reading, or gone with "
                + "its machine) is disconnected and its queued events freed; its libzmq connects again if it can. "
                + "0 leaves the system's limit (about 15 minutes). Default: 10000"),
        Option(
            flag: "tcp-keepalive", env: "STROKE_WORKER_TCP_KEEPALIVE", value: "SECONDS",
            help: "TCP keepalive on the input and output: a connection on which nothing arrived this long is probed "
                + "every 2 s and dropped after 5 unanswered probes; 0 leaves the system's setting. Default: 10"),
        Option(
            flag: "handshake-retry", env: "STROKE_WORKER_HANDSHAKE_RETRY", value: "SECONDS",
            help: "libzmq does not connect again to an endpoint that refused the worker's key or broke the "
                + "protocol; the worker does, after 1 s, then twice as long after each failure up to this, so that "
                + "a key authorized later is taken without a restart; 0: never. Default: 30"),
        Option(
            flag: "stats-interval", env: "STROKE_WORKER_STATS_INTERVAL", value: "SECONDS",
            help: "statistics on the $system topic and in the log, 0 to disable. Default: 10"),
        Option(
            flag: "health-file", env: "STROKE_WORKER_HEALTH_FILE", value: "PATH",
            help: "touched every second while the receive loop runs, for liveness probes (created with \"ok\" at the "
                + "start, where a path the worker cannot write stops it; a failure later is logged). Default: none"),
        Option(
            flag: "state-file", env: "STROKE_WORKER_STATE_FILE", value: "PATH",
            help: "keep the sessions (numbering, options, learned gestures) across a restart: written there at a "
                + "graceful stop, read back and removed at the start. Default: none"),
        Option(
            flag: "checkpoint-interval", env: "STROKE_WORKER_CHECKPOINT_INTERVAL", value: "SECONDS",
            help: "with --state-file, write the sessions' options and learned gestures there this often while "
                + "running, for a worker that crashes; 0 to disable. Default: 30"),
        Option(
            flag: "adopt-state", env: "STROKE_WORKER_ADOPT_STATE", value: "PATH",
            help: "other workers' state files, or directories of them, repeatable: at the start, take their "
                + "sessions of this worker's buckets (options, learned gestures; not their numbering), for a "
                + "change of N in --shard. Read only. Default: none"),
        Option(
            flag: "adopt-state-max-age", env: "STROKE_WORKER_ADOPT_STATE_MAX_AGE", value: "SECONDS",
            help: "pass over --adopt-state files last written longer ago than this. Default: 300"),
        Option(
            flag: "metrics", env: "STROKE_WORKER_METRICS", value: "HOST:PORT",
            help: "serve GET /metrics (Prometheus text format), /healthz (200 while the receive loop runs, "
                + "503 otherwise) and /readyz (200 when, besides, every endpoint the worker connects to is "
                + "connected, 503 naming those that are not) over HTTP there, e.g. 0.0.0.0:9100. Default: none"),
        Option(
            flag: "log-level", env: "STROKE_WORKER_LOG_LEVEL", value: "LEVEL",
            help: "debug, info, warning or error. Default: info"),
        Option(
            flag: "log-format", env: "STROKE_WORKER_LOG_FORMAT", value: "FORMAT", help: "text or json. Default: text"),
    ]

    /// The `--help` text.
    public static var help: String {
        var lines = [
            "stroke-worker: recognizes touch gestures in strokes streamed over ZeroMQ",
            "",
            "USAGE: stroke-worker [options]",
            "       stroke-worker proxy --frontend ENDPOINT --backend ENDPOINT [--control ENDPOINT]",
            "",
            "With no options it listens on loopback with the built-in template library.",
            "Every option can also be set by its environment variable; the command line wins.",
            "",
            "OPTIONS",
        ]
        for option in options {
            lines.append("  --\(option.flag) \(option.value)")
            lines.append("      [\(option.env)] \(option.help)")
        }
        lines.append("  --help      this text")
        lines.append("  --version   print the version and libzmq's")
        lines.append("")
        lines.append(
            "Environment: STROKE_KERNELS=portable|wide|avx512 runs a narrower build of the recognition kernels")
        lines.append(
            "than the widest this CPU runs (all give the same results; the start-up log names the one in use).")
        lines.append(
            "Under systemd (Type=notify): NOTIFY_SOCKET gets READY=1, RELOADING=1 and STOPPING=1, and with")
        lines.append("WatchdogSec= (WATCHDOG_USEC) a WATCHDOG=1 ping at half the interval while the lanes receive.")
        lines.append("Signals: SIGINT or SIGTERM stop intake, finish what was received, flush events, exit 0;")
        lines.append("SIGHUP reads the --library and --curve-authorized-keys files again.")
        lines.append("Exit status: 0 after such a stop; 2 for a command line or environment it cannot read (an")
        lines.append("option unknown, unreadable or out of range, a CURVE key file missing or holding no key); 1")
        lines.append("when the worker cannot run as configured (two endpoints on one address, a library, checkmark")
        lines.append("or state file it cannot read or that is not valid, an address another process holds).")
        return lines.joined(separator: "\n")
    }

    /// Reads the configuration from command-line arguments and the environment.
    ///
    /// - Throws: `CommandLineArguments.Failure` naming the bad option, or `RecognitionError` for a library or
    ///   checkmark configuration file.
    public init(arguments: [String], environment: [String: String]) throws {
        self.init()
        let args = try CommandLineArguments(
            arguments, flagNames: ["help", "version"], known: Set(Self.options.map(\.flag)), environment: environment)
        guard args.positional.isEmpty else {
            throw CommandLineArguments.Failure(description: "unexpected argument \"\(args.positional[0])\"")
        }
        unknownEnvironmentVariables = CommandLineArguments.unknownVariables(
            prefix: "STROKE_WORKER_", known: Self.options.map(\.env), in: environment)
        do {
            func env(_ flag: String) -> String { Self.options.first { $0.flag == flag }!.env }
            for limit in Self.limits {
                let value = try args.parsed(limit.flag, env: env(limit.flag), default: limit.value(self))
                guard limit.range.contains(value) else {
                    throw CommandLineArguments.Failure(
                        description: "--\(limit.flag) \(value) is outside \(limit.range)")
                }
                limit.assign(&self, value)
            }
            let inputs = args.values("input", env: env("input"))
            if !inputs.isEmpty { self.inputs = inputs.map(Endpoint.init(parsing:)) }
            let outputs = args.values("output", env: env("output"))
            if !outputs.isEmpty { self.outputs = outputs.map(Endpoint.init(parsing:)) }
            for endpoint in self.inputs { try endpoint.check(flag: "input") }
            for endpoint in self.outputs { try endpoint.check(flag: "output") }
            if let ipv6 = try Self.switchValue("ipv6", args.value("ipv6", env: env("ipv6"))) {
                for index in self.inputs.indices { self.inputs[index].ipv6 = ipv6 }
                for index in self.outputs.indices { self.outputs[index].ipv6 = ipv6 }
            }
            libraryFiles = args.values("library", env: env("library"))
            libraries = try libraryFiles.map { try TemplateLibrary(contentsOf: $0) }
            if let clash = Self.libraryNameClash(files: libraryFiles, libraries: libraries) {
                throw RecognitionError(.invalidConfiguration, clash)
            }
            if let shard = args.value("shard", env: env("shard")) {
                self.shard = try Self.parseShard(
                    shard, hostname: environment["HOSTNAME"] ?? ProcessInfo.processInfo.hostName)
            }
            if let value = try Self.switchValue(
                "recognition-thread", args.value("recognition-thread", env: env("recognition-thread")))
            {
                recognitionThread = value
            }
            if let value = try Self.switchValue("checkmark", args.value("checkmark", env: env("checkmark"))) {
                checkmarkByDefault = value
            }
            if let value = try Self.switchValue(
                "checkmark-follow-tilt", args.value("checkmark-follow-tilt", env: env("checkmark-follow-tilt")))
            {
                checkmarkFollowsTilt = value
            }
            if let value = try Self.switchValue(
                "match-follow-tilt", args.value("match-follow-tilt", env: env("match-follow-tilt")))
            {
                matchFollowsTilt = value
            }
            if let path = args.value("checkmark-config", env: env("checkmark-config")) {
                checkmark = try CheckmarkConfiguration(contentsOf: path)
            }
            if let name = args.value("checkmark-gesture", env: env("checkmark-gesture")) {
                recognizer.checkmarkGesture = name
            }
            if let text = args.value("checkmark-margin", env: env("checkmark-margin")) {
                recognizer.checkmarkMargin = try Self.checkmarkMargin(text)
            }
            if let text = args.value("minimum-stroke-size", env: env("minimum-stroke-size")) {
                guard let size = Double(text), size.isFinite, size >= 0 else {
                    throw CommandLineArguments.Failure(
                        description: "--minimum-stroke-size: a finite size of at least 0, got \"\(text)\"")
                }
                minimumStrokeSize = size
            }
            if let text = args.value("choice-margin", env: env("choice-margin")) {
                recognizer.choiceMargin = try Self.choiceMargin(text)
            }
            if let value = args.value("recognition-offload", env: env("recognition-offload")) {
                guard let offload = RecognitionOffload(rawValue: value) else {
                    throw CommandLineArguments.Failure(
                        description: "--recognition-offload: busy, always or off, got \"\(value)\"")
                }
                recognitionOffload = offload
            }
            if let value = args.value("slow-consumers", env: env("slow-consumers")) {
                guard let policy = SlowConsumers(rawValue: value) else {
                    throw CommandLineArguments.Failure(description: "--slow-consumers: drop or wait, got \"\(value)\"")
                }
                slowConsumers = policy
            }
            security = try TransportSecurity.load(
                secretKeyFile: args.value("curve-secret-key", env: env("curve-secret-key")),
                serverKey: args.value("curve-server-key", env: env("curve-server-key")),
                authorizedKeysFile: args.value("curve-authorized-keys", env: env("curve-authorized-keys")))
            healthFile = args.value("health-file", env: env("health-file"))
            stateFile = args.value("state-file", env: env("state-file"))
            adoptStatePaths = args.values("adopt-state", env: env("adopt-state"))
            metricsAddress = args.value("metrics", env: env("metrics"))
            systemd = SystemdNotifier.fromEnvironment(environment)
            if let level = args.value("log-level", env: env("log-level")) {
                guard let parsed = Logger.Level(name: level) else {
                    throw CommandLineArguments.Failure(description: "--log-level: debug, info, warning or error")
                }
                logLevel = parsed
            }
            if let format = args.value("log-format", env: env("log-format")) {
                guard let parsed = Logger.Format(rawValue: format) else {
                    throw CommandLineArguments.Failure(description: "--log-format: text or json")
                }
                logFormat = parsed
            }
            inertOptions = inertOptions { args.value($0, env: env($0)) != nil }
            // A --metrics address that does not read is a usage error here (status 2), as the proxy's is;
            // `validate()` finds it too in a configuration built in code. Before session 86 it ended the worker with 1.
            if let metricsAddress { _ = try MetricsServer.parse(metricsAddress) }
        } catch let failure as CommandLineArguments.Failure {
            throw args.naming(failure) { flag in Self.options.first { $0.flag == flag }?.env }
        }
    }

    /// An on/off option's value (`on`, `true`, `1`; `off`, `false`, `0`), or nil when it is not set.
    ///
    /// - Throws: `CommandLineArguments.Failure` naming `flag` for any other text.
    public static func switchValue(_ flag: String, _ text: String?) throws -> Bool? {
        switch text {
        case nil: return nil
        case "on", "true", "1": return true
        case "off", "false", "0": return false
        case let other?: throw CommandLineArguments.Failure(description: "--\(flag): on or off, got \"\(other)\"")
        }
    }

    /// Parses `I/N`, where `I` may be `ordinal` (the trailing number of `hostname`).
    static func parseShard(_ text: String, hostname: String) throws -> (index: Int, count: Int) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let count = Int(parts[1]), (1...ShardKey.bucketCount).contains(count) else {
            throw CommandLineArguments.Failure(description: "--shard must be I/N with N in 1...4096, got \"\(text)\"")
        }
        var index: Int?
        if parts[0] == "ordinal" {
            index = Int(String(hostname.reversed().prefix { $0.isNumber }.reversed()))
            guard index != nil else {
                throw CommandLineArguments.Failure(
                    description: "--shard ordinal/N: host name \"\(hostname)\" ends in no number")
            }
        } else {
            index = Int(parts[0])
        }
        guard let index, (0..<count).contains(index) else {
            throw CommandLineArguments.Failure(description: "--shard \(text): I must be in 0..<N")
        }
        return (index, count)
    }
}

extension WorkerConfiguration.Endpoint {
    /// Checks the address as `ZMQSocket.checkEndpoint` does before libzmq sees it (a TCP port outside 1...65535,
    /// which libzmq would take modulo 65,536, or no transport), and refuses `inproc://`, which only the process's
    /// own threads reach (and whose names the worker and the proxy use inside); the failure names the option,
    /// `--flag`.
    public func check(flag: String) throws(CommandLineArguments.Failure) {
        do {
            try ZMQSocket.checkEndpoint(address, binding: bind)
        } catch {
            throw CommandLineArguments.Failure(description: "--\(flag) \(self): \(error.message)")
        }
        if address.hasPrefix("inproc://") {
            throw CommandLineArguments.Failure(
                description: "--\(flag) \(self): inproc:// reaches only this process's own threads, so no other "
                    + "process could connect; use tcp:// or ipc://")
        }
    }
}
