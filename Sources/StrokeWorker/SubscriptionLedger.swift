import ZeroMQ

/// Keeps, for each consumer connection of an output (XPUB) socket, an account of the subscriptions libzmq holds for
/// it, and finds a connection that holds more than a limit, as a state machine fed by the socket's owner (so that
/// its rules are tested without sockets).
///
/// libzmq keeps every subscription a consumer sends in a tree of about a node per byte (tens of bytes of memory for
/// each byte subscribed) for as long as the connection lasts, and bounds neither their number nor their total: a
/// consumer that subscribes to many distinct prefixes makes a worker's memory grow as fast as it sends (before
/// session 90, 100,000 subscriptions of 1,000 bytes took a worker from 28.8 to 3,107.6 MB resident). No consumer of
/// ours needs that many: it subscribes to everything, to a prefix, or to the sessions it follows.
///
/// The owner reads every subscription and unsubscription of every connection (`ZMQ_XPUB_VERBOSER`), with the
/// descriptor of the connection it came on (`ZMQ_SRCFD`) and the socket that descriptor holds. The ledger keeps, per
/// connection, each distinct prefix once (a hash of it, not its bytes), as libzmq does for the connection: a
/// prefix subscribed twice is held once, and one unsubscription lets it go. A connection whose prefixes come to more
/// than `limit` bytes, each counted as its bytes and `overheadBytes`, is to be cut: libzmq then drops all of them.
///
/// The cut comes late: libzmq takes a connection's subscriptions into its tree in its own calls, as fast as its I/O
/// thread delivers them, before the owner reads them (`Publisher.countedSubscriptionQueue`), so that a subscriber
/// flooding prefixes of 1,000 bytes had a worker hold 0.51–1.5 GB at the default limit of 16 MiB, and a proxy, which
/// also forwards each one upstream before it reads the next, 1.3–2.7 GB (3.1 and 6.1 GB, and growing, before).
///
/// What it cannot see: unsubscriptions libzmq makes itself when a connection ends carry no descriptor, so the
/// account of a connection that ended stays until its descriptor is seen holding another socket or a sweep finds it
/// gone (`sweep`). And a message tells its connection by descriptor only: one libzmq had queued from a connection
/// that has ended since, read once the system gave the descriptor to another socket, is counted to that socket.
/// Those of a connection cut are passed over while its descriptor still holds it; but libzmq may have taken in many
/// more than the owner read (above), and should it close the connection and the system give the number to a new one
/// before the owner read them, they would count to the new connection, which could then be cut in its turn.
struct SubscriptionLedger {
    /// A connection to cut: who it is and the bytes its subscriptions came to.
    struct Cut: Equatable {
        var descriptor: Int32
        var identity: ZMQConnection.Identity
        var heldBytes: Int
    }

    /// The account of one connection.
    private struct Holder {
        var identity: ZMQConnection.Identity
        /// Each prefix held, by its hash, with what it counts for.
        var prefixes: [Int: Int] = [:]
        var heldBytes = 0
        /// Whether the connection was cut: the messages libzmq had queued from it before are passed over.
        var isCut = false
    }

    /// What each prefix counts for beyond its bytes: about what libzmq spends on a subscription apart from its
    /// bytes, so that many short prefixes are bounded as long ones are.
    static let overheadBytes = 64

    /// Bytes past which a connection is cut.
    let limit: Int
    private var holders: [Int32: Holder] = [:]
    /// How many connections the ledger may hold accounts for before it sweeps those that ended.
    private var sweepAt = Self.smallestSweep
    static let smallestSweep = 16

    /// A ledger that cuts a connection whose subscriptions come to more than `limit` bytes.
    init(limit: Int) {
        self.limit = limit
    }

    /// The descriptors with an account, sorted (for tests).
    var descriptors: [Int32] { holders.keys.sorted() }

    /// The bytes the subscriptions of the connection on `descriptor` come to; nil when it has no account, or was
    /// cut.
    func heldBytes(descriptor: Int32) -> Int? {
        holders[descriptor].flatMap { $0.isCut ? nil : $0.heldBytes }
    }

    /// Takes the subscription message `message` (a flag byte, 1 to subscribe and 0 to unsubscribe, then the prefix)
    /// that came on the connection on `descriptor`, which holds the socket `identity`; returns the cut when the
    /// connection now holds more than the limit. Its account is then emptied and marked cut, so that the messages
    /// libzmq read from it before the cut and the loop reads after it cut it no second time.
    ///
    /// `isCurrent` says whether a descriptor still holds a socket; it is called when the ledger sweeps
    /// (`sweep`), before it opens an account when it holds many.
    mutating func read(
        _ message: UnsafeRawBufferPointer, descriptor: Int32, identity: ZMQConnection.Identity,
        isCurrent: (Int32, ZMQConnection.Identity) -> Bool
    ) -> Cut? {
        guard let flag = message.first, flag <= 1 else { return nil }
        let prefix = UnsafeRawBufferPointer(rebasing: message.dropFirst())
        var hasher = Hasher()
        hasher.combine(bytes: prefix)
        let key = hasher.finalize()
        // The account is taken out of the table while it changes, so that its prefixes are not copied (copy on
        // write), and put back unless the connection is gone.
        var holder: Holder
        if let index = holders.index(forKey: descriptor), holders.values[index].identity == identity {
            holder = holders.remove(at: index).value
        } else {
            // A connection not seen before, or one given the descriptor of a connection that ended.
            let ended = holders.removeValue(forKey: descriptor) != nil
            guard flag == 1 else { return nil }
            if !ended, holders.count >= sweepAt { sweep(isCurrent: isCurrent) }
            holder = Holder(identity: identity)
        }
        guard !holder.isCut else {
            holders[descriptor] = holder
            return nil
        }
        if flag == 0 {
            if let charge = holder.prefixes.removeValue(forKey: key) { holder.heldBytes -= charge }
            holders[descriptor] = holder
            return nil
        }
        let charge = prefix.count + Self.overheadBytes
        if holder.prefixes.updateValue(charge, forKey: key) == nil { holder.heldBytes += charge }
        guard holder.heldBytes > limit else {
            holders[descriptor] = holder
            return nil
        }
        holders[descriptor] = Holder(identity: identity, isCut: true)
        return Cut(descriptor: descriptor, identity: identity, heldBytes: holder.heldBytes)
    }

    /// Forgets the accounts of connections that ended (`isCurrent` false for their descriptor and socket), and
    /// lets the ledger hold twice as many as are left, at least `smallestSweep`, before it sweeps again.
    mutating func sweep(isCurrent: (Int32, ZMQConnection.Identity) -> Bool) {
        holders = holders.filter { isCurrent($0.key, $0.value.identity) }
        sweepAt = max(Self.smallestSweep, 2 * holders.count)
    }
}
