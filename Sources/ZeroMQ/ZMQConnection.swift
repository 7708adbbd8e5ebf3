#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One of libzmq's connections, by the file descriptor its messages carry (`ZMQMessageBatch.sourceDescriptor`).
///
/// libzmq has no call that closes one peer's connection of a bound socket. Shutting the descriptor down does it:
/// libzmq's I/O thread reads the end of the stream, closes the connection and forgets the peer, as it does for a
/// peer that went away, and a peer that connects again goes through the handshake (and a ZAP handler) again.
/// libzmq blocks signals in its I/O threads, so its writes to the shut connection raise no `SIGPIPE` in the
/// process.
public enum ZMQConnection {
    /// Shuts the connection on `descriptor` down in both directions; returns whether the system did (false for a
    /// descriptor that is no longer a connected socket).
    @discardableResult
    public static func cut(descriptor: Int32) -> Bool {
        guard descriptor >= 0 else { return false }
        #if canImport(Glibc)
            return shutdown(descriptor, Int32(SHUT_RDWR)) == 0
        #else
            return shutdown(descriptor, SHUT_RDWR) == 0
        #endif
    }

    /// Shuts the connection on `descriptor` down if the descriptor still holds the socket `identity`; returns whether
    /// it did. The check and the shutdown act on a duplicate of the descriptor, which holds on to the socket it
    /// found: were libzmq's I/O thread to close the connection in between and the system to give its number to a
    /// new one, the shutdown still reaches the socket that was checked, never the new connection.
    @discardableResult
    public static func cut(descriptor: Int32, ifStill identity: Identity) -> Bool {
        guard descriptor >= 0 else { return false }
        let copy = dup(descriptor)
        guard copy >= 0 else { return false }
        defer { close(copy) }
        guard Self.identity(descriptor: copy) == identity else { return false }
        return cut(descriptor: copy)
    }

    /// Which socket a descriptor stands for: its device and inode numbers (`fstat`). Linux numbers a socket's inode
    /// from a counter when it creates it (which would have to wrap its 32 bits to repeat a number), so an identity
    /// read now and equal to one read earlier means the descriptor still holds the same connection, not a later
    /// one that was given the same descriptor after the first closed.
    public struct Identity: Hashable, Sendable {
        /// The file system device (`st_dev`).
        public var device: UInt64
        /// The inode number (`st_ino`).
        public var inode: UInt64
    }

    /// The identity of the socket `descriptor` holds now; nil when it holds none (closed, or not a socket).
    public static func identity(descriptor: Int32) -> Identity? {
        guard descriptor >= 0 else { return nil }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFSOCK else { return nil }
        return Identity(device: UInt64(status.st_dev), inode: UInt64(status.st_ino))
    }
}
