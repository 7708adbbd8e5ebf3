import ZeroMQ

/// A lane's or an input proxy's check that the producers it reads from still hold an authorized CURVE key, for
/// connections made before a reload took keys away (`ClientAuthenticator.reload`).
///
/// libzmq asks the ZAP handler about a peer only at its handshake. After a revocation the reader looks, once per
/// connection, at the key the handshake admitted (the message's `User-Id`), and cuts a connection whose key is
/// gone (`ZMQConnection.cut`): its messages are dropped unread from then on, and when it connects again the
/// handshake refuses it. Connections are known by their file descriptor (`ZMQMessageBatch.sourceDescriptor`), and
/// each is checked once per revocation: until the first revocation, and for a connection already checked since
/// the last one, a message costs one lookup.
///
/// What it cannot rule out: libzmq still delivers what a connection queued before it closed, and by then the system may
/// have given its descriptor number to a new connection. If such a message, of a revoked key, is the first the reader
/// sees from that number after the revocation, the new connection is cut in its place: its client reconnects at once
/// (its own key is admitted), and what was in flight on it is lost, which its sessions' sequence numbers report. A
/// message names its connection by descriptor only (libzmq 4.3), so the reader cannot tell the two apart; the window
/// is the time a closed connection's messages wait in the queue (at most `--input-hwm` messages).
///
/// Owned by the thread that reads the socket: the lane, or the proxy's.
struct ConnectionVetting {
    let authenticator: ClientAuthenticator
    /// The authenticator's revocation count last read.
    private var generation = 0
    /// By file descriptor: the generation at which its connection was found admitted, or its negation when it was
    /// cut then; 0 when not checked since the first revocation.
    private var checked: [Int] = []
    /// The same for descriptors from `trackedDescriptors` on, which the system hands out only to a process with that
    /// many files open.
    private var checkedAbove: [Int: Int] = [:]

    init(authenticator: ClientAuthenticator) {
        self.authenticator = authenticator
    }

    /// Descriptors below this are tracked in an array, the others in a dictionary: the array stays small whatever
    /// number the system hands out.
    static let trackedDescriptors = 1 << 16

    /// Reads whether keys were revoked since the last call: one atomic load, once per poll (the lane) or per
    /// message (the proxy, whose loop is libzmq-like and has no hook per poll).
    @inline(__always)
    mutating func refresh() {
        let current = authenticator.revocations
        if current != generation { generation = current }
    }

    /// Whether message `index` of `messages` may be read: always until a key is revoked; after that, when its
    /// connection's key is still authorized (or it has none: inproc). A message that may not is counted, and its
    /// connection cut the first time.
    @inline(__always)
    mutating func admits(_ messages: ZMQMessageBatch, at index: Int) -> Bool {
        guard generation > 0 else { return true }
        return admits(descriptor: Int(messages.sourceDescriptor(at: index))) { messages.property("User-Id", at: index) }
    }

    /// Whether the message whose first frame is `message` may be forwarded (as `admits(_:at:)`).
    @inline(__always)
    mutating func admits(_ message: ZMQMessage) -> Bool {
        guard generation > 0 else { return true }
        return admits(descriptor: Int(message.sourceDescriptor)) { message.property("User-Id") }
    }

    /// Whether the connection on `descriptor`, whose key `userID` reads, may be read (as `admits(_:at:)`).
    @inline(__always)
    mutating func admits(descriptor: Int, userID: () -> String?) -> Bool {
        guard descriptor >= 0 else { return true }
        if descriptor < checked.count, checked[descriptor] == generation { return true }
        if descriptor >= Self.trackedDescriptors, checkedAbove[descriptor] == generation { return true }
        return check(descriptor: descriptor, userID: userID() ?? "")
    }

    /// The first message of a connection since the last revocation, or one from a connection cut since.
    private mutating func check(descriptor: Int, userID: String) -> Bool {
        // A connection without a User-Id did not pass the ZAP handler (inproc): nothing to revoke.
        if userID.isEmpty || authenticator.admits(userID: userID) {
            mark(descriptor, generation)
            return true
        }
        authenticator.metrics?.messagesRevoked.add(1, ordering: .relaxed)
        guard mark(of: descriptor) != -generation else { return false }
        mark(descriptor, -generation)
        let cut = ZMQConnection.cut(descriptor: Int32(descriptor))
        authenticator.metrics?.connectionsCut.add(1, ordering: .relaxed)
        authenticator.logger.warning(
            "connection of a revoked client key cut",
            ["key": userID, "descriptor": "\(descriptor)", "shutdown": cut ? "done" : "failed"])
        return false
    }

    /// What `descriptor` was marked with last (0: nothing since the first revocation).
    private func mark(of descriptor: Int) -> Int {
        descriptor < checked.count ? checked[descriptor] : checkedAbove[descriptor] ?? 0
    }

    private mutating func mark(_ descriptor: Int, _ value: Int) {
        guard descriptor < Self.trackedDescriptors else {
            checkedAbove[descriptor] = value
            return
        }
        if descriptor >= checked.count { checked += repeatElement(0, count: descriptor + 1 - checked.count) }
        checked[descriptor] = value
    }
}
