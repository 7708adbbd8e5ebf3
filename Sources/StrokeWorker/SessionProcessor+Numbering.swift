import StrokeProtocol
import StrokeRecognition

// MARK: - Numbering

extension SessionProcessor.Core {
    /// Applies the session's numbering to the current message: reports a reset, a gap, a restart or a stray
    /// number, and returns false for a repeated or late number, which is dropped (with its error).
    @inline(__always)
    mutating func number(_ session: inout Session, id: UnsafeRawBufferPointer) -> Bool {
        let sequence = message.sequence
        switch session.sequence.receive(sequence) {
        case .accept: break
        case .acceptAfterReset(let first):
            emitError(
                &session, id: id, code: "session_reset",
                "no state for this session before seq \(first) (new or restarted worker, or evicted): "
                    + "strokes in flight before it are lost")
        case .acceptAfterGap(let expected, let missing):
            metrics.inputGaps.add(Int(missing), ordering: .relaxed)
            emitError(
                &session, id: id, code: "sequence_gap",
                "expected seq \(expected), got \(sequence): \(String(counting: Int(missing), "message")) lost")
        case .rejectDuplicate:
            emitError(&session, id: id, code: "sequence_duplicate", "seq \(sequence) was already received; dropped")
            return false
        case .rejectLate(let last):
            emitError(
                &session, id: id, code: "sequence_late", "seq \(sequence) arrived after seq \(last); dropped")
            return false
        case .restart(let last):
            restart(&session, id: id, because: "seq 1 after seq \(last): the producer started over")
        case .acceptAfterCheckpoint(let first):
            resumeAfterCheckpoint(&session, id: id, first: first)
        case .acceptAfterStray(let stray, let missing):
            metrics.inputGaps.subtract(Int(missing), ordering: .relaxed)
            emitError(
                &session, id: id, code: "sequence_stray",
                "seq \(sequence &- 1) and seq \(sequence) continue the numbering from before seq \(stray), which "
                    + "was out of line: the \(String(counting: Int(missing), "message")) its gap reported "
                    + "\(missing == 1 ? "was" : "were") not lost (seq "
                    + "\(sequence &- 1) was dropped as late); the numbering goes on from seq \(sequence)")
        }
        return true
    }

    /// Numbers a message refused before it was decoded in full (`sequence`, read from what could be read of it)
    /// in its session, then reports the refusal, unless the numbering drops the message first.
    mutating func refuse(
        _ session: inout Session, id: UnsafeRawBufferPointer, code: String, _ text: String, sequence: UInt32
    ) {
        // Nothing else decoded of it is trusted: it is numbered as a message of no stroke.
        message.reset()
        message.kind = .options
        message.sequence = sequence
        guard number(&session, id: id) else { return }
        emitError(&session, id: id, code: code, text)
    }

    /// Starts a session over for a producer that numbers from 1 again: its open strokes are dropped and its
    /// options go back to their defaults, as for a new session; its events keep their numbering.
    private mutating func restart(_ session: inout Session, id: UnsafeRawBufferPointer, because reason: String) {
        noteSettingsChanged(session.key)
        let dropped = session.strokes.count
        while session.strokes.count > 0 { recycle(session.strokes.remove(at: 0)) }
        session.library = 0
        session.invariant = nil
        session.checkmark = configuration.checkmarkByDefault
        session.followsTilt = configuration.checkmarkFollowsTilt
        session.tilt = TiltEstimate()
        session.multistroke = UInt16(configuration.multistrokeMilliseconds)
        let forgotten = templates(of: session)?.count ?? 0
        forgetAll(session)
        dropChoice(session)
        dropThresholds(session)
        let ungrouped = dropGesture(session)
        emitError(
            &session, id: id, code: "session_restart",
            "\(reason); \(String(counting: dropped, "open stroke")) dropped, options back to their defaults"
                + (ungrouped > 0
                    ? ", a gesture of \(String(counting: ungrouped, "ended stroke")) dropped unmatched" : "")
                + (forgotten > 0 ? ", \(String(counting: forgotten, "learned template")) forgotten" : ""))
    }

    /// The first message of a session restored from the worker's checkpoint after a crash: numbered 1, the
    /// producer started over too, and the session's options and learned gestures go back to their defaults,
    /// as they would have in a worker that had not stopped; numbered above, the session keeps them and gets
    /// `session_reset` with `restored: true`, so that its producer knows it need not teach them again.
    private mutating func resumeAfterCheckpoint(_ session: inout Session, id: UnsafeRawBufferPointer, first: UInt32) {
        guard first > 1 else {
            restart(&session, id: id, because: "seq \(first) after the worker restarted from its checkpoint")
            return
        }
        let learned = String(counting: templates(of: session)?.count ?? 0, "learned template")
        emitError(
            &session, id: id, code: "session_reset",
            "the worker restarted from its checkpoint before seq \(first): strokes in flight before it are "
                + "lost; the session's options, chosen gestures and \(learned) as of the checkpoint were restored",
            restored: true)
    }
}
