import Foundation
import StrokeProtocol
import Testing

@testable import stroke_tool

/// `stroke-tool watch` against a real `stroke-worker` process on loopback.
@Suite("stroke-tool watch")
struct WatchCommandTests {
    @Test("a worker's events, one line each: its stats on the system topic, then the tool stops at --count")
    func systemEvents() throws {
        let worker = try PingCommandTests.RunningWorker(["--shard", "0/1", "--stats-interval", "1"])
        defer { #expect(worker.stop() == 0) }
        let run = try StrokeToolTests.run([
            "watch", "--output", worker.output, "--system", "--count", "1", "--seconds", "30",
        ])
        #expect(run.status == 0, "\(run.error)")
        let lines = run.output.split(separator: "\n")
        #expect(lines.count == 1, "\(run.output)")
        #expect(lines.first?.hasPrefix("$system #0 stats 0/1 ") == true, "\(run.output)")
        #expect(lines.first?.contains(" sessions=0") == true, "\(run.output)")
    }

    @Test("without --system, stats are not shown; --seconds ends a watch that saw nothing")
    func quiet() throws {
        let worker = try PingCommandTests.RunningWorker(["--stats-interval", "1"])
        defer { #expect(worker.stop() == 0) }
        let run = try StrokeToolTests.run(["watch", "--output", worker.output, "--seconds", "1.5"])
        #expect(run.status == 0, "\(run.error)")
        #expect(run.output.isEmpty, "\(run.output)")
    }

    @Test("an output that does not answer is told on standard error, as a worker tells its own; the watch goes on")
    func unansweredOutput() throws {
        // Port 9 (discard): nothing listens there on loopback, so every connect is refused.
        let run = try StrokeToolTests.run(["watch", "--output", "tcp://127.0.0.1:9", "--seconds", "1"])
        #expect(run.status == 0, "\(run.error)")
        #expect(run.output.isEmpty, "\(run.output)")
        #expect(run.error.contains("[stroke-tool watch] output cannot connect yet"), "\(run.error)")
        #expect(run.error.contains("endpoint=tcp://127.0.0.1:9"), "\(run.error)")
    }

    @Test("a worker that refuses the watch's key is told on standard error, where the watch heard nothing before")
    func refusedKey() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("watch-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        for name in ["worker", "listed", "stranger"] {
            #expect(try StrokeToolTests.run(["keygen", "-o", directory.appendingPathComponent(name).path]).status == 0)
        }
        func path(_ name: String) -> String { directory.appendingPathComponent(name).path }
        let worker = try PingCommandTests.RunningWorker([
            "--curve-secret-key", path("worker.key"), "--curve-authorized-keys", path("listed.pub"),
        ])
        defer { #expect(worker.stop() == 0) }
        let run = try StrokeToolTests.run([
            "watch", "--output", worker.output, "--curve-secret-key", path("stranger.key"), "--curve-server-key",
            path("worker.pub"), "--seconds", "1.5",
        ])
        #expect(run.status == 0 && run.output.isEmpty, "\(run.output) \(run.error)")
        #expect(run.error.contains("output handshake failed"), "\(run.error)")
        #expect(run.error.contains("the peer refused this side's key"), "\(run.error)")
    }

    @Test("a message that is not an event is told on standard error, naming its topic, and the watch goes on: exit 1")
    func undecodable() throws {
        let pong = #"{"v":1,"event":"pong","session":"room/a","eventSeq":0,"seq":null,"shard":"0/1","known":true}"#
        let publisher = try StandInPublisher([
            [Array("room/b".utf8), Array(#"{"v":1,"event":"#.utf8)], [Array("room/b".utf8)],
            [Array("room/a".utf8), Array(pong.utf8)],
        ])
        defer { publisher.wait() }
        let run = try StrokeToolTests.run(["watch", "--output", publisher.output, "--count", "1", "--seconds", "30"])
        // Session 85: the first such message ended the watch, and the events after it went unseen.
        #expect(run.status == 1, "\(run.output) \(run.error)")
        #expect(run.output == "room/a #0 pong from 0/1, which holds it\n", "\(run.output)")
        #expect(run.error.contains("stroke-tool watch: skipped malformed_json: an event on topic room/b: "))
        #expect(
            run.error.contains("stroke-tool watch: skipped frame_count: a message of 1 frames on topic room/b"),
            "\(run.error)")
    }

    @Test("bad options: status 2 and why")
    func badOptions() throws {
        for arguments in [
            ["watch"], ["watch", "--output", "tcp://127.0.0.1:9", "--count", "0"],
            ["watch", "--output", "tcp://127.0.0.1:9", "--seconds", "-1"],
            ["watch", "--output", "tcp://127.0.0.1:9", "--curve-server-key", "x"],
            ["watch", "--output", "tcp://127.0.0.1:9", "extra"],
            ["watch", "--output", "inproc://events"], ["watch", "--output", "tcp://127.0.0.1:65536"],
        ] {
            let run = try StrokeToolTests.run(arguments)
            #expect(run.status == 2, "\(arguments): \(run.error)")
            #expect(run.error.hasPrefix("stroke-tool watch: "), "\(arguments): \(run.error)")
        }
        // Only the option that is wrong is named, with its value (session 81: both, without).
        let zero = try StrokeToolTests.run(["watch", "--output", "tcp://127.0.0.1:9", "--count", "0"])
        #expect(zero.error == "stroke-tool watch: --count: at least 1, got 0\n", "\(zero.error)")
        let long = try StrokeToolTests.run(["watch", "--output", "tcp://127.0.0.1:9", "--seconds", "1e9"])
        #expect(long.error == "stroke-tool watch: --seconds: more than 0, at most 86,400, got 1000000000.0\n")
        // Session 88: a prefix longer than any session id matched nothing, and one over 1 KiB had the worker cut
        // the watch's connection again and again; the longest session id is still a prefix.
        let prefix = String(repeating: "s", count: 129)
        let tooLong = try StrokeToolTests.run(["watch", "--output", "tcp://127.0.0.1:9", "--session", prefix])
        #expect(tooLong.status == 2)
        #expect(
            tooLong.error
                == "stroke-tool watch: --session: the prefix \"\(String(repeating: "s", count: 40))…\" is 129 bytes, "
                + "longer than any session id (128): it would match no event\n")
        let longest = try StrokeToolTests.run([
            "watch", "--output", "tcp://127.0.0.1:9", "--session", String(prefix.dropFirst()), "--seconds", "0.2",
        ])
        #expect(longest.status == 0, "\(longest.error)")
    }

    @Test("events a session lost before one are told on a line of their own, before it")
    func lostEvents() {
        var event = OutputEvent(kind: .match)
        (event.session, event.eventSeq, event.name, event.score, event.stroke) = ("room/a", 5, "x", 0.9, 2)
        #expect(WatchCommand.line(event) == "room/a #5 match x 0.900 stroke 2")
        event.eventsLost = 2
        #expect(WatchCommand.line(event) == "room/a lost 2 events\nroom/a #5 match x 0.900 stroke 2")
        event.eventsLost = 1
        #expect(WatchCommand.line(event).hasPrefix("room/a lost 1 event\n"))
        (event.eventsLost, event.rotation) = (0, -12.5)
        #expect(WatchCommand.line(event) == "room/a #5 match x 0.900 turned -12.5° stroke 2")
    }

    @Test("a learned event says which other gesture comes nearest")
    func learnedNearest() {
        var event = OutputEvent(kind: .learned)
        (event.session, event.eventSeq, event.name, event.templates, event.stroke) = ("room/a", 3, "zap", 2, 4)
        #expect(WatchCommand.line(event) == "room/a #3 learned zap (2 learned) stroke 4")
        event.nearest = OutputEvent.Candidate(name: "bolt", score: 0.91, learned: true)
        #expect(WatchCommand.line(event) == "room/a #3 learned zap (2 learned) nearest bolt (learned) 0.910 stroke 4")
        event.nearest = OutputEvent.Candidate(name: "question_mark", score: 0.5529)
        #expect(WatchCommand.line(event).contains("nearest question_mark 0.553 stroke 4"))
    }
}
