import Foundation
import ZeroMQ

/// The worker's and proxy's ZAP handler: admits the CURVE clients whose public keys `TransportSecurity` lists,
/// refuses the others, counts and logs the refusals (at most one warning a second, with the count since the last).
public struct ClientAuthenticator: Sendable {
    /// The keys and the admitted clients.
    public let security: TransportSecurity
    /// The context whose sockets it answers for.
    public let context: ZMQContext
    /// Where refusals are logged.
    public let logger: Logger
    /// Counts refused handshakes, when given.
    public let metrics: WorkerMetrics?

    /// Creates a handler; it runs when `run` is called.
    public init(security: TransportSecurity, context: ZMQContext, logger: Logger, metrics: WorkerMetrics?) {
        self.security = security
        self.context = context
        self.logger = logger
        self.metrics = metrics
    }

    /// Answers handshakes on the calling thread until `stopped()`; `ready` is called once it is bound.
    public func run(ready: () -> Void, stopped: () -> Bool) throws {
        var refused = 0
        var lastWarning: ContinuousClock.Instant?
        let clock = ContinuousClock()
        try ZMQAuthenticator.run(context: context, ready: ready, stopped: stopped) { request in
            let decision = security.decide(request)
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
