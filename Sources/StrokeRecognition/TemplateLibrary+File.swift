import Foundation
import StrokeProtocol

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension TemplateLibrary {
    // MARK: - Format

    /// The value of the `format` field of every template library file.
    public static let formatIdentifier = "stroke-worker/template-library"
    /// The newest format version this build reads and writes: 2 added templates of several strokes, 3 gestures
    /// with thresholds of their own, 4 scores that stand for several templates (`neighbors`).
    public static let formatVersion = 4
    /// The format versions this build reads.
    public static let readableVersions = 1...4

    /// The version a save writes, the lowest that holds the library, so that older readers still read what they
    /// can match as written: 4 once a gesture's score stands for several of its templates (a reader that ignored
    /// it would score strokes by the nearest one, higher, and take strokes the library turns away); else 3 once a
    /// gesture has a threshold of its own (for the same reason); else 2 once a template has several strokes, or
    /// strokes may go either way; else 1.
    public var fileVersion: Int {
        if neighbors != 1 { return 4 }
        if !gestureMinimumScores.isEmpty { return 3 }
        return strokeOrder != .any || strokeDirection != .drawn || templates.contains { $0.strokeCount > 1 } ? 2 : 1
    }

    /// A gesture's settings in the file (`gestures`): its threshold.
    private struct GestureSettings: Codable {
        var minimumScore: Double
    }

    private struct FileContents: Codable {
        var format: String
        var version: Int
        var name: String
        var orientation: String
        var maxRotationDegrees: Double?
        var elasticDeadZoneDegrees: Double?
        var minimumScore: Double?
        var strokeOrder: StrokeOrder?
        var strokeDirection: StrokeDirection?
        var gestures: [String: GestureSettings]?
        var neighbors: Int?
        var templates: [GestureTemplate]
    }

    // MARK: - Decoding

    /// Parses and validates a library from the JSON file format.
    ///
    /// - Throws: `RecognitionError` with `.malformedLibrary` (saying where and what) or `.unsupportedVersion`.
    public init(json data: Data, source: String = "library") throws(RecognitionError) {
        if let problem = RecognitionError.documentProblem(in: data) {
            throw RecognitionError(.malformedLibrary, "\(source): \(problem)")
        }
        let contents: FileContents
        do {
            contents = try RecognitionError.decodeJSON(FileContents.self, from: data)
        } catch let error as DecodingError {
            throw RecognitionError(.malformedLibrary, "\(source): \(RecognitionError.describe(error, in: data))")
        } catch {
            throw RecognitionError(.malformedLibrary, "\(source): \(error)")
        }
        guard contents.format == Self.formatIdentifier else {
            throw RecognitionError(
                .malformedLibrary,
                "\(source): format is \"\(contents.format)\"; expected \"\(Self.formatIdentifier)\"")
        }
        guard Self.readableVersions.contains(contents.version) else {
            throw RecognitionError(
                .unsupportedVersion,
                "\(source): version \(contents.version) is not supported (this build reads "
                    + "\(Self.readableVersions.lowerBound)–\(Self.readableVersions.upperBound))")
        }
        if contents.version < 2, let index = contents.templates.firstIndex(where: { $0.strokeCount > 1 }) {
            throw RecognitionError(
                .malformedLibrary, "\(source): templates[\(index)] has several strokes, which need version 2")
        }
        guard let orientation = Orientation(rawValue: contents.orientation) else {
            throw RecognitionError(
                .malformedLibrary,
                "\(source): orientation \"\(contents.orientation)\" is neither \"invariant\" nor \"sensitive\"")
        }
        self.init(
            name: contents.name,
            orientation: orientation,
            maxRotationDegrees: contents.maxRotationDegrees ?? 30,
            minimumScore: contents.minimumScore ?? 0.5,
            templates: contents.templates)
        if contents.version < 2, contents.strokeOrder != nil {
            throw RecognitionError(.malformedLibrary, "\(source): strokeOrder needs version 2")
        }
        if contents.version < 2, contents.strokeDirection != nil {
            throw RecognitionError(.malformedLibrary, "\(source): strokeDirection needs version 2")
        }
        if contents.version < 3, contents.gestures != nil {
            throw RecognitionError(.malformedLibrary, "\(source): gestures needs version 3")
        }
        if contents.version < 4, contents.neighbors != nil {
            throw RecognitionError(.malformedLibrary, "\(source): neighbors needs version 4")
        }
        neighbors = contents.neighbors ?? 1
        elasticDeadZoneDegrees = contents.elasticDeadZoneDegrees
        strokeOrder = contents.strokeOrder ?? .any
        strokeDirection = contents.strokeDirection ?? .drawn
        gestureMinimumScores = contents.gestures?.mapValues(\.minimumScore) ?? [:]
        try validate(source: source)
    }

    /// Checks every field against its documented range.
    ///
    /// - Throws: `RecognitionError.Code.malformedLibrary` naming the first offending field.
    public func validate(source: String = "library") throws(RecognitionError) {
        func fail(_ message: String) -> RecognitionError {
            RecognitionError(.malformedLibrary, "\(source): \(message)")
        }
        guard !name.isEmpty else { throw fail("name is empty") }
        // Names reach logs and terminals as they are: a newline in one split the worker's log line.
        guard !Self.hasControlCharacter(name) else {
            throw fail("name \(name.quotedForDisplay) has a control character")
        }
        guard maxRotationDegrees.isFinite, (0...180).contains(maxRotationDegrees) else {
            throw fail("maxRotationDegrees \(maxRotationDegrees) is outside 0...180")
        }
        if let degrees = elasticDeadZoneDegrees, !degrees.isFinite || !(0...180).contains(degrees) {
            throw fail("elasticDeadZoneDegrees \(degrees) is outside 0...180")
        }
        guard minimumScore.isFinite, (0...1).contains(minimumScore) else {
            throw fail("minimumScore \(minimumScore) is outside 0...1")
        }
        guard (1...Self.maximumNeighbors).contains(neighbors) else {
            throw fail("neighbors \(neighbors) is outside 1...\(Self.maximumNeighbors)")
        }
        for (name, score) in gestureMinimumScores.sorted(by: { $0.key < $1.key }) {
            guard !name.isEmpty else { throw fail("gestures has an empty name") }
            guard !Self.hasControlCharacter(name) else {
                throw fail("gestures has a name with a control character, \(name.quotedForDisplay)")
            }
            if let problem = Self.unchoosable(name) { throw fail("gestures has a name \(problem)") }
            guard score.isFinite, (0...1).contains(score) else {
                throw fail("gestures.\(name).minimumScore \(score) is outside 0...1")
            }
        }
        for (index, template) in templates.enumerated() {
            guard !template.name.isEmpty else { throw fail("templates[\(index)].name is empty") }
            guard !Self.hasControlCharacter(template.name) else {
                throw fail("templates[\(index)].name \(template.name.quotedForDisplay) has a control character")
            }
            if let problem = Self.unchoosable(template.name) { throw fail("templates[\(index)].name \(problem)") }
            guard template.points.count >= 2 else {
                let count = String(counting: template.points.count, "point")
                throw fail("templates[\(index)] (\(template.name)) has \(count); needs 2")
            }
            // Every order, or every combination of directions, of more strokes would make too many paths.
            let bounded = strokeOrder == .any || strokeDirection == .any
            if let problem = template.strokeProblem(maximum: bounded ? GestureTemplate.maximumStrokes : nil) {
                throw fail("templates[\(index)] (\(template.name)) \(problem)")
            }
            if let bad = template.points.firstIndex(where: { !$0.x.isFinite || !$0.y.isFinite }) {
                throw fail("templates[\(index)].points[\(bad)] is not finite")
            }
            if template.points.allSatisfy({ $0 == template.points[0] }) {
                throw fail("templates[\(index)] (\(template.name)) has no extent (all points are equal)")
            }
        }
    }

    /// Whether `name` holds a control character (U+0000–U+001F, U+007F–U+009F), which no name of a library or of
    /// its gestures may: the protocol's own names (session ids, learned gestures) have none either.
    static func hasControlCharacter(_ name: String) -> Bool {
        name.unicodeScalars.contains { $0.properties.generalCategory == .control }
    }

    /// Why no session could choose the gesture `name` by its name, for an error message; nil when one can. A
    /// session names gestures (`options` `gestures`, `gestureScores`) as it names those it learns (`LearnedName`):
    /// at most `LearnedName.maximumBytes`, and not `LearnedName.all`, which stands for every gesture there. Before
    /// session 86 a library took such names, and matched them, but a session that chose gestures could not name them.
    static func unchoosable(_ name: String) -> String? {
        if name == LearnedName.all {
            return
                "\"\(name)\", which stands for every gesture where sessions choose gestures: give the gesture another"
        }
        let bytes = name.utf8.count
        guard bytes > LearnedName.maximumBytes else { return nil }
        return "\(String(name.prefix(24)).quotedForDisplay)… is \(bytes) bytes of UTF-8; a gesture's name is at most "
            + "\(LearnedName.maximumBytes), as sessions choose gestures by it"
    }

    // MARK: - Encoding

    /// The library in the JSON file format (sorted keys, so that saves are reproducible).
    public func jsonData() throws(RecognitionError) -> Data {
        let contents = FileContents(
            format: Self.formatIdentifier, version: fileVersion, name: name,
            orientation: orientation.rawValue, maxRotationDegrees: maxRotationDegrees,
            elasticDeadZoneDegrees: elasticDeadZoneDegrees, minimumScore: minimumScore,
            strokeOrder: strokeOrder == .any ? nil : strokeOrder,
            strokeDirection: strokeDirection == .drawn ? nil : strokeDirection,
            gestures: gestureMinimumScores.isEmpty
                ? nil : gestureMinimumScores.mapValues { GestureSettings(minimumScore: $0) },
            neighbors: neighbors == 1 ? nil : neighbors, templates: templates)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        do {
            return try encoder.encode(contents)
        } catch {
            throw RecognitionError(.malformedLibrary, "cannot encode library \(name): \(error)")
        }
    }

    // MARK: - Files

    /// Loads a library file.
    public init(contentsOf path: String) throws(RecognitionError) {
        try self.init(json: try RecognitionError.contents(ofFile: path), source: path)
    }

    /// Saves the library atomically: writes a temporary file beside `path`, fsyncs it, then renames it over
    /// `path`, so readers see the old file or the new one, never a torn one. Through a symbolic link, the file it
    /// points to is replaced and the link kept. A `path` that is not a regular file (`/dev/stdout`, a pipe, a
    /// terminal) is written into as it is: renaming over it would put a regular file in its place (as root,
    /// `-o /dev/stdout` replaced the system's link).
    public func save(to path: String) throws(RecognitionError) {
        try validate(source: name)
        let data = try jsonData()
        if RecognitionError.nonRegularKind(of: path) != nil {
            let fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC)
            guard fd >= 0 else {
                throw RecognitionError(.io, "cannot write \(path): \(String(cString: strerror(errno)))")
            }
            defer { close(fd) }
            if let failure = RecognitionError.write(data, to: fd, named: path) { throw RecognitionError(.io, failure) }
            return
        }
        let target = RecognitionError.linkTarget(of: path)
        let temporary = "\(target).tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        // Every failure names the file asked for first; the temporary file's step follows.
        func failure(_ step: String) -> RecognitionError {
            RecognitionError(.io, "cannot write \(path): \(step)")
        }
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw failure("create \(temporary): \(String(cString: strerror(errno)))") }
        var step = RecognitionError.write(data, to: fd, named: temporary)
        if step == nil && fsync(fd) != 0 { step = "fsync \(temporary): \(String(cString: strerror(errno)))" }
        close(fd)
        if step == nil && rename(temporary, target) != 0 {
            step = "rename \(temporary) to \(target): \(String(cString: strerror(errno)))"
        }
        if let step {
            unlink(temporary)
            throw failure(step)
        }
    }

}
