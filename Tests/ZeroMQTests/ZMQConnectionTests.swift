import Testing

@testable import ZeroMQ

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

@Suite("Connections by descriptor")
struct ZMQConnectionTests {
    /// A connected pair of Unix stream sockets.
    static func socketPair() -> (Int32, Int32) {
        var descriptors: [Int32] = [-1, -1]
        #if canImport(Glibc)
            let type = Int32(SOCK_STREAM.rawValue)
        #else
            let type = SOCK_STREAM
        #endif
        _ = socketpair(AF_UNIX, type, 0, &descriptors)
        return (descriptors[0], descriptors[1])
    }

    /// Whether reading `descriptor` without waiting finds the end of the stream (its peer was shut down).
    static func atEnd(_ descriptor: Int32) -> Bool {
        var byte: UInt8 = 0
        return recv(descriptor, &byte, 1, Int32(MSG_DONTWAIT)) == 0
    }

    @Test("a cut by identity shuts down the socket it was told, and leaves one given the same number since")
    func cutIfStill() throws {
        let (a, b) = Self.socketPair()
        defer { close(b) }
        let first = try #require(ZMQConnection.identity(descriptor: a))
        // Descriptor `a` given to another connection (dup2 closes the first in the same step).
        let (c, d) = Self.socketPair()
        defer { close(d) }
        let second = try #require(ZMQConnection.identity(descriptor: c))
        #expect(dup2(c, a) == a)
        close(c)
        defer { close(a) }
        #expect(!ZMQConnection.cut(descriptor: a, ifStill: first), "the number holds another socket now")
        #expect(!Self.atEnd(d), "the connection that took the number was not cut")
        #expect(Self.atEnd(b), "the first connection's socket was closed when its number was taken")
        #expect(ZMQConnection.cut(descriptor: a, ifStill: second))
        #expect(Self.atEnd(d), "cut when the identity is the one it holds")
        #expect(!ZMQConnection.cut(descriptor: -1, ifStill: second))
        #expect(!ZMQConnection.cut(descriptor: 60_000, ifStill: second), "not open")
    }

    @Test("a descriptor given to another socket has another identity; a file or a closed descriptor has none")
    func identityOfAReusedDescriptor() throws {
        let (a, b) = Self.socketPair()
        defer {
            close(a)
            close(b)
        }
        let first = try #require(ZMQConnection.identity(descriptor: a))
        #expect(ZMQConnection.identity(descriptor: b) != first)
        // Descriptor `a` given to another socket (dup2 closes the first in the same step, so that no other thread of
        // the tests is given the number in between).
        let (c, d) = Self.socketPair()
        defer { close(d) }
        let other = try #require(ZMQConnection.identity(descriptor: c))
        #expect(dup2(c, a) == a)
        close(c)
        #expect(ZMQConnection.identity(descriptor: a) == other)
        #expect(other != first)
        #expect(ZMQConnection.identity(descriptor: 60_000) == nil, "not open")
        let file = open("/dev/null", O_RDONLY)
        defer { close(file) }
        #expect(ZMQConnection.identity(descriptor: file) == nil, "not a socket")
        #expect(ZMQConnection.identity(descriptor: -1) == nil)
    }

    /// A TCP connection over 127.0.0.1: the accepted end and the connecting one.
    static func loopbackPair() throws -> (accepted: Int32, connecting: Int32) {
        #if canImport(Glibc)
            let type = Int32(SOCK_STREAM.rawValue)
        #else
            let type = SOCK_STREAM
        #endif
        let listener = socket(AF_INET, type, 0)
        defer { close(listener) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, length) == 0 && listen(listener, 1) == 0 && getsockname(listener, $0, &length) == 0
            }
        }
        try #require(bound)
        let connecting = socket(AF_INET, type, 0)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(connecting, $0, length) == 0 }
        }
        try #require(connected)
        let accepted = accept(listener, nil, nil)
        try #require(accepted >= 0)
        return (accepted, connecting)
    }

    @Test("the bytes the system received on a TCP connection, read or not, and its peer's address")
    func bytesReceivedAndPeer() throws {
        let (accepted, connecting) = try Self.loopbackPair()
        defer {
            close(accepted)
            close(connecting)
        }
        #expect(ZMQConnection.bytesReceived(descriptor: accepted) == 0)
        let chunk = [UInt8](repeating: 7, count: 10_000)
        for _ in 0..<3 { #expect(send(connecting, chunk, chunk.count, 0) == chunk.count) }
        // None of it has been read (loopback delivers at once; a second at most is waited for).
        for _ in 0..<100 where ZMQConnection.bytesReceived(descriptor: accepted) != 30_000 { usleep(10_000) }
        #expect(ZMQConnection.bytesReceived(descriptor: accepted) == 30_000)
        var buffer = [UInt8](repeating: 0, count: 30_000)
        _ = recv(accepted, &buffer, buffer.count, Int32(MSG_DONTWAIT))
        #expect(ZMQConnection.bytesReceived(descriptor: accepted) == 30_000, "reading changes nothing")
        let peer = try #require(ZMQConnection.peerAddress(descriptor: accepted))
        #expect(peer.hasPrefix("127.0.0.1:"))
        #expect(ZMQConnection.peerAddress(descriptor: connecting)?.hasPrefix("127.0.0.1:") == true)
        let (a, b) = Self.socketPair()
        defer {
            close(a)
            close(b)
        }
        #expect(ZMQConnection.bytesReceived(descriptor: a) == nil, "not TCP")
        #expect(ZMQConnection.peerAddress(descriptor: a) == nil, "no network address")
        #expect(ZMQConnection.bytesReceived(descriptor: -1) == nil)
    }
}
