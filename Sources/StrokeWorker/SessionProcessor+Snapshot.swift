import StrokeProtocol
import StrokeRecognition

// MARK: - Sessions across a restart

/// What `SessionProcessor.restore(_:)` made of a state file's sessions.
public struct RestoreReport: Sendable, Hashable {
    /// Sessions restored.
    public var restored = 0
    /// Sessions left out, each with why (a library the worker no longer has, an id twice, a value out of range).
    public var skipped: [String] = []
    /// Learned templates left out: over the limits, or not a stroke the matcher can take.
    public var templatesDropped = 0

    /// Creates an empty report.
    public init() {}
}

/// What changed in a lane's checkpoint (`SessionProcessor.checkpointChanges()`).
public struct CheckpointChanges: Sendable, Hashable {
    /// Sessions to add to the checkpoint or to replace in it.
    public var changed: [SessionSnapshot] = []
    /// Ids of sessions to take out of it.
    public var removed: [String] = []

    /// Whether nothing changed.
    public var isEmpty: Bool { changed.isEmpty && removed.isEmpty }

    /// Creates an empty set of changes.
    public init() {}
}

extension SessionProcessor {
    /// The lane's sessions as they stand: numbering, options and learned gestures (`SessionSnapshot`), for a state
    /// file. Open strokes are not kept.
    public func snapshot() -> [SessionSnapshot] {
        table.sessions.map { snapshot(of: $0, numbered: true) }
    }

    /// A checkpoint of the lane's sessions, for a worker that crashes (`WorkerConfiguration.checkpointIntervalSeconds`):
    /// those whose options, chosen gestures or learned gestures differ from a new session's, without their
    /// numbering (`seq` nil, `eventSeq` 0). The others would come back as they are without it.
    ///
    /// The lane makes it once, at its start; after that it hands over `checkpointChanges()`.
    public func checkpoint() -> [SessionSnapshot] {
        var sessions: [SessionSnapshot] = []
        for session in table.sessions where ownSettingsChanged(session) {
            sessions.append(snapshot(of: session, numbered: false))
        }
        // The sessions whose only change is a choice, learned gestures, a minimum size or a minimum score, found
        // from those (usually few) rather than by lookups for every session; each once.
        func add(_ key: SessionKey) {
            let found = key.withUnsafeBytes { table.find($0, hash: table.hash($0)) }
            guard let index = found, !ownSettingsChanged(table.sessions[index]) else { return }
            sessions.append(snapshot(of: table.sessions[index], numbered: false))
        }
        var seen = Set<SessionKey>()
        for keys in [
            Array(core.choices.keys), Array(core.learned.keys), Array(core.minimumSizes.keys),
            Array(core.minimumScores.keys), Array(core.gestureScores.keys),
        ] {
            for key in keys where seen.insert(key).inserted { add(key) }
        }
        return sessions
    }

    /// What changed in the lane's checkpoint since the last call: the sessions whose options, choice or learned
    /// gestures changed (as `checkpoint()` has them), and those that left it (closed, idle, back to a new
    /// session's settings), at most `limit` of them; the rest wait for the next call
    /// (`hasCheckpointChanges`). It costs the lane the sessions that changed, not all of them. Empty when the
    /// worker writes no checkpoints.
    public mutating func checkpointChanges(limit: Int = .max) -> CheckpointChanges {
        var changes = CheckpointChanges()
        guard var noted = core.settingsChanged, !noted.isEmpty else { return changes }
        core.settingsChanged = nil  // unshared while it is taken from
        var keys: [SessionKey] = []
        while keys.count < limit, let key = noted.popFirst() { keys.append(key) }
        core.settingsChanged = noted
        for key in keys {
            let found = key.withUnsafeBytes { table.find($0, hash: table.hash($0)) }
            if let index = found, isCheckpointed(table.sessions[index]) {
                changes.changed.append(snapshot(of: table.sessions[index], numbered: false))
            } else {
                changes.removed.append(key.withUnsafeBytes { String(decoding: $0, as: UTF8.self) })
            }
        }
        return changes
    }

