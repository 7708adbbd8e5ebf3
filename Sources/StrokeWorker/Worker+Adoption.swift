import Foundation
import StrokeRecognition

// MARK: - Sessions whose bucket moved here (`--adopt-state`)

extension Worker {
    /// The sessions to start with: those of the worker's own file (`own`) and those of its buckets that other
    /// workers' state files hold (`adoptStatePaths`), each bucket's from the newest file that holds all of its
    /// sessions; the adopted ones without their numbering.
    ///
    /// When the shard count changes, a bucket's sessions move to a worker that has no state for them; the worker
    /// that held them wrote them to its state file at its stop, and every `checkpointIntervalSeconds` while it ran,
    /// and once started again with the new count it keeps those it no longer serves beside that file
    /// (`PATH.departed`, `takeSavedSessions()`). Taken from there, they come back as from a checkpoint: their
    /// options, chosen and learned gestures, and a `session_reset` with `restored: true` on their next message.
    /// The numbering stays behind: that file may be older than what the session's producer and consumers have seen
    /// since. Files are read, never changed: other workers read them too; each for this worker's buckets only, the
    /// other sessions passed over unparsed (`StateFile.read(_:buckets:)`). One that cannot be read, or was last
    /// written more than `adoptStateMaxAgeSeconds` ago, is passed over with a line in the log.
    ///
    /// Each file names the shard whose sessions it holds and when (`StateFile.currentSessions(of:servedBy:)`): for
    /// each bucket only the newest such file counts, the worker's own included, so that a file left from an
    /// earlier shard count (the worker's own, after 3 → 2 → 3 workers; a `.departed` one) brings back neither
    /// older state nor sessions that have ended since. Files without (written before session 38) count only for
    /// buckets that no file names.
    func adoptSessions(own: StateFile.Saved) -> [SessionSnapshot] {
        guard !configuration.adoptStatePaths.isEmpty else { return own.sessions }
        // A path with nothing there, not even its `.departed` file, adopts nothing: said, since a misspelt one
        // would otherwise lose the sessions it was meant to bring over without a word.
        let manager = FileManager.default
        for path in configuration.adoptStatePaths
        where !manager.fileExists(atPath: path) && !manager.fileExists(atPath: path + Self.departedSuffix) {
            logger.warning("--adopt-state: nothing at this path; no sessions adopted from it", ["path": path])
        }
        var files: [(path: String, saved: StateFile.Saved)] = []
        // The worker's own file and what it just kept beside it, under whatever path they are reached (a directory
        // given to adopt from may hold them, or mount them elsewhere): told apart by device and inode.
        let ownFiles = Set(
            (configuration.stateFile.map { [$0, $0 + Self.departedSuffix] } ?? []).compactMap(Self.identity(of:)))
        // The files, then the sessions their workers no longer serve beside them. A worker writes those before it
        // removes the file it read (`takeSavedSessions()`), so one of the two holds them whenever they are read.
        let bases = Self.stateFiles(in: configuration.adoptStatePaths)
        // Each file once, whatever paths reach it (`states` and `/srv/states`, a link).
        var read = Set<[Int]>()
        for path in bases + bases.map({ $0 + Self.departedSuffix }) {
            guard let age = Self.age(of: path), let identity = Self.identity(of: path), !ownFiles.contains(identity),
                read.insert(identity).inserted
            else { continue }
            guard age <= Double(configuration.adoptStateMaxAgeSeconds) else {
                logger.info(
                    "state file to adopt from passed over: last written too long ago",
                    ["path": path, "seconds": "\(Int(age))", "maximum": "\(configuration.adoptStateMaxAgeSeconds)"])
                continue
            }
            do {
                // Only this worker's buckets: the others' sessions are passed over unparsed.
                if let saved = try StateFile.read(path, buckets: configuration.serves(bucket:)) {
                    files.append((path, saved))
                }
            } catch {
                logger.warning("state file to adopt from not read", ["path": path, "error": "\(error)"])
            }
        }
        let current = StateFile.currentSessions(of: [own] + files.map(\.saved), servedBy: configuration.serves)
        let kept = current[0]
        if kept.count < own.sessions.count {
            logger.info(
                "state file: sessions passed over, a newer file of another worker holds their buckets",
                ["sessions": "\(own.sessions.count - kept.count)", "kept": "\(kept.count)"])
        }
        var adopted: [SessionSnapshot] = []
        for ((path, saved), sessions) in zip(files, current.dropFirst()) {
            adopted += sessions.map { session in
                var moved = session
                moved.seq = nil
                moved.eventSeq = 0
                return moved
            }
            logger.info(
                "sessions adopted from another worker's state file",
                ["path": path, "sessions": "\(sessions.count)", "ofItsBuckets": "\(saved.sessions.count)"])
        }
        return kept + adopted
    }

    /// The state files `paths` name: each file itself, and for a directory the regular files in it and in its
    /// subdirectories (one level down), in order of their paths, each once: `X.departed` counts as `X`, staging
    /// files (`.partial`) and files moved aside (`.unreadable`) are left out. A file named is listed whether it
    /// exists or not (its `.departed` may); the reader passes over those that do not.
    static func stateFiles(in paths: [String]) -> [String] {
        let manager = FileManager.default
        func isDirectory(_ path: String) -> Bool {
            var directory: ObjCBool = false
            return manager.fileExists(atPath: path, isDirectory: &directory) && directory.boolValue
        }
        func entries(of directory: String) -> [String] {
            ((try? manager.contentsOfDirectory(atPath: directory)) ?? []).sorted().map {
                directory == "/" ? "/" + $0 : directory + "/" + $0
            }
        }
        // Joined as strings, as the files are read: Foundation's URL takes "~" or "~/…" for the home directory's
        // path (before session 87 `--adopt-state ~/states` read the home directory's `states`).
        var files: [String] = []
        for path in paths.map({ String(RecognitionError.withoutTrailingSlashes($0)) }) {
            guard isDirectory(path) else {
                files.append(path)
                continue
            }
            for entry in entries(of: path) {
                if isDirectory(entry) {
                    files += entries(of: entry).filter { !isDirectory($0) }
                } else {
                    files.append(entry)
                }
            }
        }
        var unique = Set<String>()
        return files.filter { !$0.hasSuffix(".partial") && !$0.hasSuffix(".unreadable") }
            .map { $0.hasSuffix(departedSuffix) ? String($0.dropLast(departedSuffix.count)) : $0 }
            .filter { unique.insert($0).inserted }
    }

    /// A file's device and inode; nil when it cannot be told (the file is gone).
    private static func identity(of path: String) -> [Int]? {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
            let device = (attributes[.systemNumber] as? NSNumber)?.intValue,
            let inode = (attributes[.systemFileNumber] as? NSNumber)?.intValue
        else { return nil }
        return [device, inode]
    }

    /// Seconds since `path` was last written; nil when it cannot be told (the file is gone).
    private static func age(of path: String) -> Double? {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
            let modified = attributes[.modificationDate] as? Date
        else { return nil }
        return max(0, Date().timeIntervalSince(modified))
    }
}
