import StrokeProtocol
import StrokeRecognition

// MARK: - Events

extension SessionProcessor.Core {
    /// An event's context: the session's current event number, the message it answers, and `stroke`, if given.
    func context(_ session: Session, id: UnsafeRawBufferPointer, stroke: OpenStroke? = nil)
        -> EventEncoder.Context
    {
        EventEncoder.Context(
            session: id, eventSequence: session.eventSequence, sequence: message.sequence, stroke: stroke?.id,
            pointer: stroke?.pointer ?? 0)
    }

    /// Publishes an `error` event for the session, about the current message (and its stroke, if open).
    mutating func emitError(
        _ session: inout Session, id: UnsafeRawBufferPointer, code: String, _ text: String, restored: Bool = false
    ) {
        metrics.countError(code)
        session.eventSequence += 1
        // Only a message of a stroke names one: an `options` or `close` carries stroke 0, which may be open.
        let ofStroke = [.begin, .points, .end, .cancel].contains(message.kind)
        let stroke = ofStroke ? session.strokes.index(of: message.stroke).map { session.strokes[$0] } : nil
        var eventContext = context(session, id: id, stroke: stroke)
        if stroke == nil, ofStroke {
            eventContext.stroke = message.stroke
            eventContext.pointer = message.pointer
        }
        EventEncoder.error(eventContext, code: code, message: text, restored: restored, into: &writer)
        publish(id)
    }

    /// Publishes an `error` event on the system topic: no session to tie it to.
    mutating func systemError(_ code: String, _ text: String) {
        metrics.countError(code)
        EventEncoder.error(
            .init(session: UnsafeRawBufferPointer(start: nil, count: 0), eventSequence: 0, sequence: nil),
            code: code,
            message: text, into: &writer)
        var topic = EventEncoder.systemTopic
        topic.withUTF8 { sink.publish(topic: UnsafeRawBufferPointer($0), payload: writer.bytes) }
    }

    /// Answers a `ping` with a `pong`, numbered 0: the session's numbering and state (`known`: whether there is
    /// any) are left alone. Out of line, as the per-message path only branches to it.
    @inline(never)
    mutating func pong(_ id: UnsafeRawBufferPointer, known: Bool) {
        metrics.pings.add(1, ordering: .relaxed)
        let sequence = message.hasSequence ? message.sequence : nil
        EventEncoder.pong(
            .init(session: id, eventSequence: 0, sequence: sequence), shard: shardName, known: known, into: &writer)
        publish(id)
    }

    /// Publishes the event in `writer` on the session's topic.
    @inline(__always)
    mutating func publish(_ id: UnsafeRawBufferPointer) {
        sink.publish(topic: id, payload: writer.bytes)
    }

    /// Publishes the `closed` event of an idle session about to be dropped: it answers no message (`seq` null).
    mutating func closeIdle(_ session: inout Session) {
        let key = session.key
        key.withUnsafeBytes { id in matchGesture(&session, id: id) }
        forgetAll(session)
        dropChoice(session)
        dropThresholds(session)
        session.eventSequence += 1
        let sequence = session.eventSequence
        let tilt = reportedTilt(of: session)
        key.withUnsafeBytes { id in
            EventEncoder.closed(
                .init(session: id, eventSequence: sequence, sequence: nil), reason: "idle", tilt: tilt,
                into: &writer)
            publish(id)
        }
    }

    /// Adds the counts of the messages handled since the last call to the shared metrics.
    mutating func flushMetrics() {
        if pendingMessages > 0 { metrics.messagesReceived.add(pendingMessages, ordering: .relaxed) }
        if pendingPoints > 0 { metrics.pointsReceived.add(pendingPoints, ordering: .relaxed) }
        if pendingStrokes > 0 { metrics.strokesRecognized.add(pendingStrokes, ordering: .relaxed) }
        pendingMessages = 0
        pendingPoints = 0
        pendingStrokes = 0
        if gestures.count != reportedGestures {
            metrics.gesturesWaiting.add(gestures.count - reportedGestures, ordering: .relaxed)
            reportedGestures = gestures.count
        }
    }

    /// An error event for a session, numbered `eventSequence` (0 when it has no state).
    mutating func sessionError(
        _ id: UnsafeRawBufferPointer, eventSequence: UInt64, code: String, _ text: String, sequence: UInt32?
    ) {
        metrics.countError(code)
        EventEncoder.error(
            .init(session: id, eventSequence: eventSequence, sequence: sequence), code: code, message: text,
            into: &writer)
        publish(id)
    }
}
