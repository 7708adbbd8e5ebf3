import ZeroMQ

/// What the worker makes of its sockets' connection events: how many connections each side holds, what went wrong
/// how often, and the log records an operator needs, as a state machine fed one event at a time by
/// `ConnectionWatch`'s thread (so that its rules are tested without sockets).
///
/// Endpoints the worker connects to (`connect:`) are known from the start (`expect`), or told from bound ones by
/// their events (only they are connected, delayed or retried). For those, an outage is logged when it starts (the
/// first failed attempt, or a connection lost), reminded every `reminder` while it lasts, and its end logged with its
/// length and attempts; a refused key or a protocol error, after which libzmq does not connect again, is an error,
/// and the tracker schedules a new connection after a back-off (`takeDueRetries`) that `ConnectionWatch` asks the
/// socket's thread to make; a connection that ends before its handshake with no handshake event (a peer of the wrong
/// socket type, which libzmq gives up as silently) is a warning, with the same back-off.
/// Bound endpoints log only failures to accept a connection (out of files, most often), at most once per `reminder`:
/// peers come and go there in numbers, and a probe that opens and closes a TCP connection fails a handshake each time.
struct ConnectionTracker {
    /// A side of the worker or of a proxy.
    typealias Role = ConnectionWatch.Role

    /// A log record the event calls for.
    struct Record: Equatable {
        var level: Logger.Level
        var message: String
        var metadata: [String: String]
    }

    /// Counts, by role where it matters: what the metrics show.
    struct Counts: Equatable {
        /// Connections open now (accepted or made, and not ended).
        var connections: [Role: Int] = [:]
        /// Failed attempts to connect to an endpoint (each retry).
        var connectRetries = 0
        /// Connections that ended, whoever ended them.
        var disconnections = 0
        /// Handshakes that failed (a peer that is not ZMTP or of the wrong socket type, a CURVE key that does not
        /// fit, a refused key), and connections that ended before their handshake without a handshake event.
        var handshakesFailed = 0
        /// Connections a bound endpoint could not take (`accept` failed: out of files, most often).
        var acceptFailures = 0
        /// Producers' connections cut for sending more than a limit without finishing a message
        /// (`UnfinishedMessageTracker`).
        var unfinishedMessagesCut = 0
    }

    /// An endpoint the worker connects to: connected (its handshake done), or not, since when and after how many
    /// attempts.
    private enum Link {
        case up
        case down(Outage)
    }

    /// An outage of an endpoint the worker connects to.
    private struct Outage {
        var since: ContinuousClock.Instant
        var attempts = 0
        /// When it was last logged.
        var logged: ContinuousClock.Instant
        /// Whether the endpoint had been connected before (a connection lost, not a first connection).
        var lost: Bool
        /// Whether a connection was made and its handshake has neither succeeded nor failed yet.
        var handshaking = false
    }

    /// How often a lasting outage, and repeated failures (handshakes, accepts), are logged again.
    let reminder: Duration
    /// The longest wait before connecting again to an endpoint whose handshake failed for good; nil: never.
    let retryLimit: Duration?
    private(set) var counts = Counts()

    /// Counts a connection cut for a message it never finished (`UnfinishedMessageTracker`).
    mutating func countUnfinishedMessageCut() {
        counts.unfinishedMessagesCut += 1
    }
    /// Endpoints the worker connects to, by role and address.
    private var links: [String: Link] = [:]
    /// Failures logged at most once per `reminder`, by kind, role and endpoint: when last logged, and how many
    /// were not logged since.
    private var quieted: [String: (at: ContinuousClock.Instant, since: Int)] = [:]
    /// Endpoints given up by libzmq that are to be connected again, by role and address: when, and as what.
    private var retries: [String: (due: ContinuousClock.Instant, role: Role, endpoint: String)] = [:]
    /// The last back-off of each endpoint given up since its last handshake, by role and address.
    private var backoffs: [String: Duration] = [:]

    /// The first wait before connecting again to an endpoint libzmq gave up, doubled at each failure after it.
    static let firstRetry = Duration.seconds(1)

    /// Creates a tracker that logs a lasting outage again every `reminder` (default: 60 s) and connects again to an
    /// endpoint libzmq gave up after a back-off from `firstRetry` doubling up to `retryLimit` (nil: never; default:
    /// 30 s).
    init(reminder: Duration = .seconds(60), retryLimit: Duration? = .seconds(30)) {
        self.reminder = reminder
        self.retryLimit = retryLimit
    }

    /// Endpoints the worker connects to that have no working connection now (none made yet, or lost), as
    /// `role endpoint`, sorted: what `/readyz` waits for.
    var unconnected: [String] {
        links.compactMap { key, link in
            if case .down = link { return key }
            return nil
        }.sorted()
    }

