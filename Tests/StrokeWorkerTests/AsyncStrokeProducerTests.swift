import Foundation
import StrokeProtocol
import Synchronization
import Testing
import ZeroMQ

@testable import StrokeWorker

#if canImport(Glibc)
    import Glibc
#endif

@Suite("AsyncStrokeProducer", .serialized)
struct AsyncStrokeProducerTests {
    /// The threads of this process named `name` (`/proc/self/task/*/comm`).
    static func threads(named name: String) -> Int {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return tasks.filter { task in
            let comm = try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8)
            return comm?.trimmingCharacters(in: .whitespacesAndNewlines) == name
        }.count
    }

    /// An actor on a `ThreadExecutor`, that notes the thread each call ran on.
    actor Recorder {
        let executor: ThreadExecutor
        nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }
        var threads = Set<UInt>()
        var names = Set<String>()

        init(executor: ThreadExecutor) { self.executor = executor }

        isolated deinit { executor.finish() }

        func note() async {
            threads.insert(UInt(pthread_self()))
            let name = try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)
            names.insert(name?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "?")
            // A suspension point: the call comes back to the actor's thread after it.
            await Task.yield()
            threads.insert(UInt(pthread_self()))
        }
    }

    @Test("an actor on a ThreadExecutor runs every call, from any task, on the executor's one thread")
    func oneThread() async throws {
        weak var released: ThreadExecutor?
        do {
            let executor = ThreadExecutor(name: "test-executor")
            released = executor
            let recorder = Recorder(executor: executor)
            await withDiscardingTaskGroup { group in
                for _ in 0..<64 { group.addTask { await recorder.note() } }
            }
            #expect(await recorder.threads.count == 1)
            #expect(await recorder.names == ["test-executor"])
        }
        // Releasing the actor finishes the executor: its thread ends and lets it go.
        for _ in 0..<500 where released != nil { try await Task.sleep(for: .milliseconds(10)) }
        #expect(released == nil)
    }

    /// A SUB socket connected to `endpoint` in `context`, subscribed to everything, on a thread of its own: reads
    /// `count` messages (fewer if they stop coming for 5 s) and returns each as `topic kind seq stroke`.
    static func receive(_ context: ZMQContext, _ endpoint: String, count: Int) async throws -> [String] {
        try await ThreadRunner.run(name: "test-peer") {
            let peer = try ZMQSocket(context, .sub)
            try peer.setLinger(milliseconds: 0)
            try peer.setTimeouts(receive: 5000)
            try peer.connect(endpoint)
            try peer.subscribe("")
            var lines = [String]()
            while lines.count < count, let frames = try peer.receiveMultipart(), frames.count == 2 {
                let message = try InputDecoder().decode(frames[1])
                lines.append(
                    "\(String(decoding: frames[0], as: UTF8.self)) \(message.kind.name) \(message.sequence) "
                        + "\(message.stroke)")
            }
            return lines
        }
    }

    @Test("tasks sharing one producer: each stroke's messages go out together, each session's numbered in order")
    func sharedByTasks() async throws {
        let context = try ZMQContext()
        let endpoint = "inproc://async-producer-\(UUID().uuidString)"
        let producer = try await AsyncStrokeProducer.connect(
            .init(endpoints: [.init(bind: true, address: endpoint)]), context: context)
        let sessions = (0..<8).map { "room/\($0)" }
        // 40 points in batches of 8: begin, 5 messages, end; three strokes per session.
        let perStroke = 7
        async let received = Self.receive(context, endpoint, count: sessions.count * 3 * perStroke)
        #expect(try await producer.waitForAllBuckets(timeout: .seconds(10)))
        try await withThrowingDiscardingTaskGroup { group in
            for session in sessions {
                group.addTask {
                    for _ in 0..<3 {
                        try await producer.sendStroke(StrokeProducerTests.zigzag, session: session, batch: 8)
                    }
                }
            }
        }
        let lines = try await received
        #expect(lines.count == sessions.count * 3 * perStroke)
        // Runs of one stroke: seven messages of one topic, begin first and end last.
        for start in stride(from: 0, to: lines.count, by: perStroke) {
            let run = lines[start..<min(lines.count, start + perStroke)].map { $0.split(separator: " ") }
            #expect(Set(run.map { $0[0] }).count == 1 && Set(run.map { $0[3] }).count == 1)
            #expect(run.map { String($0[1]) } == ["begin"] + Array(repeating: "points", count: 5) + ["end"])
        }
        for session in sessions {
            let topic = ShardKey.topic(for: session)
            let numbers = lines.filter { $0.hasPrefix(topic + " ") }.map { $0.split(separator: " ")[2] }
            #expect(numbers == (1...(3 * perStroke)).map { Substring(String($0)) }, "session \(session)")
        }
    }

    @Test("waiting for subscriptions that never come: false at the timeout, CancellationError once cancelled")
    func waiting() async throws {
        let producer = try await AsyncStrokeProducer.connect(
            .init(endpoints: [.init(bind: true, address: "inproc://async-producer-\(UUID().uuidString)")]))
        #expect(try await producer.waitForAllBuckets(timeout: .milliseconds(50)) == false)
        let waiting = Task { try await producer.waitForAllBuckets(timeout: .seconds(60)) }
        try await Task.sleep(for: .milliseconds(50))
        // Meanwhile the actor answers other calls.
        #expect(try await producer.coveredBuckets() == 0)
        waiting.cancel()
        await #expect(throws: CancellationError.self) { try await waiting.value }
    }

    @Test("releasing the producer closes its socket and ends its thread")
    func release() async throws {
        // A thread name of this test's own: other suites' producers come and go meanwhile.
        let name = "test-release"
        do {
            let producer = try await AsyncStrokeProducer.connect(
                .init(endpoints: [.init(bind: true, address: "inproc://async-producer-\(UUID().uuidString)")]),
                context: nil, threadName: name)
            #expect(try await producer.coveredBuckets() == 0)
            // Its thread, and libzmq's (its context's own), which take the name of the thread that starts them
            // until they set theirs.
            #expect(Self.threads(named: name) >= 1)
        }
        for _ in 0..<500 where Self.threads(named: name) > 0 { try await Task.sleep(for: .milliseconds(10)) }
        #expect(Self.threads(named: name) == 0)
    }

    @Test("an endpoint libzmq refuses throws from connect")
    func refusedEndpoint() async throws {
        await #expect(throws: ZMQError.self) {
            _ = try await AsyncStrokeProducer.connect(.init(endpoints: [.init(bind: true, address: "nowhere://x")]))
        }
    }

    @Test("through a worker in process: sessions of concurrent tasks each get their match")
    func throughAWorker() async throws {
        let context = try ZMQContext()
        let check = try StrokeProducerTests.checkPoints()
        try await WorkerEventsTests.withInprocWorker(context, prefix: "swift-a") { input, _, events in
            let subscribed = WorkerEventsTests.Flag()
            async let received = WorkerEventsTests.collect(events, count: 8, subscribed: subscribed)
            let producer = try await AsyncStrokeProducer.connect(
                .init(endpoints: [.init(bind: false, address: input)]), context: context)
            #expect(try await producer.waitForAllBuckets(timeout: .seconds(10)))
            for _ in 0..<500 where !subscribed.value.load(ordering: .acquiring) {
                try await producer.ping(session: "swift-a/0")
                try await Task.sleep(for: .milliseconds(10))
            }
            try await withThrowingDiscardingTaskGroup { group in
                for index in 0..<4 {
                    group.addTask {
                        try await producer.setOptions(SessionOptions(checkmark: false), session: "swift-a/\(index)")
                        try await producer.sendStroke(check, session: "swift-a/\(index)", batch: 8)
                        try await producer.sendStroke(StrokeProducerTests.zigzag, session: "swift-a/\(index)")
                    }
                }
            }
            let got = try await received
            #expect(got.count == 8)
            for index in 0..<4 {
                let mine = got.filter { $0.session == "swift-a/\(index)" }
                #expect(mine.map(\.kind) == [.match, .match] || mine.map(\.kind) == [.match, .nomatch])
                #expect(mine.first?.name == "check" && mine.map(\.stroke) == [1, 2])
            }
        }
    }

    @Test("through a worker in process: a session the worker restarted is taught again when its event says so")
    func reteachThroughAWorker() async throws {
        let context = try ZMQContext()
        let zigzag = StrokeProducerTests.zigzag
        let line = Array(zigzag.prefix(10))
        try await WorkerEventsTests.withInprocWorker(context, prefix: "swift-r") { input, _, events in
            let producer = try await AsyncStrokeProducer.connect(
                .init(endpoints: [.init(bind: false, address: input)]), context: context)
            #expect(try await producer.waitForAllBuckets(timeout: .seconds(10)))
            let subscribed = WorkerEventsTests.Flag()
            let pinging = Task {
                for _ in 0..<500 where !subscribed.value.load(ordering: .acquiring) {
                    try await producer.ping(session: "swift-r")
                    try await Task.sleep(for: .milliseconds(10))
                }
            }
            defer { pinging.cancel() }
            let seen = try await WorkerEventsTests.bounded { () -> [String] in
                var seen = [String]()
                for try await event in events {
                    if event.kind == .pong {
                        guard !subscribed.value.exchange(true, ordering: .acquiringAndReleasing) else { continue }
                        // Subscribed: teach a gesture, then restart the session's numbering, as a producer that
                        // restarted would; the worker then forgets what the session learned.
                        try await producer.setOptions(SessionOptions(checkmark: false), session: "swift-r")
                        try await producer.sendStroke(zigzag, session: "swift-r", learn: "zig")
                        await producer.forget(session: "swift-r")
                        try await producer.sendStroke(line, session: "swift-r")
                        continue
                    }
                    seen.append("\(event.kind) \(event.name ?? event.code ?? "-")\(event.learned ? " learned" : "")")
                    if event.needsReteach {
                        try await producer.reteach(session: "swift-r")
                        try await producer.sendStroke(zigzag, session: "swift-r")
                    }
                    if event.kind == .match && event.learned || seen.count == 8 { break }
                }
                return seen
            }
            // The line's own result, between the restart and the gesture taught again, is whatever it matched.
            #expect(seen.count == 5)
            #expect(seen.prefix(2) == ["learned zig", "error session_restart"])
            #expect(seen.suffix(2) == ["learned zig", "match zig learned"])
        }
    }
}
