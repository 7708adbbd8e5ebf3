import Foundation
import StrokeProtocol
import StrokeRecognition
import Synchronization
import Testing

@testable import StrokeWorker

@Suite("A worker's sessions across its restart (--state-file, tcp)")
struct WorkerStateFileTests {
    /// A stroke as one `begin` with its points and an `end`, numbered from `seq`.
    static func stroke(_ id: Int, _ points: [[Double]], seq: Int, learn: String? = nil) throws -> [String] {
        let begin = try JSONSerialization.data(withJSONObject: [
            "type": "begin", "seq": seq, "stroke": id, "points": points,
        ])
        var end: [String: Any] = ["type": "end", "seq": seq + 1, "stroke": id]
        if let learn { end["learn"] = learn }
        return [begin, try JSONSerialization.data(withJSONObject: end)].map { String(decoding: $0, as: UTF8.self) }
    }

    /// The fields of an event these tests look at.
    struct Seen: Sendable {
        var event: String?
        var name: String?
        var learned: Bool?
        var eventSeq: Int?
        var seq: Int?
        var code: String?
        var restored: Bool?

        init(_ fields: [String: Any]) {
            code = fields["code"] as? String
            restored = fields["restored"] as? Bool
            event = fields["event"] as? String
            name = fields["name"] as? String
            learned = fields["learned"] as? Bool
            eventSeq = fields["eventSeq"] as? Int
            seq = fields["seq"] as? Int
        }
    }

