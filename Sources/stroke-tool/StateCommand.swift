import Foundation
import StrokeProtocol
import StrokeRecognition
import StrokeWorker

/// `stroke-tool state`: what workers' state files (`--state-file`) hold, and how their sessions would split among
/// another number of workers.
enum StateCommand {
    static let usage = """
        USAGE
          stroke-tool state FILE... [--shards N] [--json]
              What workers' state files hold: for each, whether a graceful stop or a checkpoint wrote it and
              when, its sessions, those that differ from a new one (chosen gestures, learned gestures, other
              options) and their learned templates. With --shards N, how the sessions of all the files would
              split among N workers (--shard i/N), to plan a change of the shard count (--adopt-state): as a
              worker would take them, each bucket's from the newest file that holds it.
        """

    /// One file's contents, summed up.
    struct FileSummary: Encodable {
        var path: String
        /// When the file was last written (its modification time, ISO 8601).
        var written: String
        var checkpoint: Bool
        /// The shard of the worker whose sessions these were (files written before session 38 name none).
        var shard: String?
        /// Beside a file after a change of the shard count (`.departed`): the shard whose buckets were kept.
        var keptBy: String?
        /// When the sessions were as the file holds them (ISO 8601).
        var savedAt: String?
        var sessions: Int
        /// Sessions that a newer file holding their buckets, or an earlier one given, supersedes: a worker would not
        /// take them (`StateFile.currentSessions(of:servedBy:)`), and `--shards` leaves them out.
        var passedOver: Int
        var choosing: Int
        var learning: Int
        var learnedTemplates: Int
        var otherOptions: Int
    }

    /// The sessions a shard of `--shards N` would hold.
    struct ShardSummary: Encodable {
        var shard: String
        var sessions: Int
        var learning: Int
        var learnedTemplates: Int
    }

    /// The whole report (`--json`).
    struct Report: Encodable {
        var files: [FileSummary]
        var shards: [ShardSummary]?
    }

    static func run(_ arguments: [String]) throws -> Int32 {
        let args = try StrokeTool.parse(arguments, flags: ["json"], known: ["shards"], positional: nil)
        if args.flag("help") {
            print(usage)
            return 0
        }
        let shardCount: Int? = try args.value("shards").map { text in
            guard let count = Int(text), (1...ShardKey.bucketCount).contains(count) else {
                throw CommandLineArguments.Failure(
                    description: "--shards: a count from 1 to \(ShardKey.bucketCount), got \"\(text)\"")
            }
            return count
        }
        // After the options, so that a bad --shards is named as such, not taken for a missing file.
        guard !args.positional.isEmpty else {
            throw CommandLineArguments.Failure(description: "no state file given\n\n\(usage)")
        }
        var files: [FileSummary] = []
        var shards = shardCount.map { count in
            (0..<count).map { ShardSummary(shard: "\($0)/\(count)", sessions: 0, learning: 0, learnedTemplates: 0) }
        }
        let saved = try args.positional.map { path in
            guard let saved = try StateFile.read(path) else { throw RecognitionError(.io, "no state file at \(path)") }
            return saved
        }
        let current = StateFile.currentSessions(of: saved, servedBy: { _ in true })
        for (path, (saved, current)) in zip(args.positional, zip(saved, current)) {
            let modified = (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date
            var summary = FileSummary(
                path: path, written: modified.map { ISO8601DateFormatter().string(from: $0) } ?? "?",
                checkpoint: saved.isCheckpoint, shard: saved.shard?.description, keptBy: saved.keptBy?.description,
                savedAt: saved.savedAt.map { ISO8601DateFormatter().string(from: $0) },
                sessions: saved.sessions.count, passedOver: saved.sessions.count - current.count, choosing: 0,
                learning: 0, learnedTemplates: 0, otherOptions: 0)
            for session in saved.sessions {
                let learned = session.learned?.count ?? 0
                if session.gestures != nil { summary.choosing += 1 }
                if learned > 0 { summary.learning += 1 }
                summary.learnedTemplates += learned
                if session.library != "default" || session.orientation != nil || !session.checkmark
                    || session.followTilt != nil || session.multistroke != 0 || session.minimumSize != nil
                    || session.minimumScore != nil || session.gestureScores != nil
                {
                    summary.otherOptions += 1
                }
            }
            if let count = shardCount {
                for session in current {
                    let learned = session.learned?.count ?? 0
                    shards?[session.bucket % count].sessions += 1
                    shards?[session.bucket % count].learning += learned > 0 ? 1 : 0
                    shards?[session.bucket % count].learnedTemplates += learned
                }
            }
            files.append(summary)
        }
        if args.flag("json") {
            try StrokeTool.printJSON(Report(files: files, shards: shards))
            return 0
        }
        for file in files {
            print(
                "\(file.path): \(file.checkpoint ? "a checkpoint" : "a graceful stop's"), written \(file.written), "
                    + (file.shard.map { "shard \($0)\(file.keptBy.map { " less \($0)'s buckets" } ?? ""), " } ?? "")
                    + (file.savedAt.map { $0 == file.written ? "" : "as of \($0), " } ?? "")
                    + "\(String(counting: file.sessions, "session")); \(file.choosing) chose gestures, "
                    + "\(file.learning) learned \(String(counting: file.learnedTemplates, "template")), "
                    + "\(file.otherOptions) set other options"
                    + (file.passedOver > 0 ? "; \(file.passedOver) passed over (newer in another file)" : ""))
        }
        for shard in shards ?? [] {
            print(
                "shard \(shard.shard): \(String(counting: shard.sessions, "session")), \(shard.learning) with "
                    + "\(String(counting: shard.learnedTemplates, "learned template"))")
        }
        return 0
    }
}
