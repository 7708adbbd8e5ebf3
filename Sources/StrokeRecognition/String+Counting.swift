extension String {
    // MARK: - Counts in words

    /// `count` and `noun`, the noun in the plural but for one: `1 template`, `3 templates`, `0 sessions`. For the
    /// nouns of the project's messages, whose plurals all end in `s`.
    public init(counting count: Int, _ noun: String) {
        self = "\(count) \(noun)\(count == 1 ? "" : "s")"
    }
}
