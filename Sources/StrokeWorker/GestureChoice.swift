import StrokeProtocol

/// The gestures a session chose to be matched among (`options` with `gestures`): their names, sorted and without
/// repeats.
///
/// Immutable, so a finished stroke handed to another thread keeps the choice it ended under. A lane keeps one
/// value per distinct list (`Pool`), which its sessions share: a thousand players in the same state of a game
/// cost one list, not a thousand.
final class GestureChoice: Sendable {
    /// The chosen names, sorted, each once.
    let names: [String]

    private init(names: [String]) { self.names = names }

    /// The lane's choices, by list: each distinct list once.
    struct Pool {
        private var choices: [[String]: GestureChoice] = [:]

        /// The pooled choice of `names` (in any order, repeats allowed), made if no session holds it yet.
        mutating func choice(of names: [String]) -> GestureChoice {
            let key = Array(Set(names)).sorted()
            if let existing = choices[key] { return existing }
            let made = GestureChoice(names: key)
            choices[key] = made
            return made
        }

        /// Number of distinct lists held.
        var count: Int { choices.count }

        /// Forgets the choices that only the pool holds any more (their sessions closed or chose again).
        mutating func prune() {
            guard !choices.isEmpty else { return }
            for key in Array(choices.keys) where isKnownUniquelyReferenced(&choices[key]!) {
                choices[key] = nil
            }
        }
    }
}
