import Foundation
import Synchronization
import ZeroMQ

/// The benchmark's consumer: a SUB thread that counts result events (`match`/`nomatch`, or the raw echo's
/// replies) and notes when each arrived.
final class ResultCounter: Sendable {
    let endpoint: String
    let prefix: String
    let expected: Int
    let probeSeen = Atomic<Bool>(false)
    let subscribed = Atomic<Bool>(false)
    /// Arrival times of results by session, in order.
    let arrivals = Mutex<[String: [UInt64]]>([:])
    let count = Atomic<Int>(0)
    let last = Atomic<UInt64>(0)
    /// CPU time of the receive loop's thread in nanoseconds, once `run` returned.
    let cpuNanoseconds = Atomic<UInt64>(0)
    /// Whether `run` returned (all results in, nothing for its idle time, or an error).
    let finished = Atomic<Bool>(false)
    let recordArrivals: Bool
    /// Connect as a CURVE client (`--curve`).
    let curve: BenchCurve?

    init(endpoint: String, prefix: String, expected: Int, recordArrivals: Bool, curve: BenchCurve? = nil) {
        self.curve = curve
        self.endpoint = endpoint
        self.prefix = prefix
        self.expected = expected
        self.recordArrivals = recordArrivals
    }

    static let probePrefix = "zz-probe-"

    /// The receive loop; returns when `expected` results arrived or nothing came for `idleSeconds`.
    func run(context: ZMQContext, idleSeconds: Int32 = 30) throws {
        let cpuBefore = BenchClock.threadCPUSeconds()
        defer {
            let spent = max(0, BenchClock.threadCPUSeconds() - cpuBefore)
            cpuNanoseconds.store(UInt64(spent * 1e9), ordering: .releasing)
            finished.store(true, ordering: .releasing)
        }
        let socket = try ZMQSocket(context, .sub)
        try curve?.client(socket)
        try socket.setHighWaterMarks(receive: 0)
        try socket.subscribe(prefix)
        try socket.subscribe(Self.probePrefix)
        try socket.connect(endpoint)
        subscribed.store(true, ordering: .releasing)
        let topic = ZMQMessage()
        let payload = ZMQMessage()
        try socket.setTimeouts(receive: 100)
        var idle: Int32 = 0
        var local = 0
        var times = [String: [UInt64]]()
        while local < expected {
            guard try socket.receive(into: topic) else {
                idle += 100
                if idle > idleSeconds * 1000 && probeSeen.load(ordering: .relaxed) { break }
                continue
            }
            idle = 0
            try socket.receive(into: payload)
            let now = BenchClock.now()
            let name = topic.bytes
            if name.starts(with: Self.probePrefix.utf8) {
                probeSeen.store(true, ordering: .releasing)
                continue
            }
            guard Self.isResult(payload.bytes) else { continue }
            local += 1
            if recordArrivals { times[String(decoding: name, as: UTF8.self), default: []].append(now) }
            count.store(local, ordering: .relaxed)
            last.store(now, ordering: .relaxed)
        }
        if recordArrivals { arrivals.withLock { $0 = times } }
    }

    /// Returns once `run` has: a producer that waits for this before it closes its connection keeps its last
    /// messages from being lost on their way (a peer that writes on a connection whose other end has closed gets a
    /// reset, and its system discards what it had not read yet).
    func waitUntilFinished() {
        while !finished.load(ordering: .acquiring) { usleep(1000) }
    }

    /// A worker `match`/`nomatch` event, or the raw echo's one-byte reply.
    static func isResult(_ bytes: UnsafeRawBufferPointer) -> Bool {
        if bytes.count == 1 { return true }
        // The event name comes right after `{"v":1,"event":"`.
        let head = bytes.prefix(24)
        return head.starts(with: #"{"v":1,"event":"match""#.utf8)
            || head.starts(with: #"{"v":1,"event":"nomatch""#.utf8)
    }

    /// Sends pings for a probe session through `producer` until this consumer has seen an answer come back.
    func waitUntilSubscribed(_ producer: BenchProducer) throws {
        while !subscribed.load(ordering: .acquiring) { usleep(1000) }
        // A sharded worker, or one with several lanes, subscribes bucket by bucket: messages sent before a
        // bucket's subscription arrives would be dropped by the producer's socket.
        try producer.waitForAllBuckets()
        // A ping for a probe session whose shard key is right: the worker answers with a pong (the raw echo
        // answers anything that is not binary).
        let session = "\(Self.probePrefix)\(UInt32.random(in: 0...UInt32.max))"
        let probeTopic = Array(StrokeProtocolTopics.topic(session).utf8)
        for _ in 0..<500 {
            try producer.socket.sendMultipart([probeTopic, Array(#"{"type":"ping"}"#.utf8)])
            usleep(20_000)
            if probeSeen.load(ordering: .acquiring) { return }
        }
        throw BenchError("the receiver never answered a probe")
    }
}
