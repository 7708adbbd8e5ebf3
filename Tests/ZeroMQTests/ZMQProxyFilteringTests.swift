import Foundation
import Synchronization
import Testing

@testable import ZeroMQ

@Suite("The filtering proxy and a message's connection")
struct ZMQProxyFilteringTests {
    @Test(
        "the filtering proxy forwards what it admits, drops the rest whole, counts, shows its turns and the backend's subscriptions, and terminates on command"
    )
    func filtering() async throws {
        let context = try ZMQContext()
        // The proxy on a thread of its own, started here: a child task would wait for a thread of the shared pool,
        // which other tests may hold.
        let ended = DispatchSemaphore(value: 0)
        // What the proxy's thread saw: turns of its loop, the subscriptions its backend read, the sizes of the whole
        // messages its frontend read and how often it found the frontend empty.
        let seen = Mutex((turns: 0, subscriptions: [[UInt8]](), read: [Int](), emptied: 0))
        Thread {
            defer { ended.signal() }
            do {
                let frontend = try ZMQSocket(context, .xsub)
                let backend = try ZMQSocket(context, .xpub)
                let control = try ZMQSocket(context, .pair)
                try frontend.bind("inproc://filtering-in")
                try backend.bind("inproc://filtering-out")
                try control.bind("inproc://filtering-control")
                try ZMQProxy.runFiltering(
                    frontend: frontend, backend: backend, control: control, pollMilliseconds: 10,
                    turn: { _ in seen.withLock { $0.turns += 1 } },
                    admitBackend: { message in
                        seen.withLock { $0.subscriptions.append(Array(message.bytes)) }
                        return true
                    },
                    frontendRead: { bytes, _ in seen.withLock { $0.read.append(bytes) } },
                    frontendEmptied: { seen.withLock { $0.emptied += 1 } }
                ) { first in
                    String(decoding: first.bytes, as: UTF8.self) != "drop"
                }
            } catch {
                Issue.record("the proxy failed: \(error)")
            }
        }.start()
        let (received, statistics, terminated) = try await runOnThread { () -> ([[[UInt8]]], [UInt64], Bool) in
            let subscriber = try ZMQSocket(context, .sub)
            let publisher = try ZMQSocket(context, .pub)
            try Self.connectThroughProxy(subscriber, publisher, "filtering")
            try publisher.sendMultipart([Array("drop".utf8), Array("x".utf8)])
            try publisher.sendMultipart([Array("keep".utf8), Array("y".utf8)])
            try publisher.send("last")
            try subscriber.setTimeouts(receive: 5000)
            let received = [try subscriber.receiveMultipart() ?? [], try subscriber.receiveMultipart() ?? []]
            let control = try ZMQSocket(context, .pair)
            try control.setTimeouts(receive: 5000)
            try control.connect("inproc://filtering-control")
            try control.send("STATISTICS")
            let counts = (try control.receiveMultipart() ?? []).map { frame in
                frame.withUnsafeBytes { UInt64(littleEndian: $0.loadUnaligned(as: UInt64.self)) }
            }
            try control.send("TERMINATE")
            return (received, counts, ended.wait(timeout: .now() + 10) == .success)
        }
        #expect(received == [[Array("keep".utf8), Array("y".utf8)], [Array("last".utf8)]])
        #expect(statistics.count == 8)
        if statistics.count == 8 {
            // Frames in on the frontend, out on the backend: all but the dropped message's two.
            #expect(statistics[0] == statistics[6] + 2)
            #expect(statistics[1] == statistics[7] + 5)
            // The subscription came in on the backend and went out on the frontend.
            #expect(statistics[4] >= 1 && statistics[4] == statistics[2])
        }
        #expect(terminated)
        // The backend's subscription went through `admitBackend`; the loop turned at least once per poll.
        #expect(seen.withLock { $0.subscriptions } == [[1]])
        #expect(seen.withLock { $0.turns } >= 1)
        // Every whole message read, dropped or not, with the bytes of all its frames (after the probes); the
        // frontend found empty at least once, between the probes.
        #expect(seen.withLock { $0.read.suffix(3) } == [5, 5, 4])
        #expect(seen.withLock { $0.emptied } >= 1)
    }

    /// Connects `subscriber` (to every topic) and `publisher` to the proxy whose endpoints are
    /// `inproc://NAME-out` and `inproc://NAME-in`, and sends probes until one arrives (at most 100, 50 ms apart):
    /// the subscription has then gone up through the proxy. Reads whatever probes are left.
    static func connectThroughProxy(_ subscriber: ZMQSocket, _ publisher: ZMQSocket, _ name: String) throws {
        try subscriber.subscribe("")
        try subscriber.connect("inproc://\(name)-out")
        try publisher.connect("inproc://\(name)-in")
        try subscriber.setTimeouts(receive: 50)
        var probes = 0
        repeat {
            try publisher.send("probe")
            probes += 1
        } while try subscriber.receiveMultipart() == nil && probes < 100
        while try subscriber.receiveMultipart(dontWait: true) != nil {}
    }

    @Test("a frame over tcp names its connection's descriptor; over inproc none, and cutting none does nothing")
    func sourceDescriptor() throws {
        let context = try ZMQContext()
        let pull = try ZMQSocket(context, .pull)
        let push = try ZMQSocket(context, .push)
        for socket in [pull, push] { try socket.setLinger(milliseconds: 0) }
        try pull.setTimeouts(receive: 5000)
        try pull.bind("tcp://127.0.0.1:*")
        try push.connect(pull.lastEndpoint)
        try push.send("over tcp")
        let message = ZMQMessage()
        try pull.receive(into: message)
        #expect(message.sourceDescriptor >= 0)
        #expect(message.property("Socket-Type") == "PUSH")
        #expect(message.property("User-Id") == nil)

        let (a, b) = try ZeroMQTests.connectedPair("descriptor")
        try a.send("over inproc")
        let batch = ZMQMessageBatch(count: 1)
        try b.receive(into: batch, at: 0)
        #expect(batch.sourceDescriptor(at: 0) == -1)
        #expect(!ZMQConnection.cut(descriptor: -1))
    }

    @Test("a subscription read from an XPUB names its subscriber's descriptor, whose socket identity tells it apart")
    func subscriberDescriptor() throws {
        let context = try ZMQContext()
        let xpub = try ZMQSocket(context, .xpub)
        let first = try ZMQSocket(context, .sub)
        for socket in [xpub, first] { try socket.setLinger(milliseconds: 0) }
        try xpub.setVerbose(true)
        try xpub.setTimeouts(receive: 5000)
        try xpub.bind("tcp://127.0.0.1:*")
        try first.subscribe("topic")
        try first.connect(xpub.lastEndpoint)
        let message = ZMQMessage()
        try xpub.receive(into: message)
        #expect(Array(message.bytes) == [1] + Array("topic".utf8))
        let descriptor = message.sourceDescriptor
        let identity = try #require(ZMQConnection.identity(descriptor: descriptor))
        #expect(ZMQConnection.identity(descriptor: descriptor) == identity, "the same socket: the same identity")
        // A second subscriber to the same topic: a verbose XPUB passes its subscription up too, from another socket.
        let second = try ZMQSocket(context, .sub)
        try second.setLinger(milliseconds: 0)
        try second.subscribe("topic")
        try second.connect(xpub.lastEndpoint)
        try xpub.receive(into: message)
        #expect(message.sourceDescriptor != descriptor)
        #expect(ZMQConnection.identity(descriptor: message.sourceDescriptor) != identity)
    }
}
