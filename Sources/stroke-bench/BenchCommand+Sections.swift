// MARK: - Which sections read which options

extension BenchCommand {
    /// The options that tune sections, each with the sections that read it; the others (`--runs`, `--quick`,
    /// `--json`, `--dataset`, `--only`) apply to every run.
    static let sectionsReading: [String: Set<String>] = [
        "worker": ["throughput", "latency", "memory", "cluster"],
        "worker-args": ["throughput", "latency", "memory"], "peer-cpus": ["throughput", "latency", "memory"],
        "cases": ["throughput", "processor"], "sessions": ["throughput", "processor"],
        "checkmark": ["throughput", "processor"], "messages": ["throughput"], "curve": ["throughput"],
        "templates": ["recognizer"], "learned": ["recognizer"], "among": ["recognizer"], "cold-sweep": ["recognizer"],
        "capacity": ["latency"], "latency-standin": ["latency"], "latency-tick": ["latency"],
        "latency-trace": ["latency"], "tilt": ["processor"],
    ]

    /// The first option among `given` that none of `sections` reads, said for a person, or nil: before session 81
    /// such an option was passed over without a word (`--only recognizer --capacity 100000` timed the recognizer
    /// alone, with no latency section to use the capacity).
    static func unreadOption(given: Set<String>, sections: Set<String>) -> String? {
        for option in given.sorted() {
            guard let readers = sectionsReading[option], readers.isDisjoint(with: sections) else { continue }
            let them = readers.sorted().joined(separator: ", ")
            return "--\(option) tunes the \(them) section\(readers.count == 1 ? "" : "s"), which --only leaves out "
                + "(--only \(sections.sorted().joined(separator: ",")))"
        }
        return nil
    }
}
