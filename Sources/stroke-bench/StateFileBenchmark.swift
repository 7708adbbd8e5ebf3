import Foundation
import StrokeRecognition
import StrokeWorker

/// What the state file (`--state-file`) costs the worker: writing and reading it for as many sessions as
/// `make state-file` keeps (101,000, 1,000 of them with a learned gesture, every tenth with a choice of two
/// gestures), and a checkpoint of the 11,000 of them that differ from a new session.
enum StateFileBenchmark {
    struct Row: Codable, Sendable {
        /// `stop` (the graceful stop's file, every session with its numbering) or `checkpoint` (only the sessions
        /// whose settings differ from a new session's, without numbering).
        var file: String
        var sessions: Int
        var learned: Int
        var bytes: Int
        /// Milliseconds to write the file (encoding, writing, renaming), median of the rounds.
        var writeMilliseconds: Double
        /// Milliseconds to read it back.
        var readMilliseconds: Double
    }

    /// Times `rounds` writes and reads of each file in a temporary directory.
    static func run(quick: Bool, rounds: Int) throws -> [Row] {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("stroke-bench-state-\(getpid())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let scale = quick ? 10 : 1
        let files = [
            ("stop", sessions(count: 101_000 / scale, learningEvery: 101, choosingEvery: 10, numbered: true)),
            ("checkpoint", sessions(count: 11_000 / scale, learningEvery: 11, choosingEvery: 1, numbered: false)),
        ]
        return try files.map { name, sessions in
            let path = directory + "/\(name).json"
            let saved = StateFile.Saved(sessions: sessions, isCheckpoint: name == "checkpoint")
            var writes = [Double](), reads = [Double]()
            for _ in 0..<max(rounds, 1) {
                writes.append(try milliseconds { try StateFile.write(saved, to: path) })
                var read: StateFile.Saved?
                reads.append(try milliseconds { read = try StateFile.read(path) })
                guard read == saved else { throw BenchError("state file: \(name) did not read back as written") }
            }
            let bytes = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? 0
            return Row(
                file: name, sessions: sessions.count, learned: sessions.filter { $0.learned != nil }.count,
                bytes: bytes, writeMilliseconds: writes.sorted()[writes.count / 2],
                readMilliseconds: reads.sorted()[reads.count / 2])
        }
    }

    /// `count` sessions: every `learningEvery`th learned one gesture (32 points, as the matcher keeps it), the
    /// others every `choosingEvery`th chose two gestures.
    static func sessions(count: Int, learningEvery: Int, choosingEvery: Int, numbered: Bool) -> [SessionSnapshot] {
        var generator = SeededGenerator(seed: 7)
        return (0..<count).map { index in
            var session = SessionSnapshot(
                session: "player-\(index)", seq: numbered ? UInt32(index % 5000 + 1) : nil,
                eventSeq: numbered ? UInt64(index % 700) : 0, library: "default")
            if index % learningEvery == 0 {
                let points = (0..<32).map { _ in
                    SIMD2(
                        Double.random(in: -120...120, using: &generator),
                        Double.random(in: -120...120, using: &generator))
                }
                session.learned = [GestureTemplate(name: "spell-\(index % 7)", points: points)]
            } else if index % choosingEvery == 0 {
                session.gestures = ["circle", "check"]
            }
            return session
        }
    }

    private static func milliseconds(_ body: () throws -> Void) throws -> Double {
        let started = BenchClock.now()
        try body()
        return Double(BenchClock.now() - started) / 1e6
    }
}
