import ZeroMQ

/// Finds the producers' connections that keep sending without ever finishing a message, as a state machine fed by
/// `ConnectionWatch`'s thread (so that its rules are tested without sockets).
///
/// libzmq counts a socket's high-water mark in whole messages and keeps the frames of a message whose last frame
/// has not arrived in memory, out of its reader's sight, however many there are: a producer that sets the "more"
/// flag on every frame makes a worker's memory grow as fast as it sends (more than that: libzmq keeps 64 bytes for a
/// frame of 2 on the wire), until the system kills the worker and every player's session with it, while the worker
/// reads nothing from that producer and logs nothing. `ZMQ_MAXMSGSIZE` bounds one frame, not a message of many.
/// libzmq's own senders send no frame of a message before its last (they hold it whole), so such a peer speaks
/// ZMTP itself: an attacker, or an implementation gone wrong.
///
/// The tracker tells such a connection from a busy one by comparing what the system received on it (the kernel's
/// count of bytes, `ZMQConnection.bytesReceived`) with what the reader made of it. The reader notes the connection
/// of a message now and then, at random, about once in `MessageSampler.meanGap` bytes it reads
/// (`UnfinishedMessageGuard`); a connection it noted has finished a message lately. Bytes that arrived on a
/// connection since it was last noted, up to a moment after which the reader found its input empty, were either
/// read (and each of them had the same chance of being noted) or belong to a message still unfinished: past
/// `limit` of them, more than the largest message that may be under way and far more than the reader reads between
/// two notes (the odds of reading 4 MiB of a connection without noting it are e^-64), the message is not one any
/// producer of ours sends, and the connection is cut (`ZMQConnection.cut(descriptor:ifStill:)`): libzmq drops the
/// unfinished message and delivers the ones the connection finished before.
///
/// What it does not see: bytes that arrive while the reader never finds its input empty (saturated, or held by a
/// consumer behind with `--slow-consumers wait`) are not counted, for the reader's backlog may hold them; and
/// connections that are not TCP (ipc://), which have no count of bytes received.
struct UnfinishedMessageTracker {
    /// A connection to cut: what it received without finishing a message, and who it is.
    struct Cut: Equatable {
        var descriptor: Int32
        var identity: ZMQConnection.Identity
        /// Bytes received since the reader last noted the connection, up to the last check before the reader
        /// found its input empty.
        var unexplainedBytes: UInt64
    }

    /// A connection the tracker follows.
    private struct Connection {
        var identity: ZMQConnection.Identity
        /// The kernel's count at the check that last found the connection noted; 0 when it was never noted; nil
        /// before its first check.
        var base: UInt64?
        /// The kernel's count at the previous check.
        var previous: UInt64?
    }

    /// Unexplained bytes past which a connection is cut.
    let limit: UInt64
    private var connections: [Int32: Connection] = [:]
    /// Descriptors noted at one of the last `unclaimedChecks` checks while no connection followed had them, by the
    /// check: the monitor may tell of a connection after the reader noted its first messages.
    private var unclaimed: [Int32: Int] = [:]
    private var checks = 0
    /// How many checks a note of a descriptor not followed yet is kept for its connection: a second's worth.
    static let unclaimedChecks = 10

    /// A tracker that cuts past `limit` unexplained bytes.
    init(limit: UInt64) {
        self.limit = limit
    }

    /// The limit for a reader that disconnects a producer at a frame of `disconnectingMessageBytes`
    /// (`WorkerConfiguration.disconnectingMessageBytes`): a frame of that size, about the most a producer of ours
    /// has under way (its other frame is a topic, at most 128 bytes), and 4 MiB, 64 times the mean gap between two
    /// notes. 8 MiB at the defaults.
    static func limit(disconnectingMessageBytes: Int64) -> UInt64 {
        UInt64(max(disconnectingMessageBytes, 0)) + 64 * UInt64(MessageSampler.meanGap)
    }

    /// The descriptors followed, sorted (for tests and the log).
    var descriptors: [Int32] { connections.keys.sorted() }

    /// A connection was made or accepted on `descriptor`; `identity` is the socket it holds.
    mutating func opened(descriptor: Int32, identity: ZMQConnection.Identity) {
        connections[descriptor] = Connection(identity: identity)
    }

    /// The connection on `descriptor` ended.
    mutating func closed(descriptor: Int32) {
        connections[descriptor] = nil
    }

    /// Follows `event` of the socket's monitor: a connection made or accepted, or ended.
    mutating func follow(_ event: ZMQSocketMonitor.Event) {
        let descriptor = Int32(bitPattern: event.value)
        switch event.kind {
        case .connected, .accepted:
            if let identity = ZMQConnection.identity(descriptor: descriptor) {
                opened(descriptor: descriptor, identity: identity)
            }
        case .disconnected: closed(descriptor: descriptor)
        default: break
        }
    }

    /// One check: `bytesReceived` reads the kernel's count of a descriptor (nil: not a TCP connection, or gone);
    /// `noted` are the descriptors the reader noted since the previous check; `emptied` says whether the reader found
    /// its input empty since then. Returns the connections to cut, which the tracker forgets.
    mutating func check(noted: Set<Int32>, emptied: Bool, bytesReceived: (Int32) -> UInt64?) -> [Cut] {
        checks += 1
        for descriptor in noted where connections[descriptor]?.base == nil { unclaimed[descriptor] = checks }
        if !unclaimed.isEmpty { unclaimed = unclaimed.filter { checks - $0.value < Self.unclaimedChecks } }
        var cuts: [Cut] = []
        for (descriptor, var connection) in connections {
            guard let bytes = bytesReceived(descriptor) else { continue }
            defer { connections[descriptor] = connection }
            let previous = connection.previous
            connection.previous = bytes
            guard !noted.contains(descriptor) else {
                connection.base = bytes
                continue
            }
            guard let base = connection.base else {
                // The first check: counted from the connection's start, unless the reader noted it before.
                connection.base = unclaimed.removeValue(forKey: descriptor) != nil ? bytes : 0
                continue
            }
            // Up to the previous check everything finished had been read once the reader found its input empty
            // after it.
            guard emptied, let previous, previous > base, previous - base > limit else { continue }
            cuts.append(Cut(descriptor: descriptor, identity: connection.identity, unexplainedBytes: previous - base))
        }
        for cut in cuts { connections[cut.descriptor] = nil }
        return cuts.sorted { $0.descriptor < $1.descriptor }
    }
}
