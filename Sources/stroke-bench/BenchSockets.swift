import Foundation
import StrokeWorker
import ZeroMQ

/// The benchmark's producer: an XPUB with ZMQ_XPUB_NODROP and blocking sends, so nothing is lost; it waits
/// for the receiver's subscription before the first message.
final class BenchProducer {
    let socket: ZMQSocket
    /// Subscription messages received so far.
    var subscriptions: [[UInt8]] = []
    /// CPU time (seconds) the sending thread spent in `sendAll`.
    private(set) var cpuSeconds = 0.0

    /// `curve`: connect as a CURVE client of the receiver (`--curve`).
    init(context: ZMQContext, endpoint: String, curve: BenchCurve? = nil) throws {
        socket = try ZMQSocket(context, .xpub)
        try curve?.client(socket)
        try socket.setHighWaterMarks(send: 100_000)
        try socket.setNoDrop(true)
        try socket.setLinger(milliseconds: 5000)
        try socket.connect(endpoint)
        try socket.setTimeouts(receive: 20_000)
        guard let first = try socket.receiveMultipart()?.first else { throw BenchError("no subscriber at \(endpoint)") }
        subscriptions.append(first)
    }

    /// Sends every message as fast as possible; returns the time of the first send.
    @discardableResult
    func sendAll(_ traffic: Traffic, range: Range<Int>? = nil) throws -> UInt64 {
        let cpuBefore = BenchClock.threadCPUSeconds()
        defer { cpuSeconds += BenchClock.threadCPUSeconds() - cpuBefore }
        let started = BenchClock.now()
        for index in range ?? 0..<traffic.count {
            try send(traffic, index)
        }
        return started
    }

    @inline(__always)
    func send(_ traffic: Traffic, _ index: Int) throws {
        try traffic.topics[index].withUnsafeBytes { topic in
            while try !socket.send(topic, more: true) {}
        }
        try traffic.payloads[index].withUnsafeBytes { payload in
            while try !socket.send(payload) {}
        }
    }
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    /// Whether the command line is at fault (exit status 2, as a bad option gets), not a run (1).
    var isUsage = false
    init(_ description: String) { self.description = description }

    /// An option's value that no run could use, found before any section runs.
    static func usage(_ description: String) -> Self {
        var error = Self(description)
        error.isUsage = true
        return error
    }
}

/// Runs blocking socket code on a dedicated thread.
func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await ThreadRunner.run(name: "stroke-bench", body)
}
