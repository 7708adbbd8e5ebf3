import Testing
import ZeroMQ

@testable import StrokeWorker

@Suite("SubscriptionLedger: a consumer holding too many subscriptions is cut, what it let go is not counted")
struct SubscriptionLedgerTests {
    static let first = ZMQConnection.Identity(device: 1, inode: 42)
    static let second = ZMQConnection.Identity(device: 1, inode: 43)
    static let overhead = SubscriptionLedger.overheadBytes

    /// A subscription (`subscribe`) or unsubscription message for `prefix`.
    static func message(_ prefix: String, subscribe: Bool = true) -> [UInt8] {
        [subscribe ? 1 : 0] + Array(prefix.utf8)
    }

    /// Feeds `message` to `ledger` as having come on `descriptor`, holding `identity`; every descriptor is current.
    static func read(
        _ ledger: inout SubscriptionLedger, _ message: [UInt8], descriptor: Int32 = 7,
        identity: ZMQConnection.Identity = first
    ) -> SubscriptionLedger.Cut? {
        message.withUnsafeBytes { bytes in
            ledger.read(bytes, descriptor: descriptor, identity: identity) { _, _ in true }
        }
    }

    @Test("distinct prefixes add up, each as its bytes and the overhead; past the limit the connection is cut")
    func cutPastTheLimit() {
        // Room for three prefixes of 10 bytes, not four.
        var ledger = SubscriptionLedger(limit: 3 * (10 + Self.overhead) + 5)
        for index in 0..<3 {
            #expect(Self.read(&ledger, Self.message("session-0\(index)")) == nil)
        }
        #expect(ledger.heldBytes(descriptor: 7) == 3 * (10 + Self.overhead))
        let cut = Self.read(&ledger, Self.message("session-03"))
        #expect(cut == .init(descriptor: 7, identity: Self.first, heldBytes: 4 * (10 + Self.overhead)))
        // Emptied once cut (libzmq drops the connection's subscriptions with it); what libzmq had queued from the
        // connection before the cut is passed over, and cuts it no second time.
        #expect(ledger.heldBytes(descriptor: 7) == nil)
        for index in 4..<20 { #expect(Self.read(&ledger, Self.message("session-\(index)")) == nil) }
        // Its descriptor given to a new connection, that one starts afresh.
        #expect(Self.read(&ledger, Self.message("session-00"), identity: Self.second) == nil)
        #expect(ledger.heldBytes(descriptor: 7) == 10 + Self.overhead)
    }

    @Test("a prefix subscribed again is held once, as libzmq holds it; one unsubscription lets it go")
    func duplicates() {
        var ledger = SubscriptionLedger(limit: 2 * (1 + Self.overhead))
        for _ in 0..<100 { #expect(Self.read(&ledger, Self.message("a")) == nil) }
        #expect(ledger.heldBytes(descriptor: 7) == 1 + Self.overhead)
        #expect(Self.read(&ledger, Self.message("a", subscribe: false)) == nil)
        #expect(ledger.heldBytes(descriptor: 7) == 0)
        // An unsubscription of a prefix never held changes nothing.
        #expect(Self.read(&ledger, Self.message("b", subscribe: false)) == nil)
        #expect(ledger.heldBytes(descriptor: 7) == 0)
        // A consumer that comes and goes through many sessions, one at a time, is never cut.
        for index in 0..<10_000 {
            #expect(Self.read(&ledger, Self.message("session-\(index)")) == nil)
            #expect(Self.read(&ledger, Self.message("session-\(index)", subscribe: false)) == nil)
        }
        #expect(ledger.heldBytes(descriptor: 7) == 0)
    }

    @Test("connections are counted apart; the empty prefix (everything) counts its overhead")
    func connectionsApart() {
        var ledger = SubscriptionLedger(limit: 2 * (2 + Self.overhead))
        #expect(Self.read(&ledger, Self.message("")) == nil)
        #expect(Self.read(&ledger, Self.message("ab")) == nil)
        #expect(Self.read(&ledger, Self.message("ab"), descriptor: 8, identity: Self.second) == nil)
        #expect(Self.read(&ledger, Self.message("cd"), descriptor: 8, identity: Self.second) == nil)
        #expect(ledger.heldBytes(descriptor: 7) == 2 + 2 * Self.overhead)
        #expect(ledger.heldBytes(descriptor: 8) == 2 * (2 + Self.overhead))
        let cut = Self.read(&ledger, Self.message("ef"), descriptor: 8, identity: Self.second)
        #expect(cut?.descriptor == 8)
        #expect(ledger.heldBytes(descriptor: 7) == 2 + 2 * Self.overhead)
        #expect(ledger.heldBytes(descriptor: 8) == nil)
    }

    @Test("a descriptor given to a new connection starts a new account")
    func descriptorReused() {
        var ledger = SubscriptionLedger(limit: 2 * (2 + Self.overhead))
        #expect(Self.read(&ledger, Self.message("ab")) == nil)
        #expect(Self.read(&ledger, Self.message("cd")) == nil)
        // The first connection ended (its unsubscriptions carried no descriptor); another has number 7 now.
        #expect(Self.read(&ledger, Self.message("ef"), identity: Self.second) == nil)
        #expect(ledger.heldBytes(descriptor: 7) == 2 + Self.overhead)
        // Its first message an unsubscription: nothing held, nothing kept.
        #expect(Self.read(&ledger, Self.message("gh", subscribe: false), identity: Self.first) == nil)
        #expect(ledger.descriptors.isEmpty)
    }

    @Test("accounts of connections that ended are swept once the ledger holds many")
    func sweep() {
        var ledger = SubscriptionLedger(limit: 1 << 20)
        let count = Int32(SubscriptionLedger.smallestSweep)
        for descriptor in 0..<count {
            #expect(Self.read(&ledger, Self.message("x"), descriptor: descriptor) == nil)
        }
        #expect(ledger.descriptors.count == Int(count))
        // All but descriptor 3 have ended: the next new account sweeps them.
        var asked: [Int32] = []
        let cut = Self.message("y").withUnsafeBytes { bytes in
            ledger.read(bytes, descriptor: 100, identity: Self.second) { descriptor, _ in
                asked.append(descriptor)
                return descriptor == 3
            }
        }
        #expect(cut == nil)
        #expect(asked.sorted() == Array(0..<count))
        #expect(ledger.descriptors == [3, 100])
        // A known descriptor's message sweeps nothing.
        asked = []
        _ = Self.message("z").withUnsafeBytes { bytes in
            ledger.read(bytes, descriptor: 3, identity: Self.first) { descriptor, _ in
                asked.append(descriptor)
                return false
            }
        }
        #expect(asked.isEmpty)
    }

    @Test("a message that is not a subscription (no flag byte, or another flag) is ignored")
    func notSubscriptions() {
        var ledger = SubscriptionLedger(limit: 10)
        #expect(Self.read(&ledger, []) == nil)
        #expect(Self.read(&ledger, [2] + Array("ab".utf8)) == nil)
        #expect(ledger.descriptors.isEmpty)
    }
}
