import Testing
import ZeroMQ

@testable import StrokeWorker

@Suite("ConnectionTracker: connection events to counts and log records")
struct ConnectionTrackerTests {
    typealias Event = ZMQSocketMonitor.Event

    static let proxy = "tcp://proxy:5555"
    static let bound = "tcp://0.0.0.0:5556"
    let start = ContinuousClock.now

    /// Feeds `kind` events for `endpoint` at `seconds` after `start`; returns the record.
    func feed(
        _ tracker: inout ConnectionTracker, _ kind: Event.Kind, _ endpoint: String = proxy, value: UInt32 = 0,
        role: ConnectionTracker.Role = .input, at seconds: Double
    ) -> ConnectionTracker.Record? {
        tracker.handle(
            Event(kind: kind, value: value, endpoint: endpoint), role: role, at: start + .milliseconds(seconds * 1000))
    }

    @Test("an endpoint that does not answer: warned at the first failure, reminded each minute, its end logged")
    func outage() {
        var tracker = ConnectionTracker()
        #expect(feed(&tracker, .connectDelayed, at: 0) == nil)
        let first = feed(&tracker, .connectRetried, value: 100, at: 0.1)
        #expect(first?.level == .warning)
        #expect(first?.message == "input cannot connect yet; trying again")
        #expect(first?.metadata == ["endpoint": Self.proxy, "retryMilliseconds": "100"])
        for attempt in 2...599 {
            #expect(feed(&tracker, .connectRetried, at: 0.1 * Double(attempt)) == nil, "attempt \(attempt)")
        }
        let reminder = feed(&tracker, .connectRetried, at: 60.1)
        #expect(reminder?.message == "input still not connected")
        #expect(reminder?.metadata == ["endpoint": Self.proxy, "seconds": "60.1", "attempts": "600"])
        #expect(feed(&tracker, .connectRetried, at: 61) == nil, "the next reminder a minute later")
        #expect(feed(&tracker, .connected, at: 62) == nil, "connected is logged after the handshake")
        let up = feed(&tracker, .handshakeSucceeded, at: 62.5)
        #expect(up?.level == .info)
        #expect(up?.message == "input connected")
        #expect(up?.metadata == ["endpoint": Self.proxy, "afterSeconds": "62.5", "attempts": "601"])
        #expect(tracker.counts.connectRetries == 601)
        #expect(tracker.counts.connections == [.input: 1])
    }

    @Test("a first connection that works at once is logged without an outage's fields")
    func firstConnection() {
        var tracker = ConnectionTracker()
        #expect(feed(&tracker, .connected, role: .output, at: 0) == nil)
        let up = feed(&tracker, .handshakeSucceeded, role: .output, at: 0.01)
        #expect(up?.message == "output connected")
        #expect(up?.metadata == ["endpoint": Self.proxy])
        #expect(tracker.counts.connections == [.output: 1])
    }

    @Test("a connection lost is warned once; reconnected, logged with its length")
    func lost() {
        var tracker = ConnectionTracker()
        _ = feed(&tracker, .connected, at: 0)
        _ = feed(&tracker, .handshakeSucceeded, at: 0)
        let down = feed(&tracker, .disconnected, at: 10)
        #expect(down?.level == .warning)
        #expect(down?.message == "input connection lost; connecting again")
        #expect(feed(&tracker, .connectRetried, at: 10.2) == nil, "the loss was warned already")
        #expect(feed(&tracker, .connected, at: 13) == nil)
        let up = feed(&tracker, .handshakeSucceeded, at: 13)
        #expect(up?.metadata == ["endpoint": Self.proxy, "afterSeconds": "3.0", "attempts": "1"])
        #expect(tracker.counts.disconnections == 1)
        #expect(tracker.counts.connections == [.input: 1])
    }

