import CZeroMQ
import Foundation
import Testing

@testable import ZeroMQ

@Suite("ZeroMQ wrapper (inproc)")
struct ZeroMQTests {
    /// Two PAIR sockets of a new context (which each socket keeps alive), `a` bound and `b` connected to
    /// `inproc://name`.
    static func connectedPair(_ name: String) throws -> (a: ZMQSocket, b: ZMQSocket) {
        let context = try ZMQContext()
        let a = try ZMQSocket(context, .pair)
        let b = try ZMQSocket(context, .pair)
        try a.bind("inproc://\(name)")
        try b.connect("inproc://\(name)")
        return (a, b)
    }

    @Test("PUB to SUB, multipart, one reusable message, prefix filtering")
    func pubSub() throws {
        let context = try ZMQContext()
        let publisher = try ZMQSocket(context, .xpub)
        let subscriber = try ZMQSocket(context, .sub)
        try publisher.bind("inproc://pubsub")
        try subscriber.subscribe("keep")
        try subscriber.connect("inproc://pubsub")
        try publisher.setTimeouts(receive: 2000)
        let subscription = try #require(try publisher.receiveMultipart())
        #expect(subscription == [[1] + Array("keep".utf8)])
        try publisher.sendMultipart([Array("drop-me".utf8), [1]])
        try publisher.sendMultipart([Array("keep-me".utf8), [2, 3]])
        let message = ZMQMessage()
        try subscriber.setTimeouts(receive: 2000)
        #expect(try subscriber.receive(into: message))
        #expect(Array(message.bytes) == Array("keep-me".utf8))
        #expect(message.hasMore)
        #expect(try subscriber.receive(into: message))
        #expect(Array(message.bytes) == [2, 3])
        #expect(!message.hasMore)
        #expect(try subscriber.receive(into: message, dontWait: true) == false)
    }

    @Test("a message batch holds several received frames at once, each with its own bytes and more flag")
    func messageBatch() throws {
        let (a, b) = try Self.connectedPair("batch")
        try a.sendMultipart([Array("one".utf8), [1, 2]])
        try a.sendMultipart([Array("two".utf8)])
        let batch = ZMQMessageBatch(count: 4)
        try b.setTimeouts(receive: 2000)
        for index in 0..<3 { #expect(try b.receive(into: batch, at: index)) }
        #expect(try b.receive(into: batch, at: 3, dontWait: true) == false)
        #expect(batch.bytes(at: 3).isEmpty)
        // Receiving into one message leaves the others as they were.
        #expect(Array(batch.bytes(at: 0)) == Array("one".utf8))
        #expect(Array(batch.bytes(at: 1)) == [1, 2])
        #expect(Array(batch.bytes(at: 2)) == Array("two".utf8))
        #expect((0..<3).map(batch.hasMore(at:)) == [true, false, false])
    }

    @Test("poll reports readiness and times out")
    func poll() throws {
        let (a, b) = try Self.connectedPair("poll")
        var poller = ZMQPoller(readable: [b])
        #expect(try poller.poll(timeoutMilliseconds: 10) == 0)
        try a.send("hello")
        #expect(try poller.poll(timeoutMilliseconds: 1000) == 1)
        #expect(poller.isReadable(0))
        #expect(b.isReadable)
    }

    @Test("a poll signal wakes a poll beside its sockets, from another thread too, and clears")
    func pollSignal() throws {
        let (a, b) = try Self.connectedPair("poll-signal")
        let signal = try ZMQPollSignal()
        var poller = ZMQPoller(readable: [b], signals: [signal])
        #expect(try poller.poll(timeoutMilliseconds: 0) == 0)
        signal.signal()
        signal.signal()
        #expect(try poller.poll(timeoutMilliseconds: 1000) == 1)
        #expect(poller.isReadable(1) && !poller.isReadable(0))
        signal.clear()
        #expect(try poller.poll(timeoutMilliseconds: 0) == 0)
        try a.send("hello")
        #expect(try poller.poll(timeoutMilliseconds: 1000) == 1)
        #expect(poller.isReadable(0) && !poller.isReadable(1))
        _ = try b.receiveMultipart()
        // From another thread, into a poll that would otherwise wait ten seconds.
        let thread = Thread { signal.signal() }
        thread.start()
        #expect(try poller.poll(timeoutMilliseconds: 10_000) == 1)
        #expect(poller.isReadable(1))
    }

    @Test("TCP keepalive is turned on with its idle time, probe interval and probe count")
    func tcpKeepalive() throws {
        let socket = try ZMQSocket(try ZMQContext(), .sub)
        #expect(try socket.intOption(ZMQ_TCP_KEEPALIVE, name: "ZMQ_TCP_KEEPALIVE") == -1)
        try socket.setTCPKeepalive(idleSeconds: 10, intervalSeconds: 2, count: 5)
        #expect(try socket.intOption(ZMQ_TCP_KEEPALIVE, name: "ZMQ_TCP_KEEPALIVE") == 1)
        #expect(try socket.intOption(ZMQ_TCP_KEEPALIVE_IDLE, name: "ZMQ_TCP_KEEPALIVE_IDLE") == 10)
        #expect(try socket.intOption(ZMQ_TCP_KEEPALIVE_INTVL, name: "ZMQ_TCP_KEEPALIVE_INTVL") == 2)
        #expect(try socket.intOption(ZMQ_TCP_KEEPALIVE_CNT, name: "ZMQ_TCP_KEEPALIVE_CNT") == 5)
    }

    @Test("the retransmission limit that finds a peer taking no data is set as ZMQ_TCP_MAXRT")
    func tcpMaxRetransmitTimeout() throws {
        let socket = try ZMQSocket(try ZMQContext(), .xpub)
        #expect(try socket.intOption(ZMQ_TCP_MAXRT, name: "ZMQ_TCP_MAXRT") == 0)
        try socket.setTCPMaxRetransmitTimeout(milliseconds: 10_000)
        #expect(try socket.intOption(ZMQ_TCP_MAXRT, name: "ZMQ_TCP_MAXRT") == 10_000)
    }

    @Test("the IPv6 option is set and read back")
    func ipv6Option() throws {
        let socket = try ZMQSocket(try ZMQContext(), .sub)
        #expect(try socket.intOption(ZMQ_IPV6, name: "ZMQ_IPV6") == 0)
        try socket.setIPv6(true)
        #expect(try socket.intOption(ZMQ_IPV6, name: "ZMQ_IPV6") == 1)
    }

    @Test("errors carry errno and zmq_strerror")
    func errors() throws {
        let context = try ZMQContext()
        let socket = try ZMQSocket(context, .sub)
        do {
            try socket.bind("nonsense://x")
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .endpoint)
            #expect(error.errno != 0)
            #expect(!error.message.isEmpty)
            #expect(error.description.contains("zmq_bind(nonsense://x)"))
        }
    }