    /// How `unconnected` and the tracker's own tables name an endpoint of a role: `input tcp://…`.
    static func key(_ role: Role, _ endpoint: String) -> String { "\(role.rawValue) \(endpoint)" }

    // MARK: - Transitions

    /// Notes that the worker connects to `endpoint` as `role`, before any of its events: it counts as not
    /// connected until its first handshake.
    mutating func expect(_ endpoint: String, role: Role, at now: ContinuousClock.Instant) {
        let key = Self.key(role, endpoint)
        if links[key] == nil { links[key] = .down(Outage(since: now, logged: now, lost: false)) }
    }

    /// The endpoints given up by libzmq whose back-off has ended by `now`, to be connected again, in order of role
    /// and address; each is returned once per failure.
    mutating func takeDueRetries(at now: ContinuousClock.Instant) -> [(role: Role, endpoint: String)] {
        let due = retries.filter { $0.value.due <= now }.sorted { $0.key < $1.key }
        for (key, _) in due {
            retries[key] = nil
            // An attempt of the outage, as a retry of libzmq's is: the record of the connection made counts it.
            if case .down(var outage) = links[key] {
                outage.attempts += 1
                links[key] = .down(outage)
            }
        }
        return due.map { ($0.value.role, $0.value.endpoint) }
    }

    /// Takes one event of a `role` socket, at `now`; returns the record to log, if any.
    mutating func handle(_ event: ZMQSocketMonitor.Event, role: Role, at now: ContinuousClock.Instant) -> Record? {
        let key = Self.key(role, event.endpoint)
        var fields = ["endpoint": event.endpoint]
        switch event.kind {
        case .connectDelayed:
            if links[key] == nil { links[key] = .down(Outage(since: now, logged: now, lost: false)) }
        case .connected, .accepted:
            counts.connections[role, default: 0] += 1
            if event.kind == .connected, links[key] == nil {
                links[key] = .down(Outage(since: now, logged: now, lost: false))
            }
            if event.kind == .connected, case .down(var outage) = links[key] {
                outage.handshaking = true
                links[key] = .down(outage)
            }
        case .connectRetried:
            counts.connectRetries += 1
            var outage = Outage(since: now, logged: now, lost: false)
            if case .down(let current) = links[key] { outage = current }
            outage.attempts += 1
            defer { links[key] = .down(outage) }
            if outage.attempts == 1, !outage.lost {
                fields["retryMilliseconds"] = "\(event.value)"
                return Record(level: .warning, message: "\(role) cannot connect yet; trying again", metadata: fields)
            }
            guard now - outage.logged >= reminder else { return nil }
            outage.logged = now
            fields["seconds"] = (now - outage.since).secondsText
            fields["attempts"] = "\(outage.attempts)"
            return Record(level: .warning, message: "\(role) still not connected", metadata: fields)
        case .handshakeSucceeded:
            backoffs[key] = nil
            guard case .down(let outage) = links[key] else { return nil }
            links[key] = .up
            if outage.attempts > 0 || outage.lost {
                fields["afterSeconds"] = (now - outage.since).secondsText
                fields["attempts"] = "\(outage.attempts)"
            }
            return Record(level: .info, message: "\(role) connected", metadata: fields)
        case .disconnected:
            counts.disconnections += 1
            counts.connections[role] = max(0, counts.connections[role, default: 0] - 1)
            if case .down(var outage) = links[key], outage.handshaking {
                outage.handshaking = false
                links[key] = .down(outage)
                return endedBeforeHandshake(key, role: role, endpoint: event.endpoint, fields: fields, at: now)
            }
            guard case .up = links[key] else { return nil }
            links[key] = .down(Outage(since: now, logged: now, lost: true))
            return Record(level: .warning, message: "\(role) connection lost; connecting again", metadata: fields)
        case let kind where kind.isHandshakeFailure:
            counts.handshakesFailed += 1
            guard case .down(var outage) = links[key] else { return nil }
            outage.handshaking = false
            links[key] = .down(outage)
            fields["reason"] = Self.reason(event)
            if kind != .handshakeFailedNoDetail {
                // libzmq ends such a connection as a protocol error, and a session that ends so does not connect
                // again (`session_base_t::engine_error`): the endpoint stays unconnected until it is connected anew.
                guard let retryLimit else {
                    fields["action"] = "fix the key or the endpoint, then restart: libzmq does not connect to it again"
                    return Record(
                        level: .error, message: "\(role) handshake failed; not connecting again", metadata: fields)
                }
                let backoff = scheduleRetry(key, role: role, endpoint: event.endpoint, limit: retryLimit, at: now)
                guard let unlogged = quiet("given up \(key)", at: now) else { return nil }
                if unlogged > 0 { fields["failuresNotLogged"] = "\(unlogged)" }
                fields["retrySeconds"] = backoff.secondsText
                fields["action"] =
                    "fix the key or the endpoint; it is connected again after retrySeconds, and after each failure "
                    + "twice as long up to \(retryLimit.secondsText) s"
                return Record(
                    level: .error, message: "\(role) handshake failed; connecting again later", metadata: fields)
            }
            guard let unlogged = quiet("handshake \(key)", at: now) else { return nil }
            if unlogged > 0 { fields["failuresNotLogged"] = "\(unlogged)" }
            return Record(level: .warning, message: "\(role) handshake failed", metadata: fields)
        case .acceptFailed:
            counts.acceptFailures += 1
            guard let unlogged = quiet("accept \(key)", at: now) else { return nil }
            fields["error"] = ZMQError(Int32(bitPattern: event.value), "accept").message
            if unlogged > 0 { fields["failuresNotLogged"] = "\(unlogged)" }
            return Record(level: .warning, message: "\(role) could not accept a connection", metadata: fields)
        default:
            break
        }
        return nil
    }