    /// Whether sessions noted for the checkpoint wait for `checkpointChanges(limit:)`.
    public var hasCheckpointChanges: Bool { core.settingsChanged?.isEmpty == false }

    /// Whether the session's own fields differ from a new session's.
    private func ownSettingsChanged(_ session: Session) -> Bool {
        session.library != 0 || session.invariant != nil || session.checkmark != configuration.checkmarkByDefault
            || session.followsTilt != configuration.checkmarkFollowsTilt
            || session.multistroke != UInt16(configuration.multistrokeMilliseconds)
    }

    /// Whether the session belongs in a checkpoint.
    private func isCheckpointed(_ session: Session) -> Bool {
        ownSettingsChanged(session) || core.choice(of: session) != nil || core.templates(of: session) != nil
            || (!core.minimumSizes.isEmpty && core.minimumSizes[session.key] != nil)
            || core.minimumScore(of: session) != nil || core.gestureScores(of: session) != nil
    }

    /// One session's snapshot; without its numbering unless `numbered`.
    private func snapshot(of session: Session, numbered: Bool) -> SessionSnapshot {
        SessionSnapshot(
            session: session.key.withUnsafeBytes { String(decoding: $0, as: UTF8.self) },
            seq: numbered ? session.sequence.last : nil, eventSeq: numbered ? session.eventSequence : 0,
            library: core.registry.entries[Int(session.library)].name,
            orientation: session.invariant.map { $0 ? "invariant" : "sensitive" }, checkmark: session.checkmark,
            multistroke: Int(session.multistroke), gestures: core.choice(of: session)?.names,
            learned: core.templates(of: session)?.templates,
            minimumSize: core.minimumSizes.isEmpty ? nil : core.minimumSizes[session.key],
            tilt: session.tilt.samples > 0 ? session.tilt : nil,
            followTilt: session.followsTilt != configuration.checkmarkFollowsTilt ? session.followsTilt : nil,
            minimumScore: core.minimumScore(of: session), gestureScores: core.gestureScores(of: session))
    }

    /// Adds sessions kept in a state file, before any message: each goes on from its numbering, with its options
    /// and learned gestures, as if the worker had not stopped. A session that cannot be restored as it was (its
    /// library is gone, its id is not a valid one, it is listed twice, the worker holds its limit of sessions) is
    /// left out and said why; its next message starts it afresh (`session_reset`). Learned templates past the
    /// limits (`maxSessionTemplates`, `maxLearnedTemplates`) are left out.
    ///
    /// A session without its numbering (`seq` nil: from a checkpoint, or one that had no message since it came
    /// back from one) gets `SequenceTracker.Action.acceptAfterCheckpoint` for its first message, and its events are
    /// numbered from 1 again.
    public mutating func restore(_ snapshots: some Sequence<SessionSnapshot>) -> RestoreReport {
        var report = RestoreReport()
        for snapshot in snapshots {
            if let reason = restore(snapshot, report: &report) {
                report.skipped.append("session \"\(snapshot.session)\": \(reason)")
            } else {
                report.restored += 1
            }
        }
        metrics.sessionsRestored.add(report.restored, ordering: .relaxed)
        return report
    }

