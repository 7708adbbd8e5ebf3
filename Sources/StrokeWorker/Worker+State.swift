import Foundation
import Synchronization

// MARK: - Sessions across a restart (`--state-file`)

extension Worker {
    /// The sessions the state file holds, which it then no longer does: the file is removed once read, so that a
    /// worker that crashes later does not bring back sessions older than what its clients have seen since. A file
    /// that cannot be read is logged and moved aside (`PATH.unreadable`), and the worker starts without it.
    func takeSavedSessions() -> [SessionSnapshot] {
        guard let path = configuration.stateFile else { return [] }
        do {
            guard let sessions = try StateFile.read(path) else { return [] }
            try? FileManager.default.removeItem(atPath: path)
            logger.info("state file read", ["path": path, "sessions": "\(sessions.count)"])
            return sessions
        } catch {
            let aside = path + ".unreadable"
            try? FileManager.default.removeItem(atPath: aside)
            try? FileManager.default.moveItem(atPath: path, toPath: aside)
            logger.error("state file not read; starting without it", ["error": "\(error)", "movedTo": aside])
            return []
        }
    }

    /// Writes the lanes' sessions after their drain to the state file, if there is one.
    func saveSessions() {
        guard let path = configuration.stateFile else { return }
        let sessions = control.savedSessions.withLock { saved in
            defer { saved = [] }
            return saved
        }
        do {
            try StateFile.write(sessions, to: path)
            logger.info("state file written", ["path": path, "sessions": "\(sessions.count)"])
        } catch {
            logger.error("state file not written: \(error)")
        }
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
