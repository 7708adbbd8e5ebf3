import StrokeProtocol

// MARK: - The gestures a session chose

extension SessionProcessor.Core {
    /// Applies `gestures` of an `options` message: the session's strokes are matched among those gestures only
    /// from now on, or among all of them again.
    mutating func applyGestureChoice(_ session: Session) {
        switch message.options?.gestures {
        case nil: return
        case .all: dropChoice(session)
        case .only(let names): choices[session.key] = choicePool.choice(of: names)
        }
    }

    /// The gestures the session chose, if it chose any.
    @inline(__always)
    func choice(of session: Session) -> GestureChoice? {
        choices.isEmpty ? nil : choices[session.key]
    }

    /// Drops the session's choice of gestures (the pool forgets it at the next idle sweep if no other session holds
    /// it).
    mutating func dropChoice(_ session: Session) {
        if !choices.isEmpty { choices[session.key] = nil }
    }
}
