import StrokeProtocol

extension StrokeProducer {
    /// What a session was sent that its worker keeps only as long as the session's state: the latest value of each
    /// option, and the gestures it was taught and not told to forget, in the order they were taught.
    struct Remembered {
        var options = SessionOptions()
        var taught: [(name: String, strokes: [[WirePoint]])] = []

        /// Takes the values `options` sets; drops the taught gestures its `forget` names (`"*"`: all).
        mutating func apply(_ options: SessionOptions) {
            if let library = options.library { self.options.library = library }
            if let orientation = options.orientation { self.options.orientation = orientation }
            if let checkmark = options.checkmark { self.options.checkmark = checkmark }
            if let followTilt = options.followTilt {
                // Turning following off, or on again, starts the estimate over: a tilt given before it is gone.
                if !followTilt || self.options.followTilt == false { self.options.tilt = nil }
                self.options.followTilt = followTilt
            }
            if let tilt = options.tilt { self.options.tilt = tilt }
            if let multistroke = options.multistroke { self.options.multistroke = multistroke }
            if let minimumSize = options.minimumSize { self.options.minimumSize = minimumSize }
            if let minimumScore = options.minimumScore { self.options.minimumScore = minimumScore }
            if let gestureScores = options.gestureScores {
                self.options.gestureScores = gestureScores.isEmpty ? nil : gestureScores  // none: what a session has
            }
            switch options.gestures {
            case .all: self.options.gestures = nil  // every gesture: what a session has anyway
            case .only(let names): self.options.gestures = .only(names)
            case nil: break
            }
            if let forget = options.forget {
                taught.removeAll { forget == LearnedName.all || $0.name == forget }
            }
        }
    }

    // MARK: - Gestures of several strokes

    /// Sends a gesture of several strokes for `session`, one stroke after the other: the last `end` says `last`, so
    /// that the worker matches them together at once; or, with `learn`, the session learns the whole gesture as one
    /// template (remembered for `reteach`). The session must group strokes (`SessionOptions.multistroke`, or a
    /// worker started with `--multistroke`; Protocol/README.md, section 4.2). Returns the strokes' ids.
    ///
    /// - Throws: `ProtocolError` before anything is sent: (`invalid_field`) for a gesture of no strokes, a stroke of
    ///   no points or a `batch` outside 1...65,535, (`non_finite`) for a point with a NaN or an infinity in any of
    ///   its strokes; then `ZMQError`.
    @discardableResult
    public func sendGesture(
        _ strokes: [[WirePoint]], session: String, batch: Int = 32, learn: String? = nil
    ) throws -> [UInt32] {
        let ids = try sendOneGesture(strokes, session: session, batch: batch, learn: learn)
        if let learn { remembered[session, default: Remembered()].taught.append((learn, strokes)) }
        return ids
    }

    /// `sendGesture` without remembering what it teaches.
    @discardableResult
    private func sendOneGesture(
        _ strokes: [[WirePoint]], session: String, batch: Int, learn: String?
    ) throws -> [UInt32] {
        guard !strokes.isEmpty, strokes.allSatisfy({ !$0.isEmpty }) else {
            throw ProtocolError(.invalidField, "strokes: a gesture needs strokes of at least one point each")
        }
        // Every stroke before the first message: a bad point in a later one would leave the gesture open at the
        // worker, which would match the strokes sent so far as the whole gesture once it stopped waiting.
        let carries = try strokes.map { (points) throws(ProtocolError) in try Self.check(stroke: points, batch: batch) }
        var ids = [UInt32]()
        for (index, points) in strokes.enumerated() {
            let final = index == strokes.count - 1
            ids.append(
                try sendCheckedStroke(
                    points, carries: carries[index], session: session, batch: batch, learn: final ? learn : nil,
                    last: final && learn == nil))
        }
        return ids
    }

    // MARK: - Teaching again

    /// Restores `session` in a worker that forgot it, as an `OutputEvent` whose `needsReteach` is true tells
    /// (`closed`, `session_restart`, or `session_reset` not `restored`): sends one `options` message with the latest
    /// value of each option `setOptions` set, then every gesture `sendStroke` or `sendGesture` taught it and no
    /// `forget` took back (Protocol/README.md, section 4.1). A gesture of several strokes is taught with the
    /// session's grouping on (`multistroke`: 1,000 ms if it was never set here). Returns how many gestures were sent.
    @discardableResult
    public func reteach(session: String, batch: Int = 32) throws -> Int {
        guard var remembered = remembered[session] else { return 0 }
        if remembered.taught.contains(where: { $0.strokes.count > 1 }) && (remembered.options.multistroke ?? 0) == 0 {
            remembered.options.multistroke = 1000
            self.remembered[session] = remembered
        }
        if remembered.options != SessionOptions() {
            try send(InputMessage(kind: .options, sequence: 0, options: remembered.options), session: session)
        }
        for (name, strokes) in remembered.taught {
            if strokes.count == 1 {
                try sendOneStroke(strokes[0], session: session, batch: batch, learn: name)
            } else {
                try sendOneGesture(strokes, session: session, batch: batch, learn: name)
            }
        }
        return remembered.taught.count
    }
}
