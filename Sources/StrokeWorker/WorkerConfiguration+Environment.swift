extension WorkerConfiguration {
    // MARK: - Environment variables

    /// The environment's `STROKE_WORKER_…` variables that name no option, sorted, each with the option's variable
    /// it is nearest to when one is close (`STROKE_WORKER_LANE (STROKE_WORKER_LANES?)`): a misspelt one would
    /// otherwise leave its option at the default without a word.
    static func unknownVariables(in environment: [String: String]) -> [String] {
        let known = options.map(\.env)
        return environment.keys.filter { $0.hasPrefix("STROKE_WORKER_") && !known.contains($0) }.sorted().map {
            name in
            let nearest = known.map { ($0, editDistance(name, $0)) }.min { $0.1 < $1.1 }
            guard let nearest, nearest.1 <= 2 else { return name }
            return "\(name) (\(nearest.0)?)"
        }
    }

    /// `failure` with the environment variable named, where the option it names was not on the command line and
    /// came from its variable: `--lanes (from STROKE_WORKER_LANES): cannot read "abc"`, for the operator who set
    /// the variable in a manifest and never typed `--lanes`.
    static func namingEnvironment(
        _ failure: CommandLineArguments.Failure, given: Set<String>, environment: [String: String]
    ) -> CommandLineArguments.Failure {
        let text = failure.description
        guard text.hasPrefix("--") else { return failure }
        let flag = String(text.dropFirst(2).prefix { $0 != " " && $0 != ":" })
        guard !given.contains(flag), let option = options.first(where: { $0.flag == flag }),
            let value = environment[option.env], !value.isEmpty
        else { return failure }
        return CommandLineArguments.Failure(
            description: "--\(flag) (from \(option.env))" + text.dropFirst(2 + flag.count))
    }

    /// The Levenshtein distance between two names (insertions, deletions and substitutions of characters).
    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a.utf8)
        let b = Array(b.utf8)
        guard !a.isEmpty, !b.isEmpty else { return max(a.count, b.count) }
        var row = Array(0...b.count)
        for i in 1...a.count {
            var diagonal = row[0]
            row[0] = i
            for j in 1...b.count {
                let above = row[j]
                row[j] = min(above + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1))
                diagonal = above
            }
        }
        return row[b.count]
    }
}
