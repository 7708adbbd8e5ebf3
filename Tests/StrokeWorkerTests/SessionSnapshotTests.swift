import Foundation
import StrokeProtocol
import StrokeRecognition
import Testing

@testable import StrokeWorker

@Suite("Sessions kept across a restart (--state-file)")
struct SessionSnapshotTests {
    typealias Producer = LearnedTemplatesTests.Producer

    static func temporaryPath(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("stroke-\(UUID().uuidString)-\(name)").path
    }

    @Test("a restored session goes on where it was: numbering, options, choice and learned gestures")
    func restoredSessionGoesOn() throws {
        var before = SessionProcessorTests.processor()
        var alice = Producer("alice")
        alice.send(
            &before,
            ["type": "options", "checkmark": false, "orientation": "invariant", "gestures": ["bolt", "check"]])
        alice.draw(&before, LearnedTemplatesTests.bolt(0), learn: "bolt")
        var bob = Producer("bob")
        bob.draw(&before, LearnedTemplatesTests.bolt(1))
        let lastEvent = LearnedTemplatesTests.lastEvent(before)
        let saved = before.snapshot().sorted { $0.session < $1.session }
        #expect(saved.map(\.session) == ["alice", "bob"])
        #expect(saved[0].seq == 3 && saved[0].checkmark == false && saved[0].orientation == "invariant")
        #expect(saved[0].gestures == ["bolt", "check"] && saved[0].learned?.map(\.name) == ["bolt"])
        #expect(saved[1].seq == 2 && saved[1].eventSeq == (lastEvent["eventSeq"] as? UInt64 ?? 0))
        #expect(saved[1].gestures == nil && saved[1].learned == nil && saved[1].orientation == nil)

        // Through the file, into a worker that never saw them.
        let path = Self.temporaryPath("state.json")
        defer { try? FileManager.default.removeItem(atPath: path) }
        try StateFile.write(StateFile.Saved(sessions: saved), to: path)
        let read = try #require(try StateFile.read(path))
        #expect(read.sessions == saved && !read.isCheckpoint)
        var after = SessionProcessorTests.processor()
        let report = after.restore(read.sessions)
        #expect(report.restored == 2 && report.skipped.isEmpty && report.templatesDropped == 0)
        #expect(after.sessionCount == 2 && LearnedTemplatesTests.learnedCount(after) == 1)
        #expect(after.metrics.sessionsRestored.load(ordering: .relaxed) == 2)
        #expect(after.metrics.sessions.load(ordering: .relaxed) == 2)
        #expect(after.snapshot().sorted { $0.session < $1.session } == saved)

        // Alice's next stroke: the next number, no reset, matched against what she learned, among what she chose.
        alice.draw(&after, LearnedTemplatesTests.bolt(2))
        let events = SessionProcessorTests.events(after).map(\.payload)
        #expect(!events.contains { $0["event"] as? String == "error" }, "\(events)")
        let match = try #require(events.last)
        #expect(match["event"] as? String == "match" && match["name"] as? String == "bolt")
        #expect(match["learned"] as? Bool == true)
        #expect(match["eventSeq"] as? Int == Int(saved[0].eventSeq) + 1)
        #expect(match["seq"] as? Int == 5)
    }

    @Test("a session that cannot be restored as it was is left out and said why; the others are restored")
    func leftOut() throws {
        var processor = SessionProcessorTests.processor { $0.maxSessionTemplates = 2 }
        let bolt = LearnedTemplatesTests.bolt(0).map { SIMD2($0[0], $0[1]) }
        let good = SessionSnapshot(session: "good", seq: 7, eventSeq: 3, library: "default")
        let snapshots = [
            good,
            SessionSnapshot(session: "gone", seq: 1, eventSeq: 1, library: "no-such-library"),
            SessionSnapshot(session: "sideways", seq: 1, eventSeq: 1, library: "default", orientation: "sideways"),
            SessionSnapshot(session: "$system", seq: 1, eventSeq: 1, library: "default"),
            SessionSnapshot(session: "", seq: 1, eventSeq: 1, library: "default"),
            SessionSnapshot(session: "slow", seq: 1, eventSeq: 1, library: "default", multistroke: 99_999),
            SessionSnapshot(session: "none", seq: 1, eventSeq: 1, library: "default", gestures: []),
            good,
            SessionSnapshot(
                session: "teacher", seq: 9, eventSeq: 4, library: "default",
                learned: [
                    GestureTemplate(name: "tap", points: [SIMD2(1, 1)]), GestureTemplate(name: "bolt", points: bolt),
                    GestureTemplate(name: "bolt", points: bolt), GestureTemplate(name: "bolt", points: bolt),
                ]),
        ]
        let report = processor.restore(snapshots)
        #expect(report.restored == 2, "\(report.skipped)")
        #expect(report.skipped.count == 7)
        for (reason, fragment) in zip(
            report.skipped,
            [
                "no template library \"no-such-library\"", "orientation \"sideways\"", "not a session id",
                "not a session id", "multistroke 99999", "gestures:", "listed twice",
            ])
        {
            #expect(reason.contains(fragment), "\(reason)")
        }
        // The tap, which could match nothing, is left out, and then the third bolt: two fit the session's limit.
        #expect(report.templatesDropped == 2 && LearnedTemplatesTests.learnedCount(processor) == 2)
        #expect(processor.sessionCount == 2)
        // The restored session takes the next number as the next message, and no other.
        var producer = Producer("good")
        producer.sequence = 7
        producer.send(&processor, ["type": "begin", "stroke": 1, "points": [[0, 0, 0]]])
        #expect(SessionProcessorTests.events(processor).isEmpty)
        producer.sequence = 7
        producer.send(&processor, ["type": "cancel", "stroke": 1])
        #expect(SessionProcessorTests.events(processor).last?.payload["code"] as? String == "sequence_duplicate")
    }

