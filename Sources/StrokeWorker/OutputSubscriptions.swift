import ZeroMQ

/// What the owner of an output (XPUB) socket reads from it: the consumers' subscriptions, logged at debug level,
/// counted per connection against `--max-subscription-bytes` (`SubscriptionLedger`), and, when clients' keys are
/// checked, noted for cutting the consumers whose key is revoked later (`SubscriberVetting`).
///
/// Owned by the thread that owns the socket: the lane, the publisher thread or the output forwarder.
struct OutputSubscriptions {
    /// The output socket.
    let socket: ZMQSocket
    let logger: Logger
    private let message = ZMQMessage()
    private var vetting: SubscriberVetting?
    private var ledger: SubscriptionLedger?
    private let metrics: WorkerMetrics?

    /// Reads `socket`'s subscriptions; with `authenticator` (clients' keys listed), notes each consumer's key; with
    /// a `limit` above 0, cuts a consumer's connection whose subscriptions come to more than `limit` bytes, counted
    /// in `metrics.subscribersCut`. Either makes the socket pass every consumer's subscriptions and unsubscriptions
    /// up (`ZMQ_XPUB_VERBOSER`), not only the first of each prefix and the last, so that each connection is seen.
    init(
        socket: ZMQSocket, authenticator: ClientAuthenticator?, limit: Int, metrics: WorkerMetrics?, logger: Logger
    ) throws(ZMQError) {
        self.socket = socket
        self.logger = logger
        self.metrics = metrics
        vetting = authenticator.map { SubscriberVetting(authenticator: $0) }
        ledger = limit > 0 ? SubscriptionLedger(limit: limit) : nil
        if vetting != nil || ledger != nil { try socket.setVerboser(true) }
    }

    /// Reads the subscription messages queued on the socket, without waiting.
    mutating func drain() throws(ZMQError) {
        while try socket.receive(into: message, dontWait: true) { read(message) }
    }

    /// Takes one subscription message read from the socket (the output forwarder reads them itself).
    mutating func read(_ message: ZMQMessage) {
        guard let kind = message.bytes.first else { return }
        if vetting != nil || ledger != nil { account(message, subscribes: kind == 1) }
        guard logger.level <= .debug else { return }
        logger.debug(
            kind == 1 ? "consumer subscribed" : "consumer unsubscribed",
            ["topic": String(decoding: message.bytes.dropFirst(), as: UTF8.self)])
    }

    /// Once per turn of the owner's loop: after a revocation, cuts the consumers whose key was revoked (one atomic
    /// load otherwise).
    mutating func refresh() {
        vetting?.refresh()
    }

    // MARK: - Connections

    /// Hands a message of a consumer's connection (a descriptor, the socket it holds) to the vetting and the
    /// ledger, and cuts the connection when the ledger says so. A message without a descriptor (inproc, or an
    /// unsubscription libzmq made itself for a connection that ended) is left to neither.
    private mutating func account(_ message: ZMQMessage, subscribes: Bool) {
        let descriptor = message.sourceDescriptor
        guard descriptor >= 0, let identity = ZMQConnection.identity(descriptor: descriptor) else { return }
        if subscribes { vetting?.note(message, descriptor: descriptor, socket: identity) }
        let cut = ledger?.read(message.bytes, descriptor: descriptor, identity: identity) {
            ZMQConnection.identity(descriptor: $0) == $1
        }
        guard let cut, let ledger else { return }
        let peer = ZMQConnection.peerAddress(descriptor: cut.descriptor) ?? "unknown"
        let done = ZMQConnection.cut(descriptor: cut.descriptor, ifStill: cut.identity)
        metrics?.subscribersCut.add(1, ordering: .relaxed)
        logger.warning(
            "cut a subscriber's connection whose subscriptions passed the limit (--max-subscription-bytes)",
            [
                "peer": peer, "descriptor": "\(cut.descriptor)", "bytes": "\(cut.heldBytes)",
                "limit": "\(ledger.limit)", "shutdown": done ? "done" : "failed",
            ])
    }
}
