import Foundation
import StrokeProtocol
import StrokeRecognition
import StrokeWorker
import ZeroMQ

/// What the Swift producers send: strokes a second through `StrokeProducer` on a thread of its own, and through
/// `AsyncStrokeProducer` from one task awaiting each call and from eight at once, into a SUB socket in this process
/// that counts every message (inproc, so that only the producer's side is measured).
enum ProducerBenchmark {
    struct Row: Codable, Sendable {
        /// `sync` (`StrokeProducer`) or `async` (`AsyncStrokeProducer`).
        var producer: String
        /// Tasks sending at once (1 for `sync`: its one thread).
        var tasks: Int
        var strokesPerSecond: Double
        var messagesPerSecond: Double
    }

    /// A stroke of 40 points, sent as `begin` with the first, `points` of 32 and of 7, and `end`.
    static let stroke = (0..<40).map { WirePoint(x: Double($0), y: Double($0 % 10), t: Double($0) * 10) }
    /// Messages per stroke.
    static let messagesPerStroke = 4

    static func run(quick: Bool, rounds: Int) async throws -> [Row] {
        let strokes = quick ? 20_000 : 100_000
        var rows = [Row]()
        for (producer, tasks) in [("sync", 1), ("async", 1), ("async", 8)] {
            var rates = [Double]()
            for _ in 0..<max(rounds, 1) {
                let endpoint = "inproc://producer-bench-\(UUID().uuidString)"
                let context = try ZMQContext()
                async let received = count(context, endpoint, messages: strokes * messagesPerStroke)
                let seconds =
                    producer == "sync"
                    ? try await sendSync(context, endpoint, strokes: strokes)
                    : try await sendAsync(context, endpoint, strokes: strokes, tasks: tasks)
                guard try await received == strokes * messagesPerStroke else {
                    throw BenchError("producer: the counting socket missed messages")
                }
                rates.append(Double(strokes) / seconds)
            }
            let rate = rates.sorted()[rates.count / 2]
            rows.append(
                Row(
                    producer: producer, tasks: tasks, strokesPerSecond: rate,
                    messagesPerSecond: rate * Double(messagesPerStroke)))
        }
        return rows
    }

    /// A row as text.
    static func line(_ row: Row) -> String {
        let who =
            row.producer == "sync"
            ? "StrokeProducer, its own thread" : "AsyncStrokeProducer, \(String(counting: row.tasks, "task"))"
        return String(
            format: "producer: %@: %.0f strokes/s (%.0f messages/s)", who, row.strokesPerSecond, row.messagesPerSecond)
    }

    /// Counts `messages` messages on a SUB socket connected to `endpoint` (fewer if they stop for 5 s).
    private static func count(_ context: ZMQContext, _ endpoint: String, messages: Int) async throws -> Int {
        try await ThreadRunner.run(name: "bench-counter") {
            let socket = try ZMQSocket(context, .sub)
            try socket.setLinger(milliseconds: 0)
            try socket.setHighWaterMarks(receive: 0)
            try socket.setTimeouts(receive: 5000)
            try socket.connect(endpoint)
            try socket.subscribe("")
            var received = 0
            while received < messages, try socket.receiveMultipart() != nil { received += 1 }
            return received
        }
    }

    private static func configuration(_ endpoint: String) -> StrokeProducer.Configuration {
        .init(endpoints: [.init(bind: true, address: endpoint)], sendHighWaterMark: 0)
    }

    /// Seconds `StrokeProducer` takes to send `strokes` strokes on a thread of its own.
    private static func sendSync(_ context: ZMQContext, _ endpoint: String, strokes: Int) async throws -> Double {
        try await ThreadRunner.run(name: "bench-producer") {
            let producer = try StrokeProducer(configuration(endpoint), context: context)
            guard try producer.waitForAllBuckets(timeoutMilliseconds: 10_000) else {
                throw BenchError("producer: the counting socket did not subscribe")
            }
            let start = BenchClock.now()
            for index in 0..<strokes { try producer.sendStroke(stroke, session: "s/\(index % 1000)") }
            return Double(BenchClock.now() - start) / 1e9
        }
    }

    /// Seconds `AsyncStrokeProducer` takes to send `strokes` strokes from `tasks` tasks.
    private static func sendAsync(
        _ context: ZMQContext, _ endpoint: String, strokes: Int, tasks: Int
    ) async throws -> Double {
        let producer = try await AsyncStrokeProducer.connect(configuration(endpoint), context: context)
        guard try await producer.waitForAllBuckets(timeout: .seconds(10)) else {
            throw BenchError("producer: the counting socket did not subscribe")
        }
        let start = BenchClock.now()
        try await withThrowingDiscardingTaskGroup { group in
            for task in 0..<tasks {
                group.addTask {
                    for index in stride(from: task, to: strokes, by: tasks) {
                        try await producer.sendStroke(stroke, session: "s/\(index % 1000)")
                    }
                }
            }
        }
        return Double(BenchClock.now() - start) / 1e9
    }
}