    @Test("peers of a bound endpoint are counted, not logged, and the count never goes below 0")
    func boundPeers() {
        var tracker = ConnectionTracker()
        for index in 0..<3 { #expect(feed(&tracker, .accepted, Self.bound, at: Double(index)) == nil) }
        #expect(feed(&tracker, .handshakeSucceeded, Self.bound, at: 3) == nil)
        #expect(feed(&tracker, .handshakeFailedProtocol, Self.bound, at: 3) == nil, "a probe: counted only")
        #expect(tracker.counts.connections == [.input: 3])
        for index in 0..<4 { #expect(feed(&tracker, .disconnected, Self.bound, at: 4 + Double(index)) == nil) }
        #expect(tracker.counts.connections == [.input: 0])
        #expect(tracker.counts.disconnections == 4)
        #expect(tracker.counts.handshakesFailed == 1)
    }

    @Test("failed handshakes with a proxy: warned with the reason, then once a minute with what was not logged")
    func handshakeFailures() {
        var tracker = ConnectionTracker()
        _ = feed(&tracker, .connected, at: 0)
        let closed = feed(&tracker, .handshakeFailedNoDetail, value: 32, at: 0.1)
        #expect(closed?.level == .warning)
        #expect(closed?.message == "input handshake failed")
        #expect(
            closed?.metadata["reason"]?.hasPrefix("the connection ended during the handshake (Broken pipe)") == true)
        for step in 1...9 {
            #expect(feed(&tracker, .handshakeFailedNoDetail, value: 32, at: 0.1 + Double(step)) == nil)
        }
        let again = feed(&tracker, .handshakeFailedNoDetail, value: 104, at: 61)
        #expect(again?.metadata["failuresNotLogged"] == "9")
        #expect(tracker.counts.handshakesFailed == 11)
    }

    @Test("a refused key or a protocol error: an error with what to do, each endpoint connected again after 1 s")
    func terminalHandshakeFailures() {
        var tracker = ConnectionTracker()
        _ = feed(&tracker, .connected, at: 0)
        let refused = feed(&tracker, .handshakeFailedAuthentication, value: 400, at: 0.1)
        #expect(refused?.level == .error)
        #expect(refused?.message == "input handshake failed; connecting again later")
        #expect(refused?.metadata["reason"] == "the peer refused this side's key (ZAP status 400)")
        #expect(refused?.metadata["retrySeconds"] == "1.0")
        #expect(refused?.metadata["action"]?.contains("up to 30.0 s") == true)
        _ = feed(&tracker, .connected, role: .output, at: 1)
        let protocolError = feed(&tracker, .handshakeFailedProtocol, value: 0x1000_0000, role: .output, at: 1.1)
        #expect(protocolError?.level == .error)
        #expect(protocolError?.metadata["reason"]?.hasPrefix("protocol error") == true)
        #expect(tracker.counts.handshakesFailed == 2)
        #expect(tracker.unconnected == ["input \(Self.proxy)", "output \(Self.proxy)"])
        #expect(tracker.takeDueRetries(at: start + .milliseconds(1099)).isEmpty, "the input's back-off not over")
        let input = tracker.takeDueRetries(at: start + .milliseconds(1100))
        #expect(input.map(\.role) == [.input] && input.map(\.endpoint) == [Self.proxy])
        #expect(tracker.takeDueRetries(at: start + .milliseconds(1100)).isEmpty, "asked for once")
        let output = tracker.takeDueRetries(at: start + .seconds(5))
        #expect(output.map(\.role) == [.output] && output.map(\.endpoint) == [Self.proxy])
    }

    @Test("a connection that ends before its handshake, with no handshake event: a peer of the wrong socket type")
    func endedBeforeHandshake() {
        var tracker = ConnectionTracker()
        _ = feed(&tracker, .connectDelayed, at: 0)
        #expect(feed(&tracker, .connected, at: 0) == nil)
        let ended = feed(&tracker, .disconnected, at: 0)
        #expect(ended?.level == .warning)
        #expect(ended?.message == "input connection ended before its handshake; connecting again later")
        #expect(ended?.metadata["reason"]?.contains("input needs a PUB or XPUB socket") == true)
        #expect(ended?.metadata["retrySeconds"] == "1.0")
        #expect(tracker.counts.handshakesFailed == 1)
        #expect(tracker.unconnected == ["input \(Self.proxy)"])
        // libzmq gave the endpoint up: the worker connects again, and again after twice as long; logged once a minute.
        #expect(tracker.takeDueRetries(at: start + .seconds(1)).map(\.endpoint) == [Self.proxy])
        _ = feed(&tracker, .connected, at: 1)
        #expect(feed(&tracker, .disconnected, at: 1) == nil, "not logged again within the minute")
        #expect(tracker.takeDueRetries(at: start + .milliseconds(2999)).isEmpty)
        #expect(tracker.takeDueRetries(at: start + .seconds(3)).map(\.endpoint) == [Self.proxy])
        // The right peer there at last.
        _ = feed(&tracker, .connected, at: 3)
        let up = feed(&tracker, .handshakeSucceeded, at: 3)
        #expect(up?.message == "input connected")
        #expect(up?.metadata["attempts"] == "2")
        // A connection lost after its handshake is a loss, not a failed handshake; libzmq connects again itself.
        #expect(feed(&tracker, .disconnected, at: 4)?.message == "input connection lost; connecting again")
        #expect(tracker.takeDueRetries(at: start + .seconds(100)).isEmpty)
        #expect(tracker.counts.handshakesFailed == 2)
    }

    @Test("a failed handshake that libzmq reports is logged once, not again as a connection ended before it")
    func reportedHandshakeFailureThenDisconnect() {
        var tracker = ConnectionTracker()
        _ = feed(&tracker, .connected, at: 0)
        #expect(feed(&tracker, .handshakeFailedNoDetail, value: 32, at: 0)?.message == "input handshake failed")
        #expect(feed(&tracker, .disconnected, at: 0) == nil)
        #expect(tracker.takeDueRetries(at: start + .seconds(60)).isEmpty, "libzmq connects again itself")
        _ = feed(&tracker, .connected, role: .output, at: 1)
        _ = feed(&tracker, .handshakeFailedAuthentication, value: 400, role: .output, at: 1)
        #expect(feed(&tracker, .disconnected, role: .output, at: 1) == nil)
        #expect(tracker.counts.handshakesFailed == 2)
    }

    @Test("without retries, a connection ended before its handshake is warned of, and left as libzmq leaves it")
    func endedBeforeHandshakeWithoutRetries() {
        var tracker = ConnectionTracker(retryLimit: nil)
        _ = feed(&tracker, .connected, role: .output, at: 0)
        let ended = feed(&tracker, .disconnected, role: .output, at: 0)
        #expect(ended?.message == "output connection ended before its handshake")
        #expect(ended?.metadata["reason"]?.contains("output needs a SUB or XSUB socket") == true)
        #expect(tracker.takeDueRetries(at: start + .seconds(3600)).isEmpty)
    }

    @Test("an endpoint refused again waits twice as long each time up to the limit; a handshake ends the back-off")
    func retryBackoff() {
        var tracker = ConnectionTracker(retryLimit: .seconds(5))
        var now = 0.0
        var waits: [Double] = []
        for _ in 0..<5 {
            _ = feed(&tracker, .connected, at: now)
            _ = feed(&tracker, .handshakeFailedAuthentication, value: 400, at: now)
            var due = now
            while tracker.takeDueRetries(at: start + .milliseconds(due * 1000)).isEmpty { due += 0.5 }
            waits.append(due - now)
            now = due
        }
        #expect(waits == [1, 2, 4, 5, 5])
        _ = feed(&tracker, .connected, at: now)
        let up = feed(&tracker, .handshakeSucceeded, at: now + 0.1)
        #expect(up?.message == "input connected")
        #expect(up?.metadata["attempts"] == "5", "each connection made again is an attempt")
        #expect(tracker.unconnected.isEmpty)
        _ = feed(&tracker, .disconnected, at: now + 1)
        let refused = feed(&tracker, .handshakeFailedAuthentication, value: 400, at: now + 90)
        #expect(refused?.metadata["retrySeconds"] == "1.0", "the back-off starts again after a handshake")
        #expect(refused?.metadata["failuresNotLogged"] == "4", "one record a minute")
    }

    @Test("without retries (--handshake-retry 0) a given-up endpoint stays given up, as libzmq leaves it")
    func noRetries() {
        var tracker = ConnectionTracker(retryLimit: nil)
        _ = feed(&tracker, .connected, at: 0)
        let refused = feed(&tracker, .handshakeFailedAuthentication, value: 400, at: 0.1)
        #expect(refused?.message == "input handshake failed; not connecting again")
        #expect(refused?.metadata["action"]?.contains("restart") == true)
        #expect(tracker.takeDueRetries(at: start + .seconds(3600)).isEmpty)
        #expect(tracker.unconnected == ["input \(Self.proxy)"])
    }

    @Test("failures to accept: warned with the system's error, then at most once a minute per endpoint")
    func acceptFailures() {
        var tracker = ConnectionTracker()
        let first = feed(&tracker, .acceptFailed, Self.bound, value: 24, at: 0)
        #expect(first?.message == "input could not accept a connection")
        #expect(first?.metadata == ["endpoint": Self.bound, "error": "Too many open files"])
        #expect(feed(&tracker, .acceptFailed, Self.bound, value: 24, at: 1) == nil)
        #expect(feed(&tracker, .acceptFailed, Self.bound, value: 24, role: .output, at: 1) != nil, "another role")
        let later = feed(&tracker, .acceptFailed, Self.bound, value: 24, at: 60)
        #expect(later?.metadata["failuresNotLogged"] == "1")
        #expect(tracker.counts.acceptFailures == 4)
    }

    @Test(
        "unconnected: endpoints connected to count from before their first event until a handshake, and again once lost"
    )
    func unconnected() {
        var tracker = ConnectionTracker()
        tracker.expect(Self.proxy, role: .input, at: start)
        tracker.expect(Self.proxy, role: .output, at: start)
        #expect(tracker.unconnected == ["input \(Self.proxy)", "output \(Self.proxy)"])
        _ = feed(&tracker, .accepted, Self.bound, at: 0)
        _ = feed(&tracker, .handshakeSucceeded, Self.bound, at: 0)
        _ = feed(&tracker, .connected, at: 0.1)
        #expect(tracker.unconnected.count == 2, "a bound endpoint's peers change nothing; connected is not enough")
        _ = feed(&tracker, .handshakeSucceeded, at: 0.1)
        #expect(tracker.unconnected == ["output \(Self.proxy)"])
        let up = feed(&tracker, .handshakeSucceeded, role: .output, at: 0.2)
        #expect(up?.metadata == ["endpoint": Self.proxy], "expected, then connected at once: no outage's fields")
        #expect(tracker.unconnected.isEmpty)
        _ = feed(&tracker, .disconnected, role: .output, at: 5)
        #expect(tracker.unconnected == ["output \(Self.proxy)"])
    }

    @Test("seconds are shown with a tenth")
    func secondsText() {
        #expect(Duration.milliseconds(62_549).secondsText == "62.5")
        #expect(Duration.zero.secondsText == "0.0")
    }
}
