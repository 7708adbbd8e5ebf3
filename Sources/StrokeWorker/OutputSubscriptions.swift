import ZeroMQ

/// What the owner of an output (XPUB) socket reads from it: the consumers' subscriptions, logged at debug level,
/// and, when clients' keys are checked, noted for cutting the consumers whose key is revoked later
/// (`SubscriberVetting`).
///
/// Owned by the thread that owns the socket: the lane, the publisher thread or the output forwarder.
struct OutputSubscriptions {
    /// The output socket.
    let socket: ZMQSocket
    let logger: Logger
    private let message = ZMQMessage()
    private var vetting: SubscriberVetting?

    /// Reads `socket`'s subscriptions; with `authenticator` (clients' keys listed), makes the socket pass every
    /// consumer's subscriptions up (`ZMQ_XPUB_VERBOSE`), not only the first of each topic, so that each consumer's
    /// connection is seen.
    init(socket: ZMQSocket, authenticator: ClientAuthenticator?, logger: Logger) throws(ZMQError) {
        self.socket = socket
        self.logger = logger
        if let authenticator {
            try socket.setVerbose(true)
            vetting = SubscriberVetting(authenticator: authenticator)
        }
    }

    /// Reads the subscription messages queued on the socket, without waiting.
    mutating func drain() throws(ZMQError) {
        while try socket.receive(into: message, dontWait: true) {
            guard let kind = message.bytes.first else { continue }
            if kind == 1 { vetting?.note(message) }
            guard logger.level <= .debug else { continue }
            logger.debug(
                kind == 1 ? "consumer subscribed" : "consumer unsubscribed",
                ["topic": String(decoding: message.bytes.dropFirst(), as: UTF8.self)])
        }
    }

    /// Once per turn of the owner's loop: after a revocation, cuts the consumers whose key was revoked (one atomic
    /// load otherwise).
    mutating func refresh() {
        vetting?.refresh()
    }
}
