import Foundation
import Testing

@testable import ZeroMQ

@Suite("ZMQSocketMonitor: connection events of real sockets on 127.0.0.1")
struct ZMQSocketMonitorTests {
    /// Events read from `monitor` until one of kind `kind` arrives (at most 10 s), that one included.
    static func events(
        from monitor: ZMQSocketMonitor, until kind: ZMQSocketMonitor.Event.Kind
    ) throws -> [ZMQSocketMonitor.Event] {
        var seen: [ZMQSocketMonitor.Event] = []
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            var poller = ZMQPoller(readable: [monitor.socket])
            guard try poller.poll(timeoutMilliseconds: 100) > 0 else { continue }
            while let event = try monitor.receive() {
                seen.append(event)
                if event.kind == kind { return seen }
            }
        }
        Issue.record("no \(kind) within 10 s; saw \(seen.map(\.kind))")
        return seen
    }

    /// A TCP port on 127.0.0.1 that nothing listens on (bound once by a socket that is gone).
    static func freeEndpoint(_ context: ZMQContext) throws -> String {
        let probe = try ZMQSocket(context, .pub)
        try probe.bind("tcp://127.0.0.1:*")
        return probe.lastEndpoint
    }

    @Test("a connect endpoint: retried while nothing listens, then connected and handshaken, then lost")
    func connectingSide() throws {
        let context = try ZMQContext()
        let endpoint = try Self.freeEndpoint(context)
        let subscriber = try ZMQSocket(context, .sub)
        try subscriber.setLinger(milliseconds: 0)
        let monitor = try ZMQSocketMonitor(context, address: "inproc://monitor-connecting")
        try subscriber.startMonitor(
            monitor.address,
            events: ZMQSocketMonitor.mask([.connectRetried, .connected, .handshakeSucceeded, .disconnected]))
        try subscriber.connect(endpoint)
        let retried = try Self.events(from: monitor, until: .connectRetried)
        #expect(retried.last?.endpoint == endpoint)
        #expect(retried.last.map { $0.value > 0 } == true, "the value is the interval before the next attempt")

        var publisher: ZMQSocket? = try ZMQSocket(context, .pub)
        try publisher?.setLinger(milliseconds: 0)
        try publisher?.bind(endpoint)
        let connected = try Self.events(from: monitor, until: .handshakeSucceeded)
        #expect(connected.map(\.kind).contains(.connected))
        #expect(connected.last?.endpoint == endpoint)

        publisher = nil
        let lost = try Self.events(from: monitor, until: .disconnected)
        #expect(lost.last?.endpoint == endpoint)
        subscriber.stopMonitor()
        let stopped = try Self.events(from: monitor, until: .monitorStopped)
        #expect(stopped.last?.kind == .monitorStopped, "the last event after stopMonitor")
    }

    @Test("a bound endpoint: a peer accepted, then its connection ended; only the events asked for")
    func boundSide() throws {
        let context = try ZMQContext()
        let publisher = try ZMQSocket(context, .xpub)
        try publisher.setLinger(milliseconds: 0)
        let monitor = try ZMQSocketMonitor(context, address: "inproc://monitor-bound")
        try publisher.startMonitor(monitor.address, events: ZMQSocketMonitor.mask([.accepted, .disconnected]))
        try publisher.bind("tcp://127.0.0.1:*")
        let endpoint = publisher.lastEndpoint
        var subscriber: ZMQSocket? = try ZMQSocket(context, .sub)
        try subscriber?.setLinger(milliseconds: 0)
        try subscriber?.connect(endpoint)
        let accepted = try Self.events(from: monitor, until: .accepted)
        #expect(accepted.map(\.kind) == [.accepted], "no listening event: it was not asked for")
        #expect(accepted.last?.endpoint == endpoint)
        subscriber = nil
        let ended = try Self.events(from: monitor, until: .disconnected)
        #expect(ended.map(\.kind) == [.disconnected])
    }

    @Test("a socket closed while monitored stops its events first: the reader gets monitor_stopped, nothing blocks")
    func closingStopsTheMonitor() throws {
        let context = try ZMQContext()
        let monitor = try ZMQSocketMonitor(context, address: "inproc://monitor-closing")
        do {
            let socket = try ZMQSocket(context, .sub)
            try socket.startMonitor(monitor.address, events: ZMQSocketMonitor.mask([.connectRetried]))
            try socket.connect(try Self.freeEndpoint(context))
            _ = try Self.events(from: monitor, until: .connectRetried)
        }
        let stopped = try Self.events(from: monitor, until: .monitorStopped)
        #expect(stopped.last?.kind == .monitorStopped)
    }

    @Test("event kinds have libzmq's names")
    func names() {
        #expect("\(ZMQSocketMonitor.Event.Kind.connectRetried)" == "connect_retried")
        #expect("\(ZMQSocketMonitor.Event.Kind.handshakeFailedAuthentication)" == "handshake_failed_auth")
        #expect("\(ZMQSocketMonitor.Event.Kind(rawValue: 0x8000))" == "event_32768")
        #expect(ZMQSocketMonitor.Event.Kind.handshakeFailedProtocol.isHandshakeFailure)
        #expect(!ZMQSocketMonitor.Event.Kind.disconnected.isHandshakeFailure)
    }
}
