import StrokeRecognition

extension SessionProcessor {
    // MARK: - Following tilts

    /// Takes the rotations that matches have handed back since the last call (`TiltFeedback`) into their sessions'
    /// tilt estimates; a session that has ended since is not found, and one that stopped following its tilt
    /// (`followTilt`) takes none: their samples are dropped. One relaxed load
    /// when there are none: the processor asks before every batch of messages.
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
