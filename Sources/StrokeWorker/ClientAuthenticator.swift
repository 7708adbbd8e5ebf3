import Foundation
import Synchronization
import ZeroMQ

/// The worker's and proxy's ZAP handler: admits the CURVE clients whose public keys `TransportSecurity` lists,
/// refuses the others, counts and logs the refusals (at most one warning a second, with the count since the last).
/// The list can be read again from its file while the handler runs (`reload()`, on SIGHUP).
public final class ClientAuthenticator: Sendable {
    /// The keys and the admitted clients as first read.
    public let security: TransportSecurity
    /// The context whose sockets it answers for.
    public let context: ZMQContext
    /// Where refusals and reloads are logged.
    public let logger: Logger
    /// Counts refused handshakes, when given.
    public let metrics: WorkerMetrics?
    /// The admitted client keys now (nil: any client).
    private let authorized: Mutex<Set<[UInt8]>?>
    /// How many reloads have taken keys away: connections made before the last of them may carry a key that is
    /// no longer admitted (`ConnectionVetting` checks them). 0 until a key is revoked.
    private let revocationCount = Atomic<Int>(0)
    /// Set once `run` has bound the handler, and once it has returned.
    private let bound = Atomic<Bool>(false)
    private let ended = Atomic<Bool>(false)

    /// Creates a handler; it runs when `run` is called.
    public init(security: TransportSecurity, context: ZMQContext, logger: Logger, metrics: WorkerMetrics?) {
        self.security = security
        self.context = context
        self.logger = logger
        self.metrics = metrics
        authorized = Mutex(security.authorizedClients)
    }

    /// A handler when `security` admits listed clients only; nil otherwise (libzmq then admits any CURVE client
    /// that knows the server's key, with no handler).
    public static func forListedClients(
        _ security: TransportSecurity?, context: ZMQContext, logger: Logger, metrics: WorkerMetrics?
    ) -> ClientAuthenticator? {
        guard let security, security.authorizedClients != nil else { return nil }
        return ClientAuthenticator(security: security, context: context, logger: logger, metrics: metrics)
    }

    /// Runs the handler on a thread of its own in `group` until `stopped()`, and returns once it is bound, so that
    /// sockets started after it admit nobody unchecked. If it fails (another handler holds the context's ZAP
    /// endpoint), it returns at once, calls `onFailure` and ends its task with the error.
    public func start(
        in group: inout ThrowingDiscardingTaskGroup<any Error>, threadName: String,
        stopped: @escaping @Sendable () -> Bool, onFailure: @escaping @Sendable (any Error) -> Void = { _ in }
    ) async {
        group.addTask {
            defer { self.ended.store(true, ordering: .releasing) }
            do {
                try await ThreadRunner.run(name: threadName) {
                    try self.run(ready: { self.bound.store(true, ordering: .releasing) }, stopped: stopped)
                }
            } catch {
                onFailure(error)
                throw error
            }
        }
        while !bound.load(ordering: .acquiring) && !ended.load(ordering: .acquiring) {
            try? await Task.sleep(for: .milliseconds(1))
        }
    }

    /// How many client keys are admitted now (nil: any client).
    public var authorizedCount: Int? { authorized.withLock { $0?.count } }

    /// How many reloads have taken a key away so far: one atomic load, for the lanes to read once per poll.
    public var revocations: Int { revocationCount.load(ordering: .acquiring) }

    /// Whether a connection whose `User-Id` is `userID` (the Z85 text of its public key, as `TransportSecurity`
    /// admits clients) would be admitted now.
    public func admits(userID: String) -> Bool {
        guard let key = ZMQCurveKeyPair.decode(userID) else { return false }
        return authorized.withLock { $0?.contains(key) ?? true }
    }

    /// Reads the authorized keys file again and admits exactly its keys from the next handshake on. When a key
    /// was taken away, `revocations` grows: the lanes then cut the connections already made with it, at the next
    /// message each sends (`ConnectionVetting`). A file that cannot be read or has a bad line changes nothing.
    ///
    /// - Returns: whether the list was replaced (the outcome is logged either way).
    @discardableResult
    public func reload() -> Bool {
        do {
            let keys = try security.reloadAuthorizedClients()
            let revoked = authorized.withLock { old in
                defer { old = keys }
                return old.map { $0.subtracting(keys).count } ?? 0
            }
            if revoked > 0 { revocationCount.add(1, ordering: .releasing) }
            logger.info("authorized client keys reloaded", ["keys": "\(keys.count)", "revoked": "\(revoked)"])
            return true
        } catch {
            logger.error("authorized client keys not reloaded, the previous ones stay: \(error)")
            return false
        }
    }

    /// Answers handshakes on the calling thread until `stopped()`; `ready` is called once it is bound.
    public func run(ready: () -> Void, stopped: () -> Bool) throws {
        var refused = 0
        var lastWarning: ContinuousClock.Instant?
        let clock = ContinuousClock()
        try ZMQAuthenticator.run(context: context, ready: ready, stopped: stopped) { request in
            let decision = authorized.withLock { TransportSecurity.decide(request, authorized: $0) }
            guard case .deny(let reason) = decision else { return decision }
            metrics?.handshakesRefused.add(1, ordering: .relaxed)
            refused += 1
            if lastWarning.map({ clock.now - $0 >= .seconds(1) }) ?? true {
                lastWarning = clock.now
                let key = request.credentials.first.flatMap { $0.count == 32 ? ZMQCurveKeyPair.encode($0) : nil }
                logger.warning(
                    "client refused",
                    [
                        "address": request.address, "mechanism": request.mechanism, "reason": reason,
                        "key": key ?? "none", "refusedSinceLastWarning": "\(refused)",
                    ])
                refused = 0
            }
            return decision
        }
    }
}
