extension String {
    // MARK: - Quoting for display

    /// The string in double quotes, with `"` and `\` escaped and every control character (U+0000–U+001F,
    /// U+007F–U+009F) written as an escape (`\n`, `\t`, `\u007f`): one line that a terminal or a log shows as it
    /// is, whatever the string holds. Not JSON's escaping, which leaves U+007F–U+009F as they are, and a terminal
    /// acts on them.
    public var quotedForDisplay: String { "\"" + escapedForDisplay(quotes: true) + "\"" }

    /// `quotedForDisplay` of the string's first `characters` characters and `…` when it holds more: text from
    /// outside shown in a message without all of its length (`"ssss…"`).
    public func quotedForDisplay(atMost characters: Int) -> String {
        count > characters ? (String(prefix(characters)) + "…").quotedForDisplay : quotedForDisplay
    }

    /// The string with every control character written as an escape, as `quotedForDisplay` writes it, and no
    /// quotes: a message that stays on one line. Itself when it holds none.
    public var controlCharactersEscaped: String {
        unicodeScalars.contains { $0.properties.generalCategory == .control } ? escapedForDisplay(quotes: false) : self
    }

    private func escapedForDisplay(quotes: Bool) -> String {
        var text = ""
        for scalar in unicodeScalars {
            switch scalar {
            case "\"" where quotes: text += "\\\""
            case "\\" where quotes: text += "\\\\"
            case "\n": text += "\\n"
            case "\t": text += "\\t"
            case "\r": text += "\\r"
            case _ where scalar.properties.generalCategory == .control:
                let hex = String(scalar.value, radix: 16)
                text += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: text.unicodeScalars.append(scalar)
            }
        }
        return text
    }
}
