import Foundation
import StrokeProtocol
import StrokeRecognition
import Synchronization
import Testing

@testable import StrokeWorker

@Suite("Sessions whose bucket moved to this worker, from other workers' state files (--adopt-state)")
struct WorkerAdoptionTests {
    /// A session id whose bucket is `remainder` modulo `count`, the `n`-th such.
    static func session(bucket remainder: Int, of count: Int, _ n: Int = 0) -> String {
        (0..<10_000).lazy.map { "player-\($0)" }.filter { ShardKey.bucket(of: $0) % count == remainder }
            .dropFirst(n).first!
    }

    /// A fresh directory for one test's files.
    static func directory() throws -> String {
        let path = SessionSnapshotTests.temporaryPath("adopt")
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// A worker configured to serve `shard` and adopt from `paths`, with `stateFile` its own.
    static func worker(shard: (Int, Int), adopting paths: [String], stateFile: String? = nil) throws -> Worker {
        var configuration = WorkerConfiguration()
        configuration.shard = shard
        configuration.adoptStatePaths = paths
        configuration.stateFile = stateFile
        return try Worker(configuration: configuration, logger: Logger(level: .error))
    }

    @Test("the sessions of its buckets come without their numbering, after its own file's; the files stay as they were")
    func adoptsItsBuckets() throws {
        let root = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        // Two workers of a shard count of 2 stopped; this one serves shard 1 of 3.
        let kept = Self.session(bucket: 1, of: 3, 0)
        let moved = Self.session(bucket: 1, of: 3, 1)
        let checkpointed = Self.session(bucket: 1, of: 3, 2)
        let elsewhere = Self.session(bucket: 2, of: 3)
        let own = SessionSnapshot(session: kept, seq: 7, eventSeq: 3, library: "default", gestures: ["check"])
        let older = SessionSnapshot(session: kept, seq: 2, eventSeq: 1, library: "default")
        let numbered = SessionSnapshot(session: moved, seq: 12, eventSeq: 9, library: "default", checkmark: false)
        let fromCheckpoint = SessionSnapshot(session: checkpointed, seq: nil, eventSeq: 0, library: "default")
        let other = SessionSnapshot(session: elsewhere, seq: 4, eventSeq: 4, library: "default")
        let ownPath = root + "/mine.json"
        try StateFile.write(StateFile.Saved(sessions: [own]), to: ownPath)
        for (shard, saved) in [
            ("shard-0", StateFile.Saved(sessions: [numbered, other])),
            ("shard-1", StateFile.Saved(sessions: [older, fromCheckpoint], isCheckpoint: true)),
        ] {
            try FileManager.default.createDirectory(atPath: "\(root)/\(shard)", withIntermediateDirectories: true)
            try StateFile.write(saved, to: "\(root)/\(shard)/sessions.json")
        }
        let before = try ["shard-0", "shard-1"].map {
            try Data(contentsOf: URL(fileURLWithPath: "\(root)/\($0)/sessions.json"))
        }

        let worker = try Self.worker(shard: (1, 3), adopting: [root], stateFile: ownPath)
        let saved = worker.takeSavedSessions()
        var unnumbered = numbered
        (unnumbered.seq, unnumbered.eventSeq) = (nil, 0)
        #expect(saved.sessions == [own, unnumbered, fromCheckpoint])
        let after = try ["shard-0", "shard-1"].map {
            try Data(contentsOf: URL(fileURLWithPath: "\(root)/\($0)/sessions.json"))
        }
        #expect(after == before, "read, never changed")
        #expect(!FileManager.default.fileExists(atPath: ownPath), "its own file is taken as always")
    }

    @Test("the sessions a restarted worker no longer serves are taken from beside its file, even once it is gone")
    func adoptsDeparted() throws {
        let root = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        // The old worker 0 of 3 held both; started again as 0 of 2, it keeps `going` beside its file.
        let staying = Self.session(bucket: 0, of: 6)
        let going = Self.session(bucket: 3, of: 6)
        let file = root + "/worker-0.json"
        try StateFile.write(
            StateFile.Saved(sessions: [
                SessionSnapshot(session: staying, seq: 3, eventSeq: 2, library: "default"),
                SessionSnapshot(session: going, seq: 5, eventSeq: 4, library: "default", gestures: ["v"]),
            ]), to: file)
        let restarted = try Self.worker(shard: (0, 2), adopting: [root], stateFile: file)
        #expect(restarted.takeSavedSessions().sessions.map(\.session) == [staying])
        #expect(!FileManager.default.fileExists(atPath: file))
        // Worker 1 of 2 serves `going` now, whether it names the directory or the old file.
        for paths in [[root], [file]] {
            let adopter = try Self.worker(shard: (1, 2), adopting: paths)
            #expect(
                adopter.takeSavedSessions().sessions
                    == [SessionSnapshot(session: going, seq: nil, eventSeq: 0, library: "default", gestures: ["v"])])
        }
    }

