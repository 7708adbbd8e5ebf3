import Foundation
import StrokeProtocol
import StrokeRecognition
import Testing

@testable import StrokeWorker

@Suite("The state file's own encoding and reading")
struct StateFileTests {
    /// Sessions with every field set and unset, names that need escaping, and numbers at the ends of `Double`'s
    /// range.
    static let awkward: [SessionSnapshot] = [
        SessionSnapshot(session: "plain", seq: 1, eventSeq: 0, library: "default"),
        SessionSnapshot(
            session: "quote\"back\\slash/tab\tnew\nline\u{01}\u{7F}", seq: UInt32.max, eventSeq: UInt64.max,
            library: "ünïcödé 🎯", orientation: "sensitive", checkmark: false, multistroke: 10_000,
            gestures: ["circle", "", "\u{2028}"], tilt: TiltEstimate(degrees: -45, samples: 3), followTilt: true),
        SessionSnapshot(
            session: "teacher", seq: nil, eventSeq: 0, library: "default", orientation: "invariant",
            gestures: [],
            learned: [
                GestureTemplate(
                    name: "numbers",
                    points: [
                        SIMD2(0.1, -0.0), SIMD2(1e-300, -1.7976931348623157e308),
                        SIMD2(Double(bitPattern: 1), 123456789.123456789),
                        SIMD2(-2.2250738585072014e-308, 1 / 3), SIMD2(1e22, 100), SIMD2(0.000001, 9007199254740994),
                    ]),
                GestureTemplate(name: "two strokes", strokes: [[SIMD2(0, 0), SIMD2(1, 1)], [SIMD2(2.5, -3.25)]]),
            ], followTilt: false, minimumScore: 0.65),
    ]

    /// What `JSONEncoder` makes of the same contents, the encoding the file had before and that `read` decodes.
    struct Reference: Encodable {
        var checkpoint: Bool?
        var format = StateFile.format
        var savedAt: String
        var sessions: [SessionSnapshot]
        var version = StateFile.version
    }

    @Test("it reads back exactly, and it is the JSON that JSONEncoder writes for the same contents")
    func sameAsJSONEncoder() throws {
        for checkpoint in [false, true] {
            let saved = StateFile.Saved(sessions: Self.awkward, isCheckpoint: checkpoint)
            let bytes = StateFile.encode(saved, savedAt: "2026-12-03T04:00:00Z")
            let reference = try JSONEncoder().encode(
                Reference(checkpoint: checkpoint ? true : nil, savedAt: "2026-12-03T04:00:00Z", sessions: Self.awkward))
            let ours = try JSONSerialization.jsonObject(with: Data(bytes)) as? NSDictionary
            let theirs = try JSONSerialization.jsonObject(with: reference) as? NSDictionary
            #expect(ours != nil && ours == theirs, "\(String(decoding: bytes, as: UTF8.self))")

            let path = SessionSnapshotTests.temporaryPath("state.json")
            defer { try? FileManager.default.removeItem(atPath: path) }
            try StateFile.write(saved, to: path)
            let read = try #require(try StateFile.read(path))
            #expect(read.withoutTime == saved)
            // Bit for bit, negative zero included.
            let numbers = { (saved: StateFile.Saved) in
                saved.sessions.flatMap { $0.learned ?? [] }.flatMap(\.points).flatMap {
                    [$0.x.bitPattern, $0.y.bitPattern]
                }
            }
            #expect(numbers(read) == numbers(saved) && numbers(saved).count == 18)
        }
    }

    @Test("a session's thresholds and minimum size read back exactly, as every number of the file does")
    func optionsExact() throws {
        // Found by `make fuzz-coverage`'s state target: they were written to 6 decimals, so that a session's
        // `gestureScores` of 0.8888888888888888 came back from a restart as 0.888889.
        let session = SessionSnapshot(
            session: "s", seq: 1, eventSeq: 1, library: "default", minimumSize: 20.123456789,
            minimumScore: 0.8888888888888888, gestureScores: ["fire": 0.8888888888888888, "ice": 1e-7])
        let read = try StateFile.read(Data(StateFile.encode(StateFile.Saved(sessions: [session]))), source: "test")
        #expect(read.sessions == [session])
    }

