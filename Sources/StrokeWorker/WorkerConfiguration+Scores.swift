// MARK: - Scores given on a command line

extension WorkerConfiguration {
    /// `--checkmark-margin SCORE`: a score in 0...1, or a failure naming the option and the value. The worker and
    /// stroke-tool read it alike (before session 82 stroke-tool's `eval --checkmark-margin -1` said only
    /// `checkmarkMargin -1.0 is outside 0...1`, the configuration's field, not the option).
    public static func checkmarkMargin(_ text: String) throws(CommandLineArguments.Failure) -> Double {
        guard let margin = Double(text), margin.isFinite, (0...1).contains(margin) else {
            throw CommandLineArguments.Failure(description: "--checkmark-margin: a score in 0...1, got \"\(text)\"")
        }
        return margin
    }

    /// `--choice-margin SCORE|inf`: a score of at least 0, or `inf`, or a failure naming the option and the value.
    public static func choiceMargin(_ text: String) throws(CommandLineArguments.Failure) -> Double {
        guard let margin = Double(text), margin >= 0 else {
            throw CommandLineArguments.Failure(
                description: "--choice-margin: a score of at least 0, or inf, got \"\(text)\"")
        }
        return margin
    }
}