    @Test("XPUB_NODROP turns a full queue into a failed send instead of silent loss")
    func noDrop() throws {
        let context = try ZMQContext()
        let publisher = try ZMQSocket(context, .xpub)
        let subscriber = try ZMQSocket(context, .sub)
        try publisher.setHighWaterMarks(send: 10)
        try publisher.setNoDrop(true)
        try subscriber.setHighWaterMarks(receive: 10)
        try publisher.bind("inproc://nodrop")
        try subscriber.subscribe("")
        try subscriber.connect("inproc://nodrop")
        try publisher.setTimeouts(receive: 2000)
        _ = try publisher.receiveMultipart()
        var refused = 0
        for _ in 0..<100 where try !publisher.send("x", dontWait: true) { refused += 1 }
        #expect(refused > 0)
    }

    @Test("the steerable proxy forwards and terminates on command")
    func proxy() async throws {
        let context = try ZMQContext()
        let done = try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask {
                try await runOnThread {
                    let frontend = try ZMQSocket(context, .xsub)
                    let backend = try ZMQSocket(context, .xpub)
                    let control = try ZMQSocket(context, .pair)
                    try frontend.bind("inproc://proxy-in")
                    try backend.bind("inproc://proxy-out")
                    try control.bind("inproc://proxy-control")
                    try ZMQProxy.runSteerable(frontend: frontend, backend: backend, control: control)
                    return true
                }
            }
            group.addTask {
                try await runOnThread {
                    let subscriber = try ZMQSocket(context, .sub)
                    let publisher = try ZMQSocket(context, .pub)
                    try subscriber.subscribe("")
                    try subscriber.connect("inproc://proxy-out")
                    try publisher.connect("inproc://proxy-in")
                    try subscriber.setTimeouts(receive: 50)
                    var received = false
                    for _ in 0..<100 where !received {
                        try publisher.send("ping")
                        received = try subscriber.receiveMultipart() != nil
                    }
                    let control = try ZMQSocket(context, .pair)
                    try control.connect("inproc://proxy-control")
                    try control.send("TERMINATE")
                    return received
                }
            }
            var all = true
            for try await result in group { all = all && result }
            return all
        }
        #expect(done)
    }
}

func runOnThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}
