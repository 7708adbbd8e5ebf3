import StrokeProtocol
import StrokeRecognition

// MARK: - Strokes too small to match (taps)

extension SessionProcessor.Core {
    /// The size the longer side of the session's strokes' bounding box must reach for them to be matched (0: any).
    @inline(__always)
    func minimumSize(of session: Session) -> Double {
        minimumSizes.isEmpty
            ? configuration.minimumStrokeSize : minimumSizes[session.key] ?? configuration.minimumStrokeSize
    }

    /// Applies `minimumSize` of an `options` message: kept beside the table only where it differs from the
    /// worker's default.
    mutating func applyMinimumSize(_ session: Session) {
        guard let size = message.options?.minimumSize else { return }
        if size == configuration.minimumStrokeSize {
            dropMinimumSize(session)
        } else {
            minimumSizes[session.key] = size
        }
    }

    /// Drops the session's own minimum size: the worker's default applies again.
    mutating func dropMinimumSize(_ session: Session) {
        if !minimumSizes.isEmpty { minimumSizes[session.key] = nil }
    }

    /// Whether `points`, a stroke or a gesture's strokes, are too small to match: smaller than `minimum` (the
    /// session's `minimumSize(of:)`) on both sides. Non-finite points are left to the recognizer, which says so.
    /// Static, and given the size: a call on `self` inside a closure that holds `self` inout copied the whole core
    /// (`make profile`: 31 more instructions per single point, 427 per batched message).
    static func isTooSmall(_ points: UnsafeBufferPointer<SIMD2<Double>>, minimum: Double) -> Bool {
        guard minimum > 0, let bounds = StrokeBounds(of: points) else { return false }
        return bounds.isSmaller(than: minimum)
    }

    /// Publishes the `checkmark` of the stroke at `index`, whose detector fired on this message's points (`fired`)
    /// or on earlier ones and was held back: at once in a session without a minimum size, else at the first point
    /// at which the stroke reaches that size. A check still smaller after this message is held (a tap, a tiny
    /// check): it is sent when a later message makes the stroke large enough, and never if the stroke ends smaller,
    /// as its `nomatch` `too_small` does. The event's `pointIndex` and `t` are that point's.
    mutating func publishCheckmark(
        _ session: inout Session, stroke index: Int, fired: CheckmarkDetector.Detection?, id: UnsafeRawBufferPointer
    ) {
        let minimum = minimumSize(of: session)
        let storage = session.strokes[index].storage
        // This message's points are the stroke's last ones; an overflowed stroke dropped its points and is not held.
        let first = storage.pointCount - message.points.count
        var point = fired.map { (index: $0.pointIndex, time: $0.time) }
        // A held check is judged on this message's points; a new one, in a session with a minimum size, from its own
        // point on (unless the stroke overflowed, which leaves no points to judge: it is sent as it fired).
        let judged = fired == nil || (minimum > 0 && storage.pointCount > 0)
        if judged {
            let start = max(first, fired?.pointIndex ?? first)
            guard let reached = storage.withPoints({ StrokeBounds.firstIndex(reaching: minimum, in: $0, from: start) })
            else {
                storage.checkmarkHeld = true
                return
            }
            storage.checkmarkHeld = false
            if reached != point?.index { point = (reached, message.points[reached - first].t) }
        }
        guard let point else { return }
        metrics.checkmarks.add(1, ordering: .relaxed)
        session.eventSequence += 1
        EventEncoder.checkmark(
            context(session, id: id, stroke: session.strokes[index]), pointIndex: point.index, time: point.time,
            into: &writer)
        publish(id)
    }

    /// Publishes the `nomatch` of a stroke or gesture too small to match (`too_small`), with its bounds, in place of
    /// its recognition.
    mutating func publishTooSmall(
        _ points: UnsafeBufferPointer<SIMD2<Double>>, library: Int32, context: EventEncoder.Context,
        strokes: [UInt32]? = nil, id: UnsafeRawBufferPointer
    ) {
        metrics.strokesTooSmall.add(1, ordering: .relaxed)
        metrics.count(.noMatch)
        EventEncoder.result(
            context, name: nil, score: nil, candidates: [], points: points.count,
            library: registry.entries[Int(library)].name, reason: "too_small", strokes: strokes,
            bounds: StrokeBounds(of: points), into: &writer)
        publish(id)
    }
}

extension SessionProcessor {
    /// Number of sessions that keep a minimum stroke size of their own (one other than the worker's default).
    var minimumSizeCount: Int { core.minimumSizes.count }
}
