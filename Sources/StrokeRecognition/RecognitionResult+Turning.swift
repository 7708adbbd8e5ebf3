// MARK: - A stroke matched turned

extension RecognitionResult {
    /// Adds `degrees` to the rotation of the match and of every candidate, kept within −180...180: the rotations,
    /// as drawn, of a stroke that was recognized turned by `-degrees` (a tilted player's stroke, turned back by
    /// the session's `TiltEstimate`).
    public mutating func turnRotations(by degrees: Double) {
        guard degrees != 0 else { return }
        func turned(_ rotation: Double) -> Double {
            let sum = rotation + degrees
            let within = sum > 180 ? sum - 360 : sum < -180 ? sum + 360 : sum
            return within == 0 ? 0 : within  // no -0 on the wire
        }
        if let rotation = match?.rotation { match?.rotation = turned(rotation) }
        for index in candidates.indices { candidates[index].rotation = turned(candidates[index].rotation) }
    }
}
