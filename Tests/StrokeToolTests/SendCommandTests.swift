import Foundation
import Testing

/// `stroke-tool send` against a real `stroke-worker` process on loopback.
@Suite("stroke-tool send")
struct SendCommandTests {
    /// A zig-zag of four legs, 40 points 10 ms apart, as `[[x, y, t], …]`.
    static let zigzag: [[Double]] = (0..<40).map { index in
        let along = Double(index % 10) * 5
        return [Double(index) * 5, (index / 10) % 2 == 0 ? along : 50 - along, Double(index) * 10]
    }

    /// Writes `strokes` as a file of `stroke-tool recognize`'s format; returns its path.
    static func strokesFile(_ strokes: [[String: Any]]) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("send-\(UUID().uuidString).json").path
        try JSONSerialization.data(withJSONObject: strokes).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test("built-in gestures and a file's strokes: each answered in turn, each meant gesture matched, exit 0")
    func answered() throws {
        let worker = try PingCommandTests.RunningWorker()
        defer { #expect(worker.stop() == 0) }
        let file = try Self.strokesFile([
            ["points": Self.zigzag],
            ["strokes": [Array(Self.zigzag.prefix(20)), Array(Self.zigzag.suffix(20))]],
        ])
        defer { try? FileManager.default.removeItem(atPath: file) }
        let run = try StrokeToolTests.run([
            "send", "--input", worker.input, "--output", worker.output, "--gesture", "check", "--gesture", "circle",
            "--strokes", file, "--session", "tool-send", "--batch", "8",
        ])
        #expect(run.status == 0, "\(run.error)")
        let lines = run.output.split(separator: "\n").map(String.init)
        #expect(lines.first == "tool-send #1 checkmark at point 39 stroke 1", "\(run.output)")
        // A template of the built-in library, sent as drawn: its gesture, upright. (It scores less than 1: the score
        // stands for the gesture's 3 nearest templates, the others drawn by other hands.)
        for (number, gesture) in [(2, "check"), (3, "circle")] {
            #expect(
                lines.contains {
                    $0.hasPrefix("tool-send #\(number) match \(gesture) ")
                        && $0.hasSuffix(" turned 0.0° stroke \(number - 1)")
                },
                "\(run.output)")
        }
        // The file's stroke, and its gesture of two strokes (3 and 4) answered at the second's end.
        func answers(_ stroke: Int) -> Bool {
            lines.contains { ($0.contains(" match ") || $0.contains(" nomatch ")) && $0.hasSuffix(" stroke \(stroke)") }
        }
        #expect(answers(3) && !answers(4) && answers(5), "\(run.output)")
        #expect(lines.last == "4 of 4 strokes answered; 2 of 2 matched the gesture meant", "\(run.output)")
    }

