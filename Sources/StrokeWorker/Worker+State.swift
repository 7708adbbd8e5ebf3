import Foundation
import Synchronization

// MARK: - Sessions across a restart (`--state-file`)

extension Worker {
    /// The sessions the state file holds, which it then no longer does: the file is removed once read, so that a
    /// worker that crashes later does not bring back sessions older than what its clients have seen since. A file
    /// that cannot be read is logged and moved aside (`PATH.unreadable`), and the worker starts without it.
    /// Sessions of buckets the worker no longer serves (another `--shard`) are written to `PATH.departed` before
    /// the file is removed, for the workers that serve them now (`adoptSessions`), and left out here.
    ///
    /// With checkpoints, the lanes' first one (right after they restored these sessions) takes the file's place; a
    /// checkpoint read is left until then. With `--adopt-state`, the sessions of the worker's buckets in other
    /// workers' files join them, each bucket's from the newest file that holds it (`adoptSessions(own:)`).
    func takeSavedSessions() -> StateFile.Saved {
        var saved = takeOwnSessions()
        saved.sessions = adoptSessions(own: saved)
        return saved
    }

    /// The sessions of the worker's own state file (`takeSavedSessions()`).
    private func takeOwnSessions() -> StateFile.Saved {
        let none = StateFile.Saved(sessions: [])
        guard let path = configuration.stateFile else { return none }
        let clock = ContinuousClock()
        let started = clock.now
        do {
            guard var saved = try StateFile.read(path) else { return none }
            let departed = saved.sessions.filter { !configuration.serves(bucket: $0.bucket) }
            if !departed.isEmpty {
                saved.sessions.removeAll { !configuration.serves(bucket: $0.bucket) }
                var kept = saved
                (kept.sessions, kept.keptBy) = (departed, configuration.stateFileShard)
                keep(kept, at: path + Self.departedSuffix)
            }
            // A checkpoint stays for a crash before the lanes' first one replaces it: it holds no numbering.
            // POSIX calls, as the file was read and is written: Foundation's FileManager takes a path of "~" or
            // "~/…" for the home directory's (before session 87 `--state-file ~` removed the home directory here,
            // and one it could not read moved it aside below).
            if !(saved.isCheckpoint && checkpointer != nil) { unlink(path) }
            logger.info(
                saved.isCheckpoint
                    ? "state file read: a checkpoint, the worker did not stop gracefully" : "state file read",
                [
                    "path": path, "sessions": "\(saved.sessions.count)",
                    "milliseconds": (clock.now - started).millisecondsText,
                ])
            return saved
        } catch {
            let aside = path + ".unreadable"
            // Over an older one; never over a directory, which the FileManager call before removed whole.
            if rename(path, aside) == 0 {
                logger.error("state file not read; starting without it", ["error": "\(error)", "movedTo": aside])
            } else {
                logger.error(
                    "state file not read, nor moved aside; starting without it",
                    ["error": "\(error)", "moveTo": aside, "moveError": String(cString: strerror(errno))])
            }
            return none
        }
    }

    /// The suffix of the file beside the state file that holds the sessions of buckets the worker served before a
    /// change of the shard count and no longer does: `sessions.json.departed`.
    static let departedSuffix = ".departed"

    /// Writes `saved`, sessions the worker no longer serves, to `path` for their new workers to adopt, with the
    /// shard and time of the file they were read from.
    private func keep(_ saved: StateFile.Saved, at path: String) {
        do {
            try StateFile.write(saved, to: path)
            logger.info(
                "state file: sessions of buckets this worker no longer serves kept for their new worker",
                ["path": path, "sessions": "\(saved.sessions.count)"])
        } catch {
            logger.error(
                "state file: sessions of buckets this worker no longer serves lost",
                ["sessions": "\(saved.sessions.count)", "error": "\(error)"])
        }
    }

    /// Writes the lanes' sessions after their drain to the state file, if there is one, in place of the last
    /// checkpoint (which stays if this fails).
    func saveSessions() {
        guard let path = configuration.stateFile else { return }
        let sessions = control.savedSessions.withLock { saved in
            defer { saved = [] }
            return saved
        }
        let write = {
            let clock = ContinuousClock()
            let started = clock.now
            do {
                try StateFile.write(
                    StateFile.Saved(sessions: sessions, shard: self.configuration.stateFileShard, savedAt: Date()),
                    to: path)
                self.logger.info(
                    "state file written",
                    [
                        "path": path, "sessions": "\(sessions.count)",
                        "milliseconds": (clock.now - started).millisecondsText,
                    ])
            } catch {
                self.logger.error("state file not written: \(error)")
                // Sessions lost: the exit status says so. With none there was nothing to keep.
                guard !sessions.isEmpty else { return }
                let whose = sessions.count == 1 ? "1 session's" : "\(sessions.count) sessions'"
                self.control.stateFileFailure.withLock {
                    $0 =
                        "the state file was not written at the stop, so \(whose) numbering, options and learned "
                        + "gestures were not kept (a checkpoint may hold the options and learned gestures of an "
                        + "earlier moment): \(error)"
                }
            }
        }
        if let checkpointer { checkpointer.finish(writing: write) } else { write() }
    }
}

/// Sessions handed to a lane once: the lane takes them, and nothing holds them after it restored them.
final class SessionHandoff: Sendable {
    private let sessions: Mutex<[SessionSnapshot]?>

    /// A handoff of `sessions` (none by default).
    init(_ sessions: [SessionSnapshot] = []) { self.sessions = Mutex(sessions) }

    /// The sessions, the first time; nil after that.
    func take() -> [SessionSnapshot]? { sessions.withLock { $0.take() } }
}