    @Test("savedAt is read as RFC 3339 by hand: as the formatter writes it, with an offset, and nil when damaged")
    func savedAtRead() throws {
        // Every day from 1970 to 2100 at some time of it, as the writer writes it, reads back to the millisecond.
        for day in stride(from: 0, to: 47_847, by: 37) {
            let date = Date(timeIntervalSince1970: Double(day) * 86_400 + Double(day % 86_400) + 0.125)
            let read = try #require(StateFile.date(fromTimestamp: StateFile.timestamp(date)), "\(date)")
            #expect(abs(read.timeIntervalSince(date)) < 0.0005, "\(StateFile.timestamp(date))")
        }
        let noon = try #require(StateFile.date(fromTimestamp: "2026-12-04T15:00:00Z"))
        #expect(noon.timeIntervalSince1970 == 1_796_396_400)
        #expect(StateFile.date(fromTimestamp: "2026-12-04T16:30:00.5+01:30") == noon.addingTimeInterval(0.5))
        #expect(StateFile.date(fromTimestamp: "2024-02-29T00:00:00Z") != nil)
        // A fraction of a hundred digits stopped the process inside ICU's parser (`make fuzz-coverage`): now it is
        // read to the nanosecond.
        let long = "2026-12-04T15:00:00.1" + String(repeating: "6", count: 100) + "Z"
        #expect(try #require(StateFile.date(fromTimestamp: long)).timeIntervalSince(noon) > 0.166)
        for bad in [
            "2026-02-29T00:00:00Z", "2026-12-04 15:00:00Z", "2026-12-04T15:00:00", "2026-12-04T15:00:00.Z",
            "2026-13-04T15:00:00Z", "2026-12-04T24:00:00Z", "2026-12-04T15:00:00Zx", "2026-12-04T15:00:00+1:00", "",
            "２０２６-12-04T15:00:00Z",
        ] {
            #expect(StateFile.date(fromTimestamp: bad) == nil, "\(bad)")
        }
    }

    @Test("the shard, the shard that kept its own sessions, and the time to the millisecond read back")
    func shardAndTime() throws {
        let path = SessionSnapshotTests.temporaryPath("shard")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let savedAt = Date(timeIntervalSince1970: 1_796_000_000.123)
        let saved = StateFile.Saved(
            sessions: [], shard: .init(index: 1, count: 3), keptBy: .init(index: 1, count: 2), savedAt: savedAt)
        try StateFile.write(saved, to: path)
        let read = try #require(try StateFile.read(path))
        #expect(read.shard == .init(index: 1, count: 3) && read.keptBy == .init(index: 1, count: 2))
        #expect(abs(try #require(read.savedAt).timeIntervalSince(savedAt)) < 0.001)
        // Shard 1 of 3 less shard 1 of 2: buckets 4 modulo 6 are held; 1 and 7 were kept by shard 1 of 2.
        #expect([4, 10, 4_090].allSatisfy(read.holdsAll(ofBucket:)))
        #expect(![1, 7, 2, 3, 0].contains(where: read.holdsAll(ofBucket:)))
        for bad in ["3/3", "1", "-1/2", "a/b"] {
            let text = #"{"format":"stroke-worker-state","version":1,"shard":"\#(bad)","sessions":[]}"#
            try Data(text.utf8).write(to: URL(fileURLWithPath: path))
            #expect(throws: RecognitionError.self) { try StateFile.read(path) }
        }
    }

    @Test("a number that is not finite is written as null, which the file's reader refuses rather than guessing")
    func notFinite() throws {
        let saved = StateFile.Saved(sessions: [
            SessionSnapshot(
                session: "odd", seq: 1, eventSeq: 1, library: "default",
                learned: [GestureTemplate(name: "nan", points: [SIMD2(.nan, .infinity)])])
        ])
        let text = String(decoding: StateFile.encode(saved, savedAt: "now"), as: UTF8.self)
        #expect(text.contains(#""points":[[null,null]]"#), "\(text)")
    }