    @Test(
        "taught, stopped, started again: the session goes on with its numbering, choice and learned gesture",
        arguments: [(1, false), (2, false), (1, true)])
    func restart(lanes: Int, throughLink: Bool) async throws {
        let target = SessionSnapshotTests.temporaryPath("worker-state.json")
        defer { try? FileManager.default.removeItem(atPath: target) }
        // Through a symbolic link (whose target does not exist yet), the file is the link's target, and the link
        // stays a link: the worker used to rename its file over the link.
        let link = target + ".link"
        if throughLink { #expect(symlink(target, link) == 0) }
        defer { if throughLink { unlink(link) } }
        let path = throughLink ? link : target
        let session = "keeper"
        let teach =
            [#"{"type": "options", "seq": 1, "gestures": ["bolt", "check"]}"#]
            + (try Self.stroke(1, LearnedTemplatesTests.bolt(0), seq: 2, learn: "bolt"))
        let learned = try await runWorker(lanes: lanes, stateFile: path) { input, output in
            try await withClient(input: input, output: output) { client in
                for message in teach { try client.send(session: session, message) }
                return Seen(try client.nextEvent().event)
            }
        }
        #expect(learned.event == "learned")
        let file = try #require(try StateFile.read(path))
        let saved = file.sessions
        #expect(!file.isCheckpoint)
        #expect(saved.map(\.session) == [session] && saved.first?.seq == 3)
        #expect(saved.first?.gestures == ["bolt", "check"] && saved.first?.learned?.map(\.name) == ["bolt"])

        let draw = try Self.stroke(2, LearnedTemplatesTests.bolt(1), seq: 4)
        let match = try await runWorker(lanes: lanes, stateFile: path) { input, output in
            // Read and removed at the start; the lanes' first checkpoint may have taken its place since.
            #expect(try StateFile.read(path)?.isCheckpoint != false)
            return try await withClient(input: input, output: output) { client in
                for message in draw { try client.send(session: session, message) }
                return Seen(try client.nextEvent().event)
            }
        }
        #expect(match.event == "match", "no session_reset: \(match)")
        #expect(match.name == "bolt" && match.learned == true)
        #expect(match.eventSeq == (learned.eventSeq ?? 0) + 1 && match.seq == 5)
        #expect(try StateFile.read(path)?.sessions.first?.seq == 5)
        if throughLink {
            #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == target)
            #expect(try StateFile.read(target)?.sessions.first?.seq == 5)
        }
    }

    @Test(
        "crashed after a checkpoint: the session comes back with its learned gesture and a session_reset that says so")
    func crashAfterCheckpoint() async throws {
        let path = SessionSnapshotTests.temporaryPath("worker-checkpoint.json")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let session = "survivor"
        let teach = try Self.stroke(1, LearnedTemplatesTests.bolt(0), seq: 1, learn: "bolt")
        // The file as a crash would leave it: the checkpoint written while the worker ran.
        let checkpoint = try await runWorker(lanes: 2, stateFile: path, checkpointSeconds: 1) { input, output in
            try await withClient(input: input, output: output) { client in
                for message in teach { try client.send(session: session, message) }
                #expect(Seen(try client.nextEvent().event).event == "learned")
            }
            for _ in 0..<100 {
                if let saved = try? StateFile.read(path), saved.isCheckpoint,
                    saved.sessions.first?.learned?.count == 1
                {
                    return try Data(contentsOf: URL(fileURLWithPath: path))
                }
                try await Task.sleep(for: .milliseconds(100))
            }
            Issue.record("no checkpoint with the learned gesture within 10 s")
            return Data()
        }
        let saved = try #require(try? StateFile.read(path))
        #expect(!saved.isCheckpoint, "the graceful stop wrote its own file over the checkpoint")
        try checkpoint.write(to: URL(fileURLWithPath: path))

        let draw = try Self.stroke(2, LearnedTemplatesTests.bolt(1), seq: 3)
        let events = try await runWorker(lanes: 2, stateFile: path, checkpointSeconds: 1) { input, output in
            try await withClient(input: input, output: output) { client in
                for message in draw { try client.send(session: session, message) }
                return [Seen(try client.nextEvent().event), Seen(try client.nextEvent().event)]
            }
        }
        #expect(events[0].code == "session_reset" && events[0].restored == true && events[0].eventSeq == 1)
        #expect(events[1].event == "match" && events[1].name == "bolt" && events[1].learned == true)
        #expect(events[1].eventSeq == 2 && events[1].seq == 4)
    }

    @Test("a graceful stop's file is removed once read; a checkpoint stays until the next one, if there is one")
    func whatStaysAfterReading() throws {
        let path = SessionSnapshotTests.temporaryPath("worker-read.json")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let session = SessionSnapshot(session: "a", seq: nil, eventSeq: 0, library: "default", checkmark: false)
        for (checkpoint, interval, stays) in [(false, 30, false), (true, 30, true), (true, 0, false)] {
            try StateFile.write(StateFile.Saved(sessions: [session], isCheckpoint: checkpoint), to: path)
            var configuration = WorkerConfiguration()
            configuration.stateFile = path
            configuration.checkpointIntervalSeconds = interval
            let worker = try Worker(configuration: configuration, logger: Logger(level: .error))
            #expect(
                worker.takeSavedSessions().withoutTime == StateFile.Saved(sessions: [session], isCheckpoint: checkpoint)
            )
            #expect(FileManager.default.fileExists(atPath: path) == stays, "\(checkpoint), \(interval)")
        }
    }

    @Test("another shard's sessions are left out, kept beside the file; an unreadable file is moved aside, not fatal")
    func leftOutAndUnreadable() async throws {
        let path = SessionSnapshotTests.temporaryPath("worker-state.json")
        defer {
            for file in [path, path + ".unreadable", path + ".departed"] {
                try? FileManager.default.removeItem(atPath: file)
            }
        }
        let mine = SessionSnapshot(session: "a", seq: 4, eventSeq: 2, library: "default")  // bucket 0x92c: even
        let theirs = SessionSnapshot(session: "player-1", seq: 9, eventSeq: 5, library: "default")  // 0x712: even
        let odd = (0..<100).map { "odd-\($0)" }.first { ShardKey.bucket(of: $0) % 2 == 1 }!
        try StateFile.write(
            StateFile.Saved(sessions: [
                mine, theirs, SessionSnapshot(session: odd, seq: 1, eventSeq: 1, library: "default"),
            ]), to: path)
        _ = try await runWorker(lanes: 2, stateFile: path, shard: (1, 2)) { _, _ in () }
        #expect(try StateFile.read(path)?.sessions.map(\.session) == [odd])
        // With the time and shard of the file they come from (none here), and the shard that kept the others.
        #expect(
            try StateFile.read(path + ".departed")?.withoutTime
                == StateFile.Saved(sessions: [mine, theirs], keptBy: .init(index: 1, count: 2)))

        try Data("{ not json".utf8).write(to: URL(fileURLWithPath: path))
        _ = try await runWorker(lanes: 1, stateFile: path) { _, _ in () }
        #expect(FileManager.default.fileExists(atPath: path + ".unreadable"))
        #expect(
            try StateFile.read(path)?.withoutTime == StateFile.Saved(sessions: [], shard: .init(index: 0, count: 1)),
            "the worker ran, and wrote its (no) sessions at the stop")
    }

    /// Runs a worker with the state file until `body` returns, and returns what it returned.
    func runWorker<T: Sendable>(
        lanes: Int, stateFile: String, shard: (index: Int, count: Int) = (0, 1), checkpointSeconds: Int = 30,
        _ body: @escaping @Sendable (String, String) async throws -> T
    ) async throws -> T {
        let result = Mutex<T?>(nil)
        try await withWorker({
            $0.lanes = lanes
            $0.stateFile = stateFile
            $0.shard = shard
            $0.checkpointIntervalSeconds = checkpointSeconds
        }) { input, output, _ in
            let value = try await body(input, output)
            result.withLock { $0 = value }
        }
        return try #require(result.withLock { $0 })
    }
}