    /// Restores one session; returns why it was left out, if it was.
    private mutating func restore(_ snapshot: SessionSnapshot, report: inout RestoreReport) -> String? {
        let topic = Array(ShardKey.topic(for: snapshot.session).utf8)
        let parts: ShardKey.CheckedTopic
        do {
            parts = try topic.withUnsafeBytes { try ShardKey.check(topic: $0) }
        } catch {
            return "not a session id: \(error)"
        }
        guard let library = core.registry.index(of: snapshot.library) else {
            return "no template library \"\(snapshot.library)\" any more"
        }
        let invariant: Bool?
        switch snapshot.orientation {
        case nil: invariant = nil
        case "invariant": invariant = true
        case "sensitive": invariant = false
        case let other?: return "orientation \"\(other)\" is neither invariant nor sensitive"
        }
        guard (0...SessionOptions.maximumMultistrokeGap).contains(snapshot.multistroke) else {
            return "multistroke \(snapshot.multistroke) is outside 0...\(SessionOptions.maximumMultistrokeGap)"
        }
        if let names = snapshot.gestures {
            guard (1...SessionOptions.Gestures.maximumCount).contains(names.count),
                names.allSatisfy(LearnedName.isValid)
            else { return "gestures: 1 to \(SessionOptions.Gestures.maximumCount) valid names" }
        }
        if let size = snapshot.minimumSize, !(size.isFinite && size >= 0) {
            return "minimumSize \(size) is not a finite size of at least 0"
        }
        if let score = snapshot.minimumScore, !(score >= 0 && score <= 1) {
            return "minimumScore \(score) is not a score from 0 to 1"
        }
        if let scores = snapshot.gestureScores {
            guard scores.count <= SessionOptions.maximumGestureScores,
                scores.allSatisfy({ LearnedName.isValid($0.key) && $0.value >= 0 && $0.value <= 1 })
            else {
                return "gestureScores: at most \(SessionOptions.maximumGestureScores) valid names, each to a score "
                    + "from 0 to 1"
            }
        }
        guard table.count < configuration.maxSessions else {
            return "the worker holds \(configuration.maxSessions) sessions, its limit"
        }
        return topic.withUnsafeBytes { bytes -> String? in
            let id = UnsafeRawBufferPointer(rebasing: bytes[parts.sessionID])
            let hash = table.hash(id)
            guard table.find(id, hash: hash) == nil else { return "listed twice" }
            var session = Session(
                key: SessionKey(id), hash: hash, shardKey: bytes.loadUnaligned(as: UInt32.self), now: now,
                checkmark: snapshot.checkmark, followsTilt: snapshot.followTilt ?? configuration.checkmarkFollowsTilt,
                multistroke: UInt16(snapshot.multistroke))
            session.sequence = snapshot.seq.map { SequenceTracker(resumingAfter: $0) } ?? .afterCheckpoint()
            session.eventSequence = snapshot.seq == nil ? 0 : snapshot.eventSeq
            session.library = Int32(library)
            session.invariant = invariant
            if let tilt = snapshot.tilt, session.followsTilt { session.tilt = tilt }
            if let names = snapshot.gestures { core.choices[session.key] = core.choicePool.choice(of: names) }
            if let size = snapshot.minimumSize, size != configuration.minimumStrokeSize {
                core.minimumSizes[session.key] = size
            }
            if let score = snapshot.minimumScore, score > 0 { core.minimumScores[session.key] = score }
            if let scores = snapshot.gestureScores?.filter({ $0.value > 0 }), !scores.isEmpty {
                core.setGestureScores(scores, of: session)
            }
            if let templates = snapshot.learned, !templates.isEmpty {
                report.templatesDropped += restoreLearned(templates, of: session)
            }
            _ = table.insert(session)
            metrics.sessions.add(1, ordering: .relaxed)
            return nil
        }
    }

    /// Compiles a restored session's learned templates, as many as the limits allow; returns how many were left
    /// out.
    private mutating func restoreLearned(_ templates: [GestureTemplate], of session: Session) -> Int {
        let room = min(
            configuration.maxSessionTemplates,
            max(0, configuration.maxLearnedTemplates - metrics.learnedTemplates.load(ordering: .relaxed)))
        let kept = templates.filter { LearnedTemplates.hasExtent($0) && LearnedName.isValid($0.name) }.prefix(room)
        guard !kept.isEmpty else { return templates.count }
        let slot = LibraryRegistry.Slot(library: session.library, invariant: session.invariant)
        do {
            core.learned[session.key] = try LearnedTemplates.restoring(
                Array(kept), entry: core.registry.entries[Int(session.library)], slot: slot, metrics: metrics)
        } catch {
            return templates.count
        }
        return templates.count - kept.count
    }
}
