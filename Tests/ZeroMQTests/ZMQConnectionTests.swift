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
}