    @Test("a session in a worker's file and beside another's is taken from the file: its worker holds it now")
    func fileBeforeDeparted() throws {
        let root = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let session = Self.session(bucket: 0, of: 1)
        let left = SessionSnapshot(session: session, seq: nil, eventSeq: 0, library: "default", gestures: ["v"])
        let held = SessionSnapshot(session: session, seq: nil, eventSeq: 0, library: "default", gestures: ["x"])
        try StateFile.write(StateFile.Saved(sessions: [left]), to: root + "/worker-0.json" + Worker.departedSuffix)
        try StateFile.write(StateFile.Saved(sessions: [held], isCheckpoint: true), to: root + "/worker-1.json")
        #expect(try Self.worker(shard: (0, 1), adopting: [root]).takeSavedSessions().sessions == [held])
    }

    @Test("after 3 → 2 → 3 workers, a bucket's sessions come from the 2 workers' newer files, not its own older one")
    func newestFileWins() throws {
        let root = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        // Worker 2 of 3 stopped two minutes ago; workers 0 and 1 of 2 served its buckets since, and stopped.
        let taught = Self.session(bucket: 2, of: 6)
        let ended = Self.session(bucket: 5, of: 6)
        let then = Date(timeIntervalSinceNow: -120), now = Date(timeIntervalSinceNow: -2)
        let ownPath = root + "/worker-2/sessions.json"
        let stale = SessionSnapshot(session: taught, seq: 9, eventSeq: 4, library: "default", gestures: ["v"])
        let gone = SessionSnapshot(session: ended, seq: 3, eventSeq: 2, library: "default", gestures: ["x"])
        let fresh = SessionSnapshot(session: taught, seq: 30, eventSeq: 12, library: "default", gestures: ["check"])
        for (path, saved) in [
            (ownPath, StateFile.Saved(sessions: [stale, gone], shard: .init(index: 2, count: 3), savedAt: then)),
            (
                root + "/worker-0/sessions.json",
                .init(sessions: [fresh], shard: .init(index: 0, count: 2), savedAt: now)
            ),
            (root + "/worker-1/sessions.json", .init(sessions: [], shard: .init(index: 1, count: 2), savedAt: now)),
        ] {
            try FileManager.default.createDirectory(
                atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try StateFile.write(saved, to: path)
        }
        let worker = try Self.worker(shard: (2, 3), adopting: [root], stateFile: ownPath)
        var moved = fresh
        (moved.seq, moved.eventSeq) = (nil, 0)
        #expect(worker.takeSavedSessions().sessions == [moved], "neither the older state nor the ended session")
    }

    @Test("a worker that restarts keeps its own newer file's sessions over what another left it at an earlier change")
    func olderDepartedBringsNothingBack() throws {
        let root = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        // At 3 → 2 workers a minute ago, worker 1 left `ended` (bucket 4 of 6: shard 1 of 3, now 0 of 2) beside
        // its file; worker 0 of 2 took it, and the session ended since. Worker 0 crashed; its checkpoint is newer.
        let held = Self.session(bucket: 0, of: 6)
        let ended = Self.session(bucket: 4, of: 6)
        let checkpoint = SessionSnapshot(session: held, seq: nil, eventSeq: 0, library: "default", gestures: ["v"])
        let left = SessionSnapshot(session: ended, seq: 5, eventSeq: 3, library: "default", gestures: ["x"])
        let ownPath = root + "/worker-0.json"
        try StateFile.write(
            .init(sessions: [checkpoint], isCheckpoint: true, shard: .init(index: 0, count: 2), savedAt: Date()),
            to: ownPath)
        try StateFile.write(
            .init(
                sessions: [left], shard: .init(index: 1, count: 3), keptBy: .init(index: 1, count: 2),
                savedAt: Date(timeIntervalSinceNow: -60)),
            to: root + "/worker-1.json" + Worker.departedSuffix)
        let worker = try Self.worker(shard: (0, 2), adopting: [root], stateFile: ownPath)
        #expect(worker.takeSavedSessions().sessions == [checkpoint])
    }

    @Test("files too old, unreadable, half written or missing are passed over, and left where they are")
    func passesOver() throws {
        let root = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let session = SessionSnapshot(
            session: Self.session(bucket: 0, of: 1), seq: nil, eventSeq: 0, library: "default", checkmark: false)
        let old = root + "/old.json"
        try StateFile.write(StateFile.Saved(sessions: [session], isCheckpoint: true), to: old)
        try FileManager.default.setAttributes(
            [.modificationDate: Date(timeIntervalSinceNow: -3_600)], ofItemAtPath: old)
        let broken = root + "/broken.json"
        try Data("{ not a state file".utf8).write(to: URL(fileURLWithPath: broken))
        try StateFile.write(StateFile.Saved(sessions: [session]), to: root + "/staged.json")
        try FileManager.default.moveItem(atPath: root + "/staged.json", toPath: root + "/staged.json.partial")

        let worker = try Self.worker(shard: (0, 1), adopting: [root, root + "/missing.json"])
        #expect(worker.takeSavedSessions().sessions.isEmpty)
        #expect(FileManager.default.fileExists(atPath: broken) && FileManager.default.fileExists(atPath: old))
        #expect(!FileManager.default.fileExists(atPath: broken + ".unreadable"))

        var configuration = WorkerConfiguration()
        configuration.adoptStatePaths = [old]
        configuration.adoptStateMaxAgeSeconds = 7_200
        let patient = try Worker(configuration: configuration, logger: Logger(level: .error))
        #expect(patient.takeSavedSessions().sessions == [session], "within a longer --adopt-state-max-age")
    }

    @Test("a taught session keeps its learned gesture at the worker that adopts it, with a session_reset (tcp)")
    func learnedGestureMoves() async throws {
        let root = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let oldFile = root + "/old.json"
        let session = "moving-player"
        let teach = try WorkerStateFileTests.stroke(1, LearnedTemplatesTests.bolt(0), seq: 1, learn: "bolt")
        // The old worker is taught and stopped: its file holds the session. (Both workers serve every bucket here,
        // as the test client waits for all of them; `adoptsItsBuckets` checks that only a shard's are taken.)
        try await withWorker({ $0.stateFile = oldFile }) { input, output, _ in
            try await withClient(input: input, output: output) { client in
                for message in teach { try client.send(session: session, message) }
                #expect(WorkerStateFileTests.Seen(try client.nextEvent().event).event == "learned")
            }
        }
        let draw = try WorkerStateFileTests.stroke(2, LearnedTemplatesTests.bolt(1), seq: 3)
        let events = Mutex<[WorkerStateFileTests.Seen]>([])
        try await withWorker({
            $0.lanes = 2
            $0.adoptStatePaths = [root]
            $0.stateFile = root + "/new.json"
        }) { input, output, _ in
            let seen = try await withClient(input: input, output: output) { client in
                for message in draw { try client.send(session: session, message) }
                return try (0..<2).map { _ in WorkerStateFileTests.Seen(try client.nextEvent().event) }
            }
            events.withLock { $0 = seen }
        }
        let seen = events.withLock { $0 }
        #expect(seen.first?.code == "session_reset" && seen.first?.restored == true && seen.first?.eventSeq == 1)
        #expect(seen.last?.event == "match" && seen.last?.name == "bolt" && seen.last?.learned == true)
        #expect(try StateFile.read(oldFile)?.sessions.map(\.session) == [session], "the old file stays")
    }
}
