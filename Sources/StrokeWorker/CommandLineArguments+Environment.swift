extension CommandLineArguments {
    // MARK: - Environment variables

    /// The environment's variables of `prefix` (`STROKE_WORKER_`) that name no option, sorted, each with the
    /// option's variable it is nearest to when one is close (`STROKE_WORKER_LANE (STROKE_WORKER_LANES?)`): a
    /// misspelt one would otherwise leave its option at the default without a word.
    public static func unknownVariables(prefix: String, known: [String], in environment: [String: String]) -> [String] {
        environment.keys.filter { $0.hasPrefix(prefix) && !known.contains($0) }.sorted().map { name in
            let nearest = known.map { ($0, editDistance(name, $0)) }.min { $0.1 < $1.1 }
            guard let nearest, nearest.1 <= 2 else { return name }
            return "\(name) (\(nearest.0)?)"
        }
    }

    /// `failure` with the environment variable named, where the option it names (`--flag` at its start) was not
    /// on the command line and came from its variable (`variable(flag)`): `--lanes (from STROKE_WORKER_LANES):
    /// cannot read "abc"`, for the operator who set the variable in a manifest and never typed `--lanes`.
    public func naming(_ failure: Failure, variable: (String) -> String?) -> Failure {
        let text = failure.description
        guard text.hasPrefix("--") else { return failure }
        let flag = String(text.dropFirst(2).prefix { $0 != " " && $0 != ":" })
        guard !givenNames.contains(flag), let name = variable(flag), let value = environment[name], !value.isEmpty
        else { return failure }
        return Failure(description: "--\(flag) (from \(name))" + text.dropFirst(2 + flag.count))
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