    @Test("a stroke answered with another gesture than the one meant: exit 1, and the tally says so")
    func matchedOtherwise() throws {
        let worker = try PingCommandTests.RunningWorker()
        defer { #expect(worker.stop() == 0) }
        let file = try Self.strokesFile([["name": "circle", "points": Self.zigzag]])
        defer { try? FileManager.default.removeItem(atPath: file) }
        let run = try StrokeToolTests.run([
            "send", "--input", worker.input, "--output", worker.output, "--strokes", file, "--json-payloads",
        ])
        #expect(run.status == 1, "\(run.output) \(run.error)")
        #expect(run.output.hasSuffix("1 of 1 strokes answered; 0 of 1 matched the gesture meant\n"), "\(run.output)")
    }

    @Test("--options are sent before the strokes: a check, in a session that chose only the circle, is not chosen")
    func options() throws {
        let worker = try PingCommandTests.RunningWorker()
        defer { #expect(worker.stop() == 0) }
        let run = try StrokeToolTests.run([
            "send", "--input", worker.input, "--output", worker.output, "--gesture", "check", "--session", "chooser",
            "--options", #"{"gestures": ["circle"], "checkmark": false, "minimumScore": 0.7}"#,
        ])
        #expect(run.status == 1, "\(run.output) \(run.error)")
        let lines = run.output.split(separator: "\n").map(String.init)
        #expect(
            lines.first?.hasPrefix("chooser #1 nomatch") == true && lines.first?.contains("check") == true,
            "\(run.output)")
        #expect(lines.last == "1 of 1 strokes answered; 0 of 1 matched the gesture meant", "\(run.output)")
    }

    @Test(
        "another session whose id starts with this one's: its events, and its messages that are not, are passed over",
        arguments: [false, true])
    func otherSessions(undecodable: Bool) throws {
        let worker = try StandInWorker(session: "tool-send", undecodable: undecodable)
        defer { worker.wait() }
        let run = try StrokeToolTests.run([
            "send", "--input", worker.input, "--output", worker.output, "--gesture", "check", "--session", "tool-send",
            "--timeout", "5",
        ])
        // The stand-in answers the stroke with a match of tool-send-2's stroke 1, then a nomatch of tool-send's.
        #expect(run.status == 1, "\(run.output) \(run.error)")
        #expect(!run.output.contains("tool-send-2"), "\(run.output)")
        #expect(run.output.contains("tool-send #1 nomatch"), "\(run.output)")
        #expect(run.output.hasSuffix("1 of 1 strokes answered; 0 of 1 matched the gesture meant\n"), "\(run.output)")
    }

    @Test("no worker answers: exit 1 and why, within the timeout")
    func noWorker() throws {
        let run = try StrokeToolTests.run([
            "send", "--input", "tcp://127.0.0.1:9", "--output", "tcp://127.0.0.1:9", "--timeout", "0.3",
        ])
        #expect(run.status == 1)
        #expect(run.error.contains("stroke-tool send: no pong for session stroke-tool-send/"), "\(run.error)")
        #expect(run.output == "0 of 1 strokes answered; 0 of 1 matched the gesture meant\n", "\(run.output)")
        // Its connections, told as `watch` tells its own (session 80: only the pong's timeout was said).
        #expect(run.error.contains("[stroke-tool send] output cannot connect yet"), "\(run.error)")
        #expect(run.error.contains("[stroke-tool send] input cannot connect yet"), "\(run.error)")
    }

    @Test("bad options: status 2 and why")
    func badOptions() throws {
        let empty = try Self.strokesFile([])
        let pointless = try Self.strokesFile([["points": [[Double]]()]])
        defer { for path in [empty, pointless] { try? FileManager.default.removeItem(atPath: path) } }
        let endpoints = ["--input", "tcp://127.0.0.1:9", "--output", "tcp://127.0.0.1:9"]
        for arguments in [
            ["send", "--input", "tcp://127.0.0.1:9"], ["send"] + endpoints + ["--gesture", "nope"],
            ["send"] + endpoints + ["--strokes", empty],
            ["send"] + endpoints + ["--strokes", pointless], ["send"] + endpoints + ["--batch", "0"],
            ["send"] + endpoints + ["--session", ""], ["send"] + endpoints + ["extra"],
            ["send"] + endpoints + ["--options", "{}"], ["send"] + endpoints + ["--options", "[1]"],
            ["send"] + endpoints + ["--options", #"{"minimumScore": 2}"#],
            ["send"] + endpoints + ["--options", #"{"followTilt": "no"}"#],
        ] {
            let run = try StrokeToolTests.run(arguments)
            #expect(run.status == 2, "\(arguments): \(run.error)")
            #expect(run.error.hasPrefix("stroke-tool send: "), "\(arguments): \(run.error)")
        }
        // A timeout of 0 is refused by a message that says so (it read "seconds, 0 to 3,600").
        let instant = try StrokeToolTests.run(["send"] + endpoints + ["--gesture", "check", "--timeout", "0"])
        #expect(instant.status == 2 && instant.error.contains("above 0 and up to 3,600, got 0.0"), "\(instant.error)")
        // Only the option that is wrong is named (session 81: "--batch: 1 to 1,000, got 32; --timeout: …").
        #expect(instant.error == "stroke-tool send: --timeout: seconds, above 0 and up to 3,600, got 0.0\n")
        let wide = try StrokeToolTests.run(["send"] + endpoints + ["--gesture", "check", "--batch", "1001"])
        #expect(wide.error == "stroke-tool send: --batch: 1 to 1,000, got 1001\n", "\(wide.error)")
        // A file that cannot be read is an I/O error (status 1), as for `recognize` and `library add`.
        let missing = try StrokeToolTests.run(["send"] + endpoints + ["--strokes", "/nonexistent.json"])
        #expect(missing.status == 1 && missing.error.hasPrefix("stroke-tool send: "), "\(missing.error)")
        #expect(missing.error.contains("cannot read /nonexistent.json"), "\(missing.error)")
    }
}
