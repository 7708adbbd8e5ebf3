import StrokeRecognition

extension SessionProcessor {
    // MARK: - Following tilts

    /// Takes the rotations that matches have handed back since the last call (`TiltFeedback`) into their sessions'
    /// tilt estimates; a session that has ended since is not found, and one that stopped following its tilt
    /// (`followTilt`) takes none: their samples are dropped. One relaxed load
    /// when there are none: the processor asks before every message, in batches too.
    @inline(__always)
    public mutating func applyTiltFeedback() {
        guard core.tiltFeedback.pending else { return }
        applyTiltSamples()
    }

    @inline(never)
    private mutating func applyTiltSamples() {
        core.tiltFeedback.take(into: &core.tiltSamples)
        for sample in core.tiltSamples {
            sample.session.withUnsafeBytes { id in
                guard let index = table.find(id, hash: table.hash(id)), table[index].followsTilt else { return }
                table[index].tilt.observe(Double(sample.degrees))
            }
        }
    }

    /// The tilt estimate of the session `id`, if the processor holds it (for tests and diagnostics).
    func tilt(ofSession id: String) -> TiltEstimate? {
        var id = id
        return id.withUTF8 { bytes in
            let raw = UnsafeRawBufferPointer(bytes)
            return table.find(raw, hash: table.hash(raw)).map { table[$0].tilt }
        }
    }
}

// MARK: - A session's turns

extension SessionProcessor.Core {
    /// The turn a session's new stroke gets for its checkmark detector: its tilt estimate's correction, where
    /// the session follows its tilt and runs the detector.
    @inline(__always)
    func turn(of session: Session) -> Int8 {
        guard session.followsTilt, session.checkmark else { return 0 }
        return Int8(session.tilt.correction)
    }

    /// Whether a match of the session's stroke or gesture goes back to its tilt estimate: the session follows
    /// its tilt, and its detector (`detecting`: the stroke's, which may have stopped on bad times) or its
    /// matches (`WorkerConfiguration.matchFollowsTilt`) use the estimate. Only a match that tells the tilt
    /// (`RecognitionResult.Candidate.showsTilt`: of a template of one stroke) is taken in, so a gesture of
    /// several strokes may feed it when it matched such a template.
    @inline(__always)
    func followsTilt(_ session: Session, detecting: Bool? = nil) -> Bool {
        session.followsTilt && ((detecting ?? session.checkmark) || configuration.matchFollowsTilt)
    }

    /// The turn the library's templates see a session's finished stroke or gesture by: its tilt estimate's
    /// correction, where the session follows its tilt and the worker's matches do
    /// (`WorkerConfiguration.matchFollowsTilt`).
    @inline(__always)
    func matchTurn(of session: Session) -> Int8 {
        guard session.followsTilt, configuration.matchFollowsTilt else { return 0 }
        return Int8(session.tilt.correction)
    }

    /// The tilt a session's `closed` event reports, for a game to give back to the player's next session (`options`
    /// with `tilt`): its estimate in whole degrees, where it follows its tilt and its estimate rests on
    /// `TiltEstimate.minimumSamples` matches or was given; nil otherwise.
    func reportedTilt(of session: Session) -> Int? {
        session.followsTilt && session.tilt.samples >= TiltEstimate.minimumSamples ? Int(session.tilt.degrees) : nil
    }
}