    @Test("the state file: none yet, written whole, and a file of another kind or version refused with why")
    func stateFile() throws {
        let path = Self.temporaryPath("state.json")
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(try StateFile.read(path) == nil)
        try StateFile.write(StateFile.Saved(sessions: []), to: path)
        #expect(try StateFile.read(path)?.withoutTime == StateFile.Saved(sessions: []))
        #expect(!FileManager.default.fileExists(atPath: path + ".partial"))
        let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        #expect(mode == 0o600, "readable by its owner only")
        let checkpoint = StateFile.Saved(
            sessions: [SessionSnapshot(session: "a", seq: nil, eventSeq: 0, library: "default")], isCheckpoint: true)
        try StateFile.write(checkpoint, to: path)
        #expect(try StateFile.read(path)?.withoutTime == checkpoint, "written over the last one")
        // A file of a worker before checkpoints, without the field, is what a graceful stop wrote.
        let older = #"{"format": "stroke-worker-state", "version": 1, "sessions": []}"#
        try Data(older.utf8).write(to: URL(fileURLWithPath: path))
        #expect(try StateFile.read(path) == StateFile.Saved(sessions: [], isCheckpoint: false))
        for (contents, code) in [
            ("{\"sessions\": 3}", RecognitionError.Code.malformedState), ("not json", .malformedState),
            ("{\"format\": \"stroke-worker-state\", \"version\": 2, \"sessions\": []}", .unsupportedVersion),
            ("{\"format\": \"something-else\", \"version\": 1, \"sessions\": []}", .unsupportedVersion),
        ] {
            try Data(contents.utf8).write(to: URL(fileURLWithPath: path))
            let error = #expect(throws: RecognitionError.self) { try StateFile.read(path) }
            #expect(error?.code == code && error?.message.contains(path) == true, "\(contents)")
        }
        #expect(throws: RecognitionError.self) {
            try StateFile.write(StateFile.Saved(sessions: []), to: "/nonexistent-directory/state.json")
        }
        // A worker finds out at its start that it could not write the file at its stop.
        var configuration = WorkerConfiguration()
        configuration.stateFile = "/nonexistent-directory/state.json"
        let refused = #expect(throws: RecognitionError.self) { try configuration.validate() }
        #expect(refused?.message.contains("--state-file /nonexistent-directory/state.json") == true)
        configuration.stateFile = path
        #expect(throws: Never.self) { try configuration.validate() }
        // Nor where a file cannot be created though the directory's permissions allow it (root in /proc): before
        // session 82 `access` let it through, and the stop failed.
        configuration.stateFile = "/proc/state.json"
        let proc = #expect(throws: RecognitionError.self) { try configuration.validate() }
        #expect(proc?.message.hasPrefix("--state-file /proc/state.json: cannot write in /proc (") == true)
        // The check leaves nothing behind.
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory).allSatisfy { !$0.contains(".probe-") })
    }

    @Test("a state file that is a directory, a pipe or a device is refused at the start, and a pipe is never read")
    func notRegularFiles() throws {
        let directory = Self.temporaryPath("state-kinds")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let pipe = directory + "/state.fifo"
        #expect(mkfifo(pipe, 0o600) == 0)
        // Before, a worker given --state-file /dev/null (or a directory) moved it aside as unreadable and renamed
        // its own file over it at its stop: as root, the system's /dev/null.
        var configuration = WorkerConfiguration()
        for (path, kind) in [(directory, "a directory"), (pipe, "a pipe"), ("/dev/null", "a character device")] {
            configuration.stateFile = path
            let refused = #expect(throws: RecognitionError.self) { try configuration.validate() }
            #expect(refused?.message == "--state-file \(path): it is \(kind); a state file is a regular file")
            // Read as a file to adopt from, it is refused at once, where a pipe's read would wait for a writer.
            let unread = #expect(throws: RecognitionError.self) { try StateFile.read(path) }
            #expect(unread?.code == .io && unread?.message.contains("it is \(kind), not a regular file") == true)
        }
        #expect(RecognitionError.nonRegularKind(of: directory + "/absent") == nil)
    }
}
