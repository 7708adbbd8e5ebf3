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

        /// An identity of the device and inode numbers given.
        public init(device: UInt64, inode: UInt64) {
            self.device = device
            self.inode = inode
        }
    }

    /// The identity of the socket `descriptor` holds now; nil when it holds none (closed, or not a socket).
    public static func identity(descriptor: Int32) -> Identity? {
        guard descriptor >= 0 else { return nil }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFSOCK else { return nil }
        return Identity(device: UInt64(status.st_dev), inode: UInt64(status.st_ino))
    }
}

// MARK: - What the system knows of a connection

extension ZMQConnection {
    /// The bytes the system has received on the TCP connection `descriptor` since it was made (`tcpi_bytes_received`
    /// of `TCP_INFO`, Linux 4.1 and later), whether libzmq has read them yet or not; nil for a descriptor that is
    /// not a TCP connection (an ipc:// one) or a system that does not count them.
    public static func bytesReceived(descriptor: Int32) -> UInt64? {
        #if os(Linux)
            guard descriptor >= 0 else { return nil }
            // `struct tcp_info` of linux/tcp.h, whose fields the kernel only ever appends to: `tcpi_bytes_received`
            // is the u64 at offset 128 (glibc's copy of the struct stops before it).
            // On the stack: the watch asks for every producer's connection ten times a second.
            let offset = 128
            return withUnsafeTemporaryAllocation(of: UInt64.self, capacity: 32) { storage in
                storage.initialize(repeating: 0)
                var length = socklen_t(storage.count * 8)
                let status = getsockopt(descriptor, Int32(IPPROTO_TCP), Self.tcpInfo, storage.baseAddress, &length)
                guard status == 0, Int(length) >= offset + 8 else { return nil }
                return storage[offset / 8]
            }
        #else
            return nil
        #endif
    }

    /// `TCP_INFO` of netinet/tcp.h.
    private static let tcpInfo: Int32 = 11

    /// The address of the peer at the other end of `descriptor` (`getpeername`), as `host:port` (`[host]:port` for
    /// IPv6); nil when it has none (closed, or not a network socket).
    public static func peerAddress(descriptor: Int32) -> String? {
        guard descriptor >= 0 else { return nil }
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let status = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getpeername(descriptor, $0, &length) }
        }
        guard status == 0, storage.ss_family == sa_family_t(AF_INET) || storage.ss_family == sa_family_t(AF_INET6)
        else {
            return nil
        }
        var host = [CChar](repeating: 0, count: Int(NI_MAXHOST))
        var service = [CChar](repeating: 0, count: Int(NI_MAXSERV))
        let named = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                getnameinfo(
                    $0, length, &host, socklen_t(host.count), &service, socklen_t(service.count),
                    NI_NUMERICHOST | NI_NUMERICSERV)
            }
        }
        guard named == 0 else { return nil }
        let hostText = String(decoding: host.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let portText = String(decoding: service.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return hostText.contains(":") ? "[\(hostText)]:\(portText)" : "\(hostText):\(portText)"
    }
}
