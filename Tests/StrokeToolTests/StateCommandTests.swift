import Foundation
import Testing

/// `stroke-tool state`, run as an operator would on workers' state files.
@Suite("stroke-tool state")
struct StateCommandTests {
    /// A state file as a worker writes it, with `sessions` (JSON objects) and whether it is a checkpoint.
    static func write(_ sessions: [String], checkpoint: Bool = false, to path: String) throws {
        let text =
            #"{"format": "stroke-worker-state", "version": 1, "#
            + (checkpoint ? #""checkpoint": true, "# : "") + #""sessions": ["# + sessions.joined(separator: ", ") + "]}"
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    }

    /// A session of the default library, with `extra` fields.
    static func session(_ id: String, _ extra: String = "") -> String {
        #"{"session": ""# + id + #"", "seq": 3, "eventSeq": 2, "library": "default", "checkmark": true, "#
            + #""multistroke": 0"# + extra + "}"
    }

    @Test("what each file holds, and how N workers would split all their sessions, as text and JSON")
    func summary() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("state-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let first = directory.appendingPathComponent("a.json").path
        let second = directory.appendingPathComponent("b.json").path
        let learned = #", "learned": [{"name": "bolt", "points": [[0, 0], [10, 5], [0, 10], [10, 15]]}]"#
        try Self.write(
            [
                Self.session("p-1"), Self.session("p-2", #", "gestures": ["check", "v"]"#),
                Self.session("p-3", learned),
            ], to: first)
        try Self.write(
            [#"{"session": "p-4", "eventSeq": 0, "library": "default", "checkmark": false, "multistroke": 0}"#],
            checkpoint: true, to: second)

        let json = try StrokeToolTests.run(["state", first, second, "--shards", "2", "--json"])
        #expect(json.status == 0, "\(json.error)")
        let report = try #require(
            try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any])
        let files = try #require(report["files"] as? [[String: Any]])
        #expect(files.map { $0["sessions"] as? Int } == [3, 1])
        #expect(files.map { $0["checkpoint"] as? Bool } == [false, true])
        #expect(files[0]["choosing"] as? Int == 1 && files[0]["learning"] as? Int == 1)
        #expect(files[0]["learnedTemplates"] as? Int == 1 && files[1]["otherOptions"] as? Int == 1)
        let shards = try #require(report["shards"] as? [[String: Any]])
        #expect(shards.map { $0["shard"] as? String } == ["0/2", "1/2"])
        #expect(shards.compactMap { $0["sessions"] as? Int }.reduce(0, +) == 4)
        #expect(shards.compactMap { $0["learnedTemplates"] as? Int }.reduce(0, +) == 1)

        let text = try StrokeToolTests.run(["state", first])
        #expect(text.status == 0 && text.output.contains("a graceful stop's") && text.output.contains("3 sessions"))
        // One of a thing is not "1 templates" (session 80).
        #expect(text.output.contains(" learned 1 template, "), "\(text.output)")
        #expect(!text.output.contains("shard"))

        // A file beside another after a change of the shard count names both shards and when its sessions were so.
        let departed = directory.appendingPathComponent("c.json.departed").path
        let header = #"{"format": "stroke-worker-state", "version": 1, "shard": "1/3", "keptBy": "1/2", "#
        try Data((header + #""savedAt": "2026-12-03T10:00:00.250Z", "sessions": []}"#).utf8)
            .write(to: URL(fileURLWithPath: departed))
        let named = try StrokeToolTests.run(["state", departed, "--json"])
        let entry = try #require(
            (try JSONSerialization.jsonObject(with: Data(named.output.utf8)) as? [String: Any])?["files"]
                as? [[String: Any]]
        ).first
        #expect(entry?["shard"] as? String == "1/3" && entry?["keptBy"] as? String == "1/2")
        #expect(entry?["savedAt"] as? String == "2026-12-03T10:00:00Z")
        let line = try StrokeToolTests.run(["state", departed]).output
        #expect(line.contains("shard 1/3 less 1/2's buckets, as of 2026-12-03T10:00:00Z, 0 sessions"), "\(line)")

        // An older file of the same shard is passed over, as a worker would: the plan counts the newer one alone.
        let older = directory.appendingPathComponent("older.json").path
        let newer = directory.appendingPathComponent("newer.json").path
        for (path, time, sessions) in [
            (older, "09:00:00.000", [Self.session("p-1"), Self.session("p-2")]),
            (newer, "10:00:00.000", [Self.session("p-2")]),
        ] {
            let text =
                #"{"format": "stroke-worker-state", "version": 1, "shard": "0/1", "savedAt": "2026-12-03T"# + time
                + #"Z", "sessions": ["# + sessions.joined(separator: ", ") + "]}"
            try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        }
        let plan = try StrokeToolTests.run(["state", older, newer, "--shards", "1", "--json"])
        let planned = try #require(try JSONSerialization.jsonObject(with: Data(plan.output.utf8)) as? [String: Any])
        #expect((planned["files"] as? [[String: Any]])?.map { $0["passedOver"] as? Int } == [2, 0])
        #expect((planned["shards"] as? [[String: Any]])?.first?["sessions"] as? Int == 1)
        #expect(
            try StrokeToolTests.run(["state", older, newer]).output.contains("2 passed over (newer in another file)"))
    }

    @Test("no file, a missing file, a file that is no state file and a bad --shards give clear errors")
    func errors() throws {
        #expect(try StrokeToolTests.run(["state"]).status == 2)
        let missing = try StrokeToolTests.run(["state", "/nonexistent/state.json"])
        #expect(missing.status == 1 && missing.error.contains("no state file at /nonexistent/state.json"))
        let library = FileManager.default.temporaryDirectory.appendingPathComponent("lib-\(UUID().uuidString).json")
        try Data(#"{"format": "stroke-worker/template-library"}"#.utf8).write(to: library)
        defer { try? FileManager.default.removeItem(at: library) }
        let wrong = try StrokeToolTests.run(["state", library.path])
        #expect(
            wrong.status == 1 && wrong.error.contains("malformed_state: the state file \(library.path) is not a state"))
        #expect(try StrokeToolTests.run(["state", library.path, "--shards", "0"]).status == 2)
        // A bad --shards alone is named, not taken for a missing file.
        let shards = try StrokeToolTests.run(["state", "--shards", "-1"])
        #expect(shards.status == 2 && shards.error.contains("--shards: a count from 1 to"), "\(shards.error)")
    }
}
