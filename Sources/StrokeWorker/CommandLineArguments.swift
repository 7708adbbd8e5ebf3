/// A small parser for `--name value`, `--name=value` and `--flag` arguments, shared by the executables.
///
/// Every option may also come from an environment variable; the command line wins.
public struct CommandLineArguments: Sendable {
    /// An argument error, with the usage hint to print.
    public struct Failure: Error, CustomStringConvertible, Sendable {
        /// What is wrong.
        public var description: String

        /// Creates a failure.
        public init(description: String) { self.description = description }
    }

    private var values: [String: [String]] = [:]
    private var flags: Set<String> = []
    /// Arguments that are not options, in order.
    public private(set) var positional: [String] = []
    let environment: [String: String]

    /// Parses `arguments` (without the program name). `flagNames` take no value. With `known`, the names of every
    /// option that takes one, any other name fails here as an unknown option: an unknown option last on the line
    /// was otherwise said to need a value.
    public init(
        _ arguments: [String], flagNames: Set<String>, known: Set<String>? = nil, environment: [String: String] = [:]
    ) throws(Failure) {
        self.environment = environment
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            guard argument.hasPrefix("--"), argument.count > 2 else {
                positional.append(argument)
                continue
            }
            var name = String(argument.dropFirst(2))
            var inline: String?
            if let equals = name.firstIndex(of: "=") {
                inline = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            if let known, !known.contains(name), !flagNames.contains(name) {
                throw Failure(description: "unknown option --\(name)")
            }
            if flagNames.contains(name) {
                guard inline == nil else { throw Failure(description: "--\(name) takes no value") }
                flags.insert(name)
                continue
            }
            if let inline {
                values[name, default: []].append(inline)
            } else {
                guard index < arguments.count else { throw Failure(description: "--\(name) needs a value") }
                values[name, default: []].append(arguments[index])
                index += 1
            }
        }
    }

    /// Names of every option given on the command line.
    public var givenNames: Set<String> { Set(values.keys).union(flags) }

    /// Whether the flag was given on the command line.
    public func flag(_ name: String) -> Bool { flags.contains(name) }

    /// Whether the flag was given, else whether its environment variable `env` turns it on: `1`, `true`, `yes` or
    /// `on` (in any case) do; `0`, `false`, `no`, `off`, an empty value or none leave it off.
    ///
    /// - Throws: `Failure` for any other value, naming the flag (`naming(_:variable:)` adds the variable): before
    ///   session 88 `STROKE_PROXY_NO_DROP=enabled` left the flag off without a word.
    public func flag(_ name: String, env: String) throws(Failure) -> Bool {
        if flags.contains(name) { return true }
        guard let raw = environment[env], !raw.isEmpty else { return false }
        switch raw.lowercased() {
        case "1", "true", "yes", "on": return true
        case "0", "false", "no", "off": return false
        default:
            throw Failure(
                description: "--\(name): 1, true, yes or on to set it; 0, false, no or off not to, got \"\(raw)\"")
        }
    }

    /// The last value of an option, else its environment variable.
    public func value(_ name: String, env: String? = nil) -> String? {
        if let last = values[name]?.last { return last }
        return env.flatMap { environment[$0] }.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Every value of a repeatable option as given, commas and all (no environment variable).
    public func wholeValues(_ name: String) -> [String] { values[name] ?? [] }

    /// Every value of a repeatable option (each may be a comma-separated list), else the comma-separated
    /// environment variable.
    public func values(_ name: String, env: String? = nil) -> [String] {
        if let all = values[name], !all.isEmpty {
            return all.flatMap { $0.split(separator: ",").map { String($0).trimmingSpaces() } }
        }
        guard let env, let raw = environment[env], !raw.isEmpty else { return [] }
        return raw.split(separator: ",").map { String($0).trimmingSpaces() }
    }

    /// The option parsed as `T`, else `defaultValue`.
    public func parsed<T: LosslessStringConvertible>(_ name: String, env: String? = nil, default defaultValue: T)
        throws(Failure) -> T
    {
        guard let raw = value(name, env: env) else { return defaultValue }
        guard let parsed = T(raw) else { throw Failure(description: "--\(name): cannot read \"\(raw)\"") }
        return parsed
    }
}

extension String {
    func trimmingSpaces() -> String {
        String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
}
