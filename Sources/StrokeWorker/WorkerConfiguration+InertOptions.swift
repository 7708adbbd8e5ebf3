// MARK: - Options that have no effect here

extension WorkerConfiguration {
    /// The options among those `given` (by flag name, on the command line or in the environment) that this
    /// configuration leaves without effect, each said with why: a tuning of a feature that is off. Before session 81
    /// they were passed over without a word (`--checkpoint-interval 5` without `--state-file` checkpointed nothing).
    func inertOptions(given: (String) -> Bool) -> [String] {
        let rules: [(flag: String, inert: Bool, why: String)] = [
            ("checkpoint-interval", stateFile == nil, "without --state-file"),
            ("adopt-state-max-age", adoptStatePaths.isEmpty, "without --adopt-state"),
            (
                "send-timeout", slowConsumers != .wait,
                "without --slow-consumers wait (events to a slow consumer are dropped)"
            ),
            (
                "recognition-offload", recognitionThread,
                "with --recognition-thread on, whose publisher thread recognizes every stroke"
            ),
        ]
        return rules.filter { $0.inert && given($0.flag) }.map { "--\($0.flag) has no effect \($0.why)" }
    }
}
