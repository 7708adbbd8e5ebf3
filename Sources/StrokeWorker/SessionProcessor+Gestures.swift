import StrokeProtocol
import StrokeRecognition

// MARK: - Gestures of several strokes

extension SessionProcessor.Core {
    /// Adds an ended stroke to its session's gesture (the session groups its strokes), and matches the gesture
    /// when this stroke is its last: the `end` says so (`last`), learns it (`learn`), or it is the
    /// `PendingGesture.maximumStrokes`-th. Otherwise the gesture waits for the session's next stroke, and once no
    /// stroke of the session is open, for at most the session's `multistroke` milliseconds.
    mutating func collect(_ stroke: OpenStroke, session: inout Session, id: UnsafeRawBufferPointer) {
        var gesture = gestures.removeValue(forKey: session.key) ?? PendingGesture()
        stroke.storage.withPoints { points in
            gesture.append(stroke: stroke.id, pointer: stroke.pointer, points: points)
        }
        gesture.sequence = message.sequence
        if stroke.overflowed { gesture.overflowed = true }
        // A gesture of one stroke is matched as that stroke would be, the detector's verdict and all.
        let readable = stroke.detecting && !stroke.storage.timesLookLikeSeconds
        gesture.checkmarkFired = gesture.strokes.count == 1 && readable ? stroke.storage.checkmarkFired : nil
        if stroke.detecting && stroke.storage.timesLookLikeSeconds {
            metrics.timesInSeconds.add(1, ordering: .relaxed)
        }
        if let name = message.learn {
            learn(gesture, as: name, session: &session, id: id)
        } else if message.last || gesture.strokes.count >= PendingGesture.maximumStrokes {
            match(gesture, session: &session, id: id)
        } else {
            if session.strokes.count == 0 { wait(&gesture, session: session) }
            gestures[session.key] = gesture
        }
    }

    /// Starts the wait for the gesture's next stroke.
    private mutating func wait(_ gesture: inout PendingGesture, session: Session) {
        let deadline = milliseconds + UInt64(session.multistroke)
        gesture.deadline = deadline
        nextGestureDeadline = min(nextGestureDeadline, deadline)
    }

    /// A stroke of the session began or was cancelled: its gesture waits for the strokes in flight, or, when none
    /// is left, for the next one again.
    mutating func strokesChanged(_ session: Session) {
        guard !gestures.isEmpty, var gesture = gestures[session.key] else { return }
        if session.strokes.count == 0 {
            wait(&gesture, session: session)
        } else {
            gesture.deadline = nil
        }
        gestures[session.key] = gesture
    }

    /// Matches the session's gesture now, if it has one (it closes, or stops grouping strokes).
    mutating func matchGesture(_ session: inout Session, id: UnsafeRawBufferPointer) {
        guard !gestures.isEmpty, let gesture = gestures.removeValue(forKey: session.key) else { return }
        match(gesture, session: &session, id: id)
    }

    /// Drops the session's gesture; returns how many strokes it held.
    mutating func dropGesture(_ session: Session) -> Int {
        guard !gestures.isEmpty else { return 0 }
        return gestures.removeValue(forKey: session.key)?.strokes.count ?? 0
    }

    /// Publishes the gesture's `match` or `nomatch`, which lists its strokes.
    mutating func match(_ gesture: PendingGesture, session: inout Session, id: UnsafeRawBufferPointer) {
        pendingStrokes += 1
        metrics.gesturesGrouped.add(1, ordering: .relaxed)
        session.eventSequence += 1
        let eventContext = EventEncoder.Context(
            session: id, eventSequence: session.eventSequence, sequence: gesture.sequence,
            stroke: gesture.strokes.last, pointer: gesture.pointer)
        if gesture.overflowed {
            EventEncoder.result(
                eventContext, name: nil, score: nil, candidates: [], points: gesture.points.count,
                library: registry.entries[Int(session.library)].name, reason: "too_many_points",
                strokes: gesture.strokes, into: &writer)
            publish(id)
            return
        }
        let learned = templates(of: session)
        let choice = choice(of: session)
        let minimum = minimumSize(of: session)
        gesture.points.withUnsafeBufferPointer { points in
            if Self.isTooSmall(points, minimum: minimum) {
                publishTooSmall(
                    points, library: session.library, context: eventContext, strokes: gesture.strokes, id: id)
            } else {
                publishRecognition(
                    of: points, library: session.library, invariant: session.invariant, learned: learned,
                    choice: choice, context: eventContext,
                    gesture: GestureStrokes(starts: gesture.strokeStarts, ids: gesture.strokes),
                    checkmarkFired: gesture.checkmarkFired,
                    tiltFeedback: followsTilt(session) ? Unmanaged.passUnretained(tiltFeedback) : nil,
                    minimumScore: minimumScore(of: session), gestureScores: gestureScores(of: session),
                    turn: matchTurn(of: session))
            }
        }
    }

    /// Learns the gesture as a template of the session's own, matched in the order and directions drawn.
    private mutating func learn(
        _ gesture: PendingGesture, as name: String, session: inout Session, id: UnsafeRawBufferPointer
    ) {
        let pointCount = registry.entries[Int(session.library)].recognizer(invariant: session.invariant)
            .configuration.pointCount
        let minimum = minimumSize(of: session)
        let tooSmall = gesture.points.withUnsafeBufferPointer { Self.isTooSmall($0, minimum: minimum) }
        learn(
            gesture.template(named: name, pointCount: pointCount), received: gesture.points.count,
            overflowed: gesture.overflowed, tooSmall: tooSmall, strokes: gesture.strokes, session: &session, id: id)
    }
}

// MARK: - The gestures' clock

extension SessionProcessor {
    /// The lane's clock in milliseconds, advanced by the caller, by which gestures of several strokes wait.
    public var milliseconds: UInt64 {
        get { core.milliseconds }
        set { core.milliseconds = newValue }
    }

    /// When the next gesture of several strokes is due (`milliseconds`), or `UInt64.max`.
    public var nextGestureDeadline: UInt64 { core.nextGestureDeadline }

    /// Number of gestures of several strokes waiting for a stroke.
    var pendingGestureCount: Int { core.gestures.count }

    /// Matches the gestures whose wait for a next stroke is over (`milliseconds`), earliest first.
    public mutating func matchDueGestures() {
        guard core.nextGestureDeadline <= core.milliseconds else { return }
        matchGestures(dueBy: core.milliseconds)
    }

    /// Matches every gesture still waiting, whatever its deadline: the lane stops.
    public mutating func matchAllGestures() {
        matchGestures(dueBy: .max, includingOpen: true)
    }

    private mutating func matchGestures(dueBy now: UInt64, includingOpen: Bool = false) {
        var due = [(deadline: UInt64, key: SessionKey)]()
        var next = UInt64.max
        for (key, gesture) in core.gestures {
            guard let deadline = gesture.deadline ?? (includingOpen ? 0 : nil) else { continue }
            if deadline <= now { due.append((deadline, key)) } else { next = min(next, deadline) }
        }
        core.nextGestureDeadline = next
        for entry in due.sorted(by: { $0.deadline < $1.deadline }) {
            entry.key.withUnsafeBytes { id in
                guard let index = table.find(id, hash: table.hash(id)) else {
                    core.gestures[entry.key] = nil
                    return
                }
                core.matchGesture(&table[index], id: id)
            }
        }
    }
}