    @Test("a staging file left by a crash, with other permissions, is replaced by one its owner alone can read")
    func staleStagingFile() throws {
        let path = SessionSnapshotTests.temporaryPath("state.json")
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data("left over".utf8).write(to: URL(fileURLWithPath: path + ".partial"))
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path + ".partial")
        try StateFile.write(StateFile.Saved(sessions: Self.awkward), to: path)
        #expect(try StateFile.read(path)?.withoutTime == StateFile.Saved(sessions: Self.awkward))
        #expect(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int == 0o600)
        #expect(!FileManager.default.fileExists(atPath: path + ".partial"))
    }

    @Test("a file that cannot be written says which step failed and why, and leaves nothing behind")
    func cannotWrite() throws {
        let directory = SessionSnapshotTests.temporaryPath("state-directory")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // The target is a directory that is not empty: the rename over it fails.
        let path = directory + "/state.json"
        try FileManager.default.createDirectory(atPath: path + "/inside", withIntermediateDirectories: true)
        let error = #expect(throws: RecognitionError.self) {
            try StateFile.write(StateFile.Saved(sessions: []), to: path)
        }
        #expect(error?.code == .io, "\(String(describing: error))")
        #expect(error?.message.contains("rename to \(path)") == true, "\(String(describing: error))")
        #expect(!FileManager.default.fileExists(atPath: path + ".partial"))
        let missing = #expect(throws: RecognitionError.self) {
            try StateFile.write(StateFile.Saved(sessions: []), to: "/nonexistent-directory/state.json")
        }
        #expect(missing?.message.contains("open /nonexistent-directory/state.json.partial") == true)
        #expect(missing?.message.contains("No such file or directory") == true)
    }

    @Test("a file JSONEncoder wrote, as workers before wrote theirs, reads the same, spaced out or not")
    func readsJSONEncoderFiles() throws {
        let path = SessionSnapshotTests.temporaryPath("state.json")
        defer { try? FileManager.default.removeItem(atPath: path) }
        for formatting in [JSONEncoder.OutputFormatting.sortedKeys, [.prettyPrinted, .withoutEscapingSlashes]] {
            let encoder = JSONEncoder()
            encoder.outputFormatting = formatting
            try encoder.encode(Reference(checkpoint: nil, savedAt: "then", sessions: Self.awkward))
                .write(to: URL(fileURLWithPath: path))
            #expect(try StateFile.read(path)?.withoutTime == StateFile.Saved(sessions: Self.awkward))
        }
    }

    @Test("keys it does not know are skipped, and null stands for a field left out")
    func unknownKeysAndNull() throws {
        let path = SessionSnapshotTests.temporaryPath("state.json")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let text = """
            {"later": {"nested": [1, {"a": null}]}, "sessions": [
              {"session": "s", "library": "default", "eventSeq": 18446744073709551615, "checkmark": true,
               "multistroke": 0, "seq": null, "orientation": null, "gestures": null, "learned": null, "new": "x"},
              {"session": "t", "library": "default", "eventSeq": 0, "checkmark": false, "multistroke": 250,
               "seq": 4294967295, "learned": [{"name": "z", "points": [[1, 2.5e-3], [-3E2, 0]], "colour": 1}]}
            ], "format": "stroke-worker-state", "checkpoint": null, "version": 1}
            """
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        let read = try #require(try StateFile.read(path))
        #expect(!read.isCheckpoint)
        #expect(
            read.sessions == [
                SessionSnapshot(session: "s", seq: nil, eventSeq: UInt64.max, library: "default"),
                SessionSnapshot(
                    session: "t", seq: UInt32.max, eventSeq: 0, library: "default", checkmark: false,
                    multistroke: 250, learned: [GestureTemplate(name: "z", points: [SIMD2(1, 0.0025), SIMD2(-300, 0)])]),
            ])
    }

    @Test("read for some buckets: their sessions only, the others passed over unparsed, in one pass or two")
    func someBuckets() throws {
        let path = SessionSnapshotTests.temporaryPath("state.json")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let names = (0..<40).map { "s\($0)" }
        let shard = StateFile.Shard(index: 1, count: 3)
        let sessions = names.map { SessionSnapshot(session: $0, seq: 1, eventSeq: 2, library: "default") }
        let wanted = sessions.filter { shard.serves(bucket: $0.bucket) }
        #expect(!wanted.isEmpty && wanted.count < sessions.count)
        let saved = StateFile.Saved(sessions: Self.awkward + sessions, shard: shard)
        try StateFile.write(saved, to: path)
        let all = try #require(try StateFile.read(path))
        let some = try #require(try StateFile.read(path, buckets: shard.serves(bucket:)))
        #expect(some.sessions == all.sessions.filter { shard.serves(bucket: $0.bucket) })
        #expect(some.shard == all.shard && some.savedAt == all.savedAt)
        // A session of a bucket passed over is not checked: one without its library, whose learned template has no
        // name, refuses the whole file only when it is read. Sessions before the format and version are read in a
        // second pass, filtered the same.
        let other = try #require(names.first { !shard.serves(bucket: ShardKey.bucket(of: $0)) })
        let mine = try #require(names.first { shard.serves(bucket: ShardKey.bucket(of: $0)) })
        let text = """
            {"sessions": [
              {"session": "\(other)", "eventSeq": 1, "checkmark": true, "multistroke": 0, "learned": [{"x": [1]}]},
              {"session": "\(mine)", "library": "default", "eventSeq": 3, "checkmark": true, "multistroke": 0}
            ], "format": "stroke-worker-state", "version": 1}
            """
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        #expect(throws: RecognitionError.self) { try StateFile.read(path) }
        let filtered = try #require(try StateFile.read(path, buckets: shard.serves(bucket:)))
        #expect(filtered.sessions == [SessionSnapshot(session: mine, seq: nil, eventSeq: 3, library: "default")])
    }

    @Test("a file that is not a state file says what is wrong and at which byte")
    func malformed() throws {
        let path = SessionSnapshotTests.temporaryPath("state.json")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let session = #""session": "s", "library": "default", "eventSeq": 1, "checkmark": true, "multistroke": 0"#
        func file(_ sessions: String) -> String {
            #"{"format": "stroke-worker-state", "version": 1, "sessions": [\#(sessions)]}"#
        }
        for (text, fragment) in [
            (
                file(#"{"library": "default", "eventSeq": 1, "checkmark": true, "multistroke": 0}"#),
                "the session has no \"session\" at byte 61"
            ),
            (file("{\(session), \"seq\": 4294967296}"), "integer out of range 0...4294967295"),
            (file("{\(session), \"seq\": -1}"), "integer out of range"),
            (file("{\(session), \"eventSeq\": 1.5}"), "expected an integer, not a fraction"),
            (file("{\(session), \"eventSeq\": 01}"), "leading zero"),
            (file("{\(session), \"checkmark\": 1}"), "expected true or false"),
            (file("{\(session), \"followTilt\": \"no\"}"), "expected true or false"),
            (file("{\(session), \"minimumScore\": \"high\"}"), "expected a number"),
            (file("{\(session), \"learned\": [{\"name\": \"z\", \"points\": [[1, 2, 3]]}]}"), "more than two numbers"),
            (file("{\(session), \"learned\": [{\"name\": \"z\", \"points\": [[1]]}]}"), "a point has 1 numbers"),
            (file("{\(session), \"learned\": [{\"name\": \"z\"}]}"), "either \"points\" (one stroke) or \"strokes\""),
            (file("{\(session), \"learned\": [{\"name\": \"z\", \"strokes\": []}]}"), "\"strokes\" is empty"),
            (file("{\(session), \"learned\": [{\"points\": []}]}"), "has no \"name\""),
            (file("{\(session), \"tilt\": {\"degrees\": 46, \"samples\": 3}}"), "\"degrees\" within ±45"),
            (file("{\(session), \"tilt\": {\"degrees\": -3, \"samples\": 0}}"), "\"samples\" from 1 to 3"),
            (file("{\(session), \"tilt\": {\"samples\": 2}}"), "needs \"degrees\""),
            (file("{\(session), \"tilt\": {\"degrees\": 1.5, \"samples\": 2}}"), "expected an integer"),
            (file("{\(session), \"tilt\": 12}"), "expected '{'"),
            (file("{\(session)} {"), "expected ']'"),
            (#"{"format": "stroke-worker-state", "version": 1}"#, "it has no sessions"),
            (#"{"format": "stroke-worker-state", "version": 1, "sessions": {}}"#, "expected '['"),
            (#"{"format": "stroke-worker-state", "version": 1, "sessions": []} x"#, "trailing characters"),
            ("[]", "expected '{'"),
        ] {
            try Data(text.utf8).write(to: URL(fileURLWithPath: path))
            let error = #expect(throws: RecognitionError.self, "\(text)") { try StateFile.read(path) }
            #expect(error?.code == .malformedState, "\(text)")
            #expect(error?.message.contains(fragment) == true, "\(String(describing: error?.message))")
        }
    }

    @Test("a damaged file, byte by byte or cut short, is read or refused with an error: never a crash")
    func damaged() throws {
        let path = SessionSnapshotTests.temporaryPath("state.json")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let good = StateFile.encode(StateFile.Saved(sessions: Self.awkward, isCheckpoint: true), savedAt: "then")
        var generator = SeededGenerator(seed: 34)
        let special = Array(#"{}[],:"\u0123456789.eE+-ntrfl"#.utf8) + [0, 0x7F, 0xC3, 0xFF]
        var (read, refused) = (0, 0)
        for round in 0..<1500 {
            var bytes = good
            if round % 5 == 0 {
                bytes.removeLast(Int.random(in: 1..<bytes.count, using: &generator))
            } else {
                for _ in 0..<Int.random(in: 1...3, using: &generator) {
                    let at = Int.random(in: 0..<bytes.count, using: &generator)
                    bytes[at] = special.randomElement(using: &generator)!
                }
            }
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            do {
                _ = try StateFile.read(path)
                read += 1
            } catch {
                #expect([.malformedState, .unsupportedVersion].contains(error.code), "\(error)")
                refused += 1
            }
        }
        #expect(read > 0 && refused > 0, "read \(read), refused \(refused)")
    }
}

extension StateFile.Saved {
    /// The same contents without `savedAt`, which a file always has once written.
    var withoutTime: Self {
        var copy = self
        copy.savedAt = nil
        return copy
    }
}