    /// A connection to an endpoint the worker connects to ended before its handshake, and libzmq said nothing of
    /// the handshake: what a peer of the wrong socket type makes it do (it gives the endpoint up for good, without
    /// a retry or a handshake event: measured with libzmq 4.3.4 and 4.3.5), or a peer that closed the connection
    /// during the greeting. Counted as a failed handshake, logged at most once per `reminder`, and connected again
    /// after a back-off, as a refused key is.
    private mutating func endedBeforeHandshake(
        _ key: String, role: Role, endpoint: String, fields: [String: String], at now: ContinuousClock.Instant
    ) -> Record? {
        counts.handshakesFailed += 1
        var fields = fields
        fields["reason"] =
            "the peer ended the connection before the handshake: a socket of the wrong type (\(role) needs "
            + "\(role.peers)), or not ZeroMQ"
        let message: String
        if let retryLimit {
            let backoff = scheduleRetry(key, role: role, endpoint: endpoint, limit: retryLimit, at: now)
            fields["retrySeconds"] = backoff.secondsText
            message = "\(role) connection ended before its handshake; connecting again later"
        } else {
            message = "\(role) connection ended before its handshake"
        }
        guard let unlogged = quiet("before handshake \(key)", at: now) else { return nil }
        if unlogged > 0 { fields["failuresNotLogged"] = "\(unlogged)" }
        return Record(level: .warning, message: message, metadata: fields)
    }

    /// Schedules a new connection to `endpoint` after the next back-off (`firstRetry`, then twice the last up to
    /// `limit`), and returns it.
    private mutating func scheduleRetry(
        _ key: String, role: Role, endpoint: String, limit: Duration, at now: ContinuousClock.Instant
    ) -> Duration {
        let backoff = min(limit, backoffs[key].map { $0 * 2 } ?? Self.firstRetry)
        backoffs[key] = backoff
        retries[key] = (now + backoff, role, endpoint)
        return backoff
    }

    /// Whether a failure of kind `key` is logged now: `nil` when one was within `reminder` (it is counted),
    /// else how many were not logged since the last.
    private mutating func quiet(_ key: String, at now: ContinuousClock.Instant) -> Int? {
        if let last = quieted[key], now - last.at < reminder {
            quieted[key] = (last.at, last.since + 1)
            return nil
        }
        let unlogged = quieted[key]?.since ?? 0
        quieted[key] = (now, 0)
        return unlogged
    }

    /// Why a handshake failed, in words.
    static func reason(_ event: ZMQSocketMonitor.Event) -> String {
        switch event.kind {
        case .handshakeFailedAuthentication:
            return "the peer refused this side's key (ZAP status \(event.value))"
        case .handshakeFailedProtocol:
            return "protocol error \(event.value) (a peer that is not ZMTP, or a CURVE key that does not fit)"
        default:
            let error = ZMQError(Int32(bitPattern: event.value), "handshake").message
            return "the connection ended during the handshake (\(error)): with CURVE, a server key that does not fit"
                + " the peer's, or no CURVE on one side"
        }
    }
}

extension Duration {
    /// Whole and tenth seconds, as log fields show them (`12.3`).
    var secondsText: String {
        let tenths = Int((self / .milliseconds(100)).rounded(.down))
        return "\(tenths / 10).\(tenths % 10)"
    }
}
