import ZeroMQ

/// An output (XPUB) socket owner's check that the consumers it publishes to still hold an authorized CURVE key, for
/// connections made before a reload took keys away (`ClientAuthenticator.reload`).
///
/// A consumer sends nothing after its subscriptions, so the owner cannot wait for its next message, as
/// `ConnectionVetting` does for producers. Instead it keeps, from each subscription the XPUB socket reads (all of
/// them: the socket is verbose, `ZMQ_XPUB_VERBOSE`), the connection's descriptor (`ZMQ_SRCFD`), its key
/// (`User-Id`) and the socket's identity (`ZMQConnection.Identity`). After each revocation it cuts every connection
/// whose key is gone; the consumer's reconnection is then refused at the handshake. A descriptor whose socket is no
/// longer the one noted (its consumer left, and the system gave the number to another connection) is forgotten
/// uncut: the identity keeps a revocation from cutting a connection it was not meant for, and the check and the cut
/// are made on one duplicate of the descriptor (`ZMQConnection.cut(descriptor:ifStill:)`), so that libzmq's I/O
/// thread closing the connection between them cannot turn the cut onto a new connection given the same number.
///
/// Owned by the thread that reads the output socket: the lane, the publisher thread or the output forwarder.
struct SubscriberVetting {
    let authenticator: ClientAuthenticator
    /// The authenticator's revocation count last read.
    private var generation = 0
    /// The consumers seen subscribing, by descriptor.
    private var consumers: [Int32: Consumer] = [:]

    /// A consumer's key and the socket its descriptor held when it subscribed.
    struct Consumer {
        var key: String
        var socket: ZMQConnection.Identity
    }

    init(authenticator: ClientAuthenticator) {
        self.authenticator = authenticator
        generation = authenticator.revocations
    }

    /// Notes the subscription message `message` read from the output socket, which came on the connection on
    /// `descriptor`, holding `socket`: its consumer's connection is cut at once when its key is no longer admitted
    /// (it connected before the revocation), noted otherwise. A message without a key is ignored.
    mutating func note(_ message: ZMQMessage, descriptor: Int32, socket: ZMQConnection.Identity) {
        guard let key = message.property("User-Id"), !key.isEmpty else { return }
        // The same consumer subscribing again (a verbose socket passes every subscription up): nothing to look up.
        if let known = consumers[descriptor], known.socket == socket, known.key == key { return }
        guard authenticator.admits(userID: key) else {
            consumers[descriptor] = nil
            cut(descriptor, socket: socket, key: key)
            return
        }
        consumers[descriptor] = Consumer(key: key, socket: socket)
    }

    /// After a revocation (one atomic load otherwise, once per turn of the owner's loop), cuts every noted consumer
    /// whose key is no longer admitted, and forgets the descriptors whose socket has changed.
    mutating func refresh() {
        let current = authenticator.revocations
        guard current != generation else { return }
        generation = current
        for (descriptor, consumer) in consumers {
            guard ZMQConnection.identity(descriptor: descriptor) == consumer.socket else {
                consumers[descriptor] = nil
                continue
            }
            guard !authenticator.admits(userID: consumer.key) else { continue }
            consumers[descriptor] = nil
            cut(descriptor, socket: consumer.socket, key: consumer.key)
        }
    }

    /// Cuts the consumer's connection if `descriptor` still holds its socket (the caller has just seen it there; a
    /// consumer that left in between is reported as a failed shutdown).
    private func cut(_ descriptor: Int32, socket: ZMQConnection.Identity, key: String) {
        let cut = ZMQConnection.cut(descriptor: descriptor, ifStill: socket)
        authenticator.metrics?.connectionsCut.add(1, ordering: .relaxed)
        authenticator.logger.warning(
            "consumer connection of a revoked client key cut",
            ["key": key, "descriptor": "\(descriptor)", "shutdown": cut ? "done" : "failed"])
    }
}
