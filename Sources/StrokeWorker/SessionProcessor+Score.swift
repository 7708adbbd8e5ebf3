import StrokeProtocol

// MARK: - A session's own threshold

extension SessionProcessor.Core {
    /// The score the session's strokes must reach to match beside their library's threshold, where the session set
    /// one (`options` with `minimumScore`); nil for most sessions.
    @inline(__always)
    func minimumScore(of session: Session) -> Double? {
        minimumScores.isEmpty ? nil : minimumScores[session.key]
    }

    /// Applies `minimumScore` of an `options` message: kept beside the table, as a session's minimum size is; 0
    /// leaves the library's threshold alone, and drops the session's own.
    mutating func applyMinimumScore(_ session: Session) {
        guard let score = message.options?.minimumScore else { return }
        if score > 0 {
            minimumScores[session.key] = score
        } else if !minimumScores.isEmpty {
            minimumScores[session.key] = nil
        }
    }

    /// The scores the session's strokes must reach to match gestures of these names, where it set some (`options`
    /// with `gestureScores`); nil for most sessions.
    @inline(__always)
    func gestureScores(of session: Session) -> [String: Double]? {
        gestureScores.isEmpty ? nil : gestureScores[session.key]
    }

    /// Applies `gestureScores` of an `options` message: they replace the session's earlier ones, and none (`{}`) or
    /// only zeros drop them.
    mutating func applyGestureScores(_ session: Session) {
        guard let scores = message.options?.gestureScores else { return }
        let raised = scores.filter { $0.value > 0 }
        if !raised.isEmpty {
            setGestureScores(raised, of: session)
        } else if !gestureScores.isEmpty {
            gestureScores[session.key] = nil
        }
    }

    /// Sets the session's scores to the lane's copy of `scores`: sessions that set the same scores share one, as
    /// sessions that chose the same gestures share one choice (`GestureChoice.Pool`). A hundred thousand players at
    /// the same stage of a game cost one copy, where each had one of about 250 bytes.
    mutating func setGestureScores(_ scores: [String: Double], of session: Session) {
        if let index = scorePool.firstIndex(of: scores) {
            gestureScores[session.key] = scorePool[index]
            return
        }
        if scorePool.count >= scorePoolLimit {
            // Keeps what sessions still hold; amortized over the scores added since the pool last grew this large.
            scorePool = Set(gestureScores.values)
            scorePoolLimit = max(64, 2 * scorePool.count)
        }
        scorePool.insert(scores)
        gestureScores[session.key] = scores
    }

    /// Drops the session's own minimum size and scores: a session that ends or starts over has its library's
    /// thresholds and the worker's default size again.
    mutating func dropThresholds(_ session: Session) {
        dropMinimumSize(session)
        if !minimumScores.isEmpty { minimumScores[session.key] = nil }
        if !gestureScores.isEmpty { gestureScores[session.key] = nil }
    }
}
