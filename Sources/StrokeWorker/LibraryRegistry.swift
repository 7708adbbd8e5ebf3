import StrokeRecognition

/// The template libraries a worker matches against, by name, each compiled in both orientation modes.
public struct LibraryRegistry: Sendable {
    /// A library compiled for matching.
    public struct Entry: Sendable {
        /// The library's name.
        public let name: String
        /// Matching in the library's own orientation mode.
        public let own: Recognizer
        /// Matching in the other mode (sessions may override the orientation).
        public let other: Recognizer

        /// The recognizer for a session's orientation override.
        func recognizer(invariant: Bool?) -> Recognizer {
            guard let invariant else { return own }
            return (own.library.orientation == .invariant) == invariant ? own : other
        }
    }

    /// Which recognizer a session uses: its library's index and its orientation override. Plain values, so that
    /// a finished stroke can go to another thread without retaining a recognizer there.
    public struct Slot: Sendable, Hashable {
        /// The library's index in `entries`.
        public var library: Int32
        /// The session's orientation override (nil: the library's own mode).
        public var invariant: Bool?

        /// A slot.
        public init(library: Int32, invariant: Bool?) {
            self.library = library
            self.invariant = invariant
        }
    }

    /// The libraries, the built-in `default` first.
    public let entries: [Entry]

    private init(entries: [Entry]) { self.entries = entries }

    /// The recognizer of a slot.
    func recognizer(_ slot: Slot) -> Recognizer { entries[Int(slot.library)].recognizer(invariant: slot.invariant) }

    /// The name of a slot's library.
    func name(_ slot: Slot) -> String { entries[Int(slot.library)].name }

    /// The same libraries behind handles of their own (`Recognizer.independentCopy()`): each thread that
    /// recognizes holds one, so that the reference counts it touches per stroke are not shared with another core.
    public func independentCopy() -> LibraryRegistry {
        LibraryRegistry(
            entries: entries.map { entry in
                Entry(
                    name: String(decoding: Array(entry.name.utf8), as: UTF8.self), own: entry.own.independentCopy(),
                    other: entry.other.independentCopy())
            })
    }

    /// Compiles the libraries. Names must be unique.
    ///
    /// - Throws: `RecognitionError` for a bad library or a duplicate name.
    public init(_ libraries: [TemplateLibrary], configuration: RecognizerConfiguration = .default)
        throws(RecognitionError)
    {
        var entries = [Entry]()
        for library in libraries {
            guard !entries.contains(where: { $0.name == library.name }) else {
                throw RecognitionError(.invalidConfiguration, "two template libraries are named \"\(library.name)\"")
            }
            var flipped = library
            flipped.orientation = library.orientation == .invariant ? .sensitive : .invariant
            entries.append(
                Entry(
                    name: library.name, own: try Recognizer(library: library, configuration: configuration),
                    other: try Recognizer(library: flipped, configuration: configuration)))
        }
        guard !entries.isEmpty else { throw RecognitionError(.invalidConfiguration, "no template library") }
        self.entries = entries
    }

    /// Why the checkmark detector's choice (`RecognizerConfiguration.checkmarkGesture`) would never apply, said
    /// for a person, or nil: no library has a gesture of that name, so that only a gesture a session learns by it
    /// could be chosen (`--checkmark-gesture chek`, a library whose check is named `tick`).
    public func checkmarkGestureWarning(_ configuration: RecognizerConfiguration) -> String? {
        let name = configuration.checkmarkGesture
        guard !name.isEmpty, configuration.checkmarkMargin > 0 else { return nil }
        let libraries = entries.map(\.own.library)
        guard !libraries.contains(where: { $0.gestureNames.contains(name) }) else { return nil }
        let held = libraries.map { library in
            "\(library.name): \(library.gestureNames.isEmpty ? "none" : library.gestureNames.joined(separator: ", "))"
        }
        return "--checkmark-gesture \(name.quotedForDisplay): no library has a gesture of that name "
            + "(\(held.joined(separator: "; "))), so the checkmark detector chooses a match only among the gestures "
            + "sessions learn by it; \"\" turns it off"
    }

    /// A line for each library that holds no templates, to log when the worker starts: allowed (its sessions match
    /// only the gestures they learn), but more often a file written wrong, whose sessions would otherwise get nothing
    /// but `nomatch` without a word. (A reload that empties a library is warned of on its own:
    /// `Worker.reloadLibraries`.)
    public var emptyLibraryWarnings: [String] {
        entries.filter { $0.own.library.templates.isEmpty }.map {
            "template library \($0.name.quotedForDisplay) holds no templates: its sessions match only the gestures "
                + "they learn"
        }
    }

    /// The index of the library named `name`.
    public func index(of name: String) -> Int? { entries.firstIndex { $0.name == name } }
}
