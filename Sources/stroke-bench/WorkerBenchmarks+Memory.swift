import Foundation
import StrokeRecognition
import ZeroMQ

extension WorkerBenchmarks {
    // MARK: - Memory

    /// Resident memory of a fresh worker with no session, then with `count` idle sessions.
    func memory(sessions count: Int) async throws -> Memory {
        let worker = try startWorker(["--idle-timeout", "3600"])
        defer { _ = worker.terminate() }
        let (input, output) = try worker.workerEndpoints()
        let context = self.context
        // Warm up with a handful of strokes so that the empty figure includes the code paths' own memory.
        let warm = Traffic.make(
            strokes: strokes, sessions: 16, pointsPerMessage: 8, encoding: .binary, messages: 2000, prefix: "warm-")
        let counter = ResultCounter(endpoint: output, prefix: "warm-", expected: warm.ends.count, recordArrivals: false)
        async let consumer: Void = onThread { try counter.run(context: context, idleSeconds: 10) }
        try await onThread {
            let producer = try BenchProducer(context: context, endpoint: input)
            try counter.waitUntilSubscribed(producer)
            try producer.sendAll(warm)
        }
        try await consumer
        try await Task.sleep(for: .milliseconds(300))
        let empty = worker.residentBytes()
        let done = ResultCounter(endpoint: output, prefix: "idle-end", expected: 1, recordArrivals: false)
        async let finished: Void = onThread { try done.run(context: context, idleSeconds: 30) }
        try await onThread {
            let producer = try BenchProducer(context: context, endpoint: input)
            try done.waitUntilSubscribed(producer)
            let options = Array(#"{"type":"options","seq":1,"checkmark":true}"#.utf8)
            for k in 0..<count {
                try producer.socket.sendMultipart([Array(StrokeProtocolTopics.topic("idle-\(k)").utf8), options])
            }
            // A one-point stroke after them: its result means every session before it exists (one lane, in order).
            let end = Array(StrokeProtocolTopics.topic("idle-end").utf8)
            try producer.socket.sendMultipart([
                end, Array(#"{"type":"begin","seq":1,"stroke":1,"points":[[1,1,1]]}"#.utf8),
            ])
            try producer.socket.sendMultipart([end, Array(#"{"type":"end","seq":2,"stroke":1}"#.utf8)])
        }
        try await finished
        try await Task.sleep(for: .milliseconds(300))
        let loaded = worker.residentBytes()
        return Memory(
            idleSessions: count, residentBytesEmpty: empty, residentBytesLoaded: loaded,
            bytesPerSession: Double(loaded - empty) / Double(count))
    }
}
