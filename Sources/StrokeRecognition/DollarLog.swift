import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Recorded strokes in the XML log format of the $1 unistroke study (Wobbrock, Wilson and Li, UIST 2007).
///
/// A file holds one `<Gesture Name="check01" Subject="2" Speed="fast" …>` element with `<Point X= Y= T= />`
/// children (integer pixels, y down, absolute milliseconds) and may begin with a UTF-8 byte-order mark.
/// A data set is laid out as `DIR/sNN/{slow,medium,fast}/<gesture>NN.xml`.
public struct DollarLog: Sendable, Hashable {
    /// The gesture's name: the `Name` attribute without its repetition number (`check01` → `check`).
    public var gesture: String
    /// The subject's folder name (`s02`), or the `Subject` attribute when read from bare data.
    public var subject: String
    /// The speed folder or attribute: `slow`, `medium` or `fast`.
    public var speed: String
    /// The stroke.
    public var points: [StrokePoint]

    /// Creates a log entry.
    public init(gesture: String, subject: String, speed: String, points: [StrokePoint]) {
        self.gesture = gesture
        self.subject = subject
        self.speed = speed
        self.points = points
    }

    // MARK: - Parsing

    /// Parses one log file's contents.
    ///
    /// - Throws: `RecognitionError.Code.malformedLog` naming what is missing or unreadable.
    public init(xml data: Data, source: String) throws(RecognitionError) {
        var bytes = [UInt8](data)
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes.removeFirst(3) }
        guard let gestureTag = Self.elements(named: Array("Gesture".utf8), in: bytes).first else {
            throw RecognitionError(.malformedLog, "\(source): no <Gesture> element")
        }
        let attributes = Self.attributes(of: bytes[gestureTag])
        let rawName = attributes["Name"] ?? ""
        let name = String(rawName.reversed().drop { $0.isNumber }.reversed())
        guard !name.isEmpty else { throw RecognitionError(.malformedLog, "\(source): <Gesture> has no Name") }
        var points = [StrokePoint]()
        for (index, tag) in Self.elements(named: Array("Point".utf8), in: bytes).enumerated() {
            let point = Self.attributes(of: bytes[tag])
            guard let x = point["X"].flatMap(Double.init), let y = point["Y"].flatMap(Double.init),
                let t = point["T"].flatMap(Double.init), x.isFinite, y.isFinite, t.isFinite
            else {
                let text = String(decoding: bytes[tag], as: UTF8.self)
                throw RecognitionError(.malformedLog, "\(source): point \(index) lacks a numeric X, Y or T: \(text)")
            }
            points.append(StrokePoint(x: x, y: y, time: t))
        }
        guard !points.isEmpty else { throw RecognitionError(.malformedLog, "\(source): no <Point> elements") }
        self.init(
            gesture: name, subject: attributes["Subject"].map { "s\($0)" } ?? "",
            speed: attributes["Speed"] ?? "", points: points)
    }

    /// Loads every `sNN/<speed>/*.xml` below `directory`, sorted by path.
    ///
    /// - Throws: `RecognitionError` `.io` when the directory cannot be read, `.malformedLog` for a bad file.
    public static func loadDataset(_ directory: String) throws(RecognitionError) -> [DollarLog] {
        let manager = FileManager.default
        let paths = try xmlFiles(below: directory)
        guard !paths.isEmpty else { throw RecognitionError(.io, "no .xml gesture logs below \(directory)") }
        var logs = [DollarLog]()
        for relative in paths.sorted() {
            let full = (directory as NSString).appendingPathComponent(relative)
            guard let data = manager.contents(atPath: full) else { throw RecognitionError(.io, "cannot read \(full)") }
            var log = try DollarLog(xml: data, source: full)
            let components = relative.split(separator: "/").map(String.init)
            if components.count >= 3 {
                log.subject = components[components.count - 3]
                log.speed = components[components.count - 2]
            }
            logs.append(log)
        }
        return logs
    }

    /// The `.xml` files below `directory`, as paths relative to it, through symbolic links: a data set linked in
    /// whole (`ln -s ../shared/datasets/dollar1 data`) or subject by subject. Foundation's directory enumerator
    /// followed none, and before session 87 a linked data set was "no .xml gesture logs". A directory met again
    /// (a link back up the tree, or a second way to it) is read once, by the shortest path (breadth first, by name).
    static func xmlFiles(below directory: String) throws(RecognitionError) -> [String] {
        func failure(_ path: String, _ reason: String) -> RecognitionError {
            RecognitionError(.io, "cannot read directory \(path): \(reason)")
        }
        var found = [String]()
        var seen = Set<[UInt64]>()
        var pending = [""]
        var next = 0
        while next < pending.count {
            let relative = pending[next]
            next += 1
            let path = relative.isEmpty ? directory : directory + "/" + relative
            var status = stat()
            guard stat(path, &status) == 0 else {
                if relative.isEmpty { throw failure(directory, String(cString: strerror(errno))) }
                continue  // a link to nothing
            }
            guard status.st_mode & S_IFMT == S_IFDIR else {
                if relative.isEmpty { throw failure(directory, "not a directory") }
                if status.st_mode & S_IFMT == S_IFREG && relative.hasSuffix(".xml") { found.append(relative) }
                continue
            }
            guard seen.insert([UInt64(status.st_dev), UInt64(status.st_ino)]).inserted else { continue }
            guard let stream = opendir(path) else { throw failure(path, String(cString: strerror(errno))) }
            defer { closedir(stream) }
            var names = [String]()
            while let entry = readdir(stream) {
                let name = withUnsafePointer(to: &entry.pointee.d_name) {
                    String(cString: UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self))
                }
                if name != "." && name != ".." { names.append(relative.isEmpty ? name : relative + "/" + name) }
            }
            pending += names.sorted()
        }
        return found
    }

    // MARK: - A minimal scanner for this flat format

    /// XML's white space: space, tab, line feed, carriage return.
    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    /// A byte that ends a name inside a tag: white space, `=`, `>` or `/`.
    private static func endsName(_ byte: UInt8) -> Bool {
        isSpace(byte) || byte == UInt8(ascii: "=") || byte == UInt8(ascii: ">") || byte == UInt8(ascii: "/")
    }

    /// The byte ranges of the start tags `<name …>`, `<name>` or `<name/>`, the name followed by any white space
    /// (before session 86 a space only: a tag whose attributes began on the next line was not found).
    private static func elements(named name: [UInt8], in bytes: [UInt8]) -> [Range<Int>] {
        var result = [Range<Int>]()
        var index = 0
        while index < bytes.count {
            let after = index + 1 + name.count
            guard bytes[index] == UInt8(ascii: "<"), after < bytes.count,
                bytes[(index + 1)..<after].elementsEqual(name),
                isSpace(bytes[after]) || bytes[after] == UInt8(ascii: ">") || bytes[after] == UInt8(ascii: "/")
            else {
                index += 1
                continue
            }
            var end = after
            while end < bytes.count && bytes[end] != UInt8(ascii: ">") { end += 1 }
            guard end < bytes.count else { break }
            result.append(index..<(end + 1))
            index = end + 1
        }
        return result
    }

    /// `key="value"` (or `'value'`) pairs of a start tag, with white space of any kind between them and around
    /// `=`, as XML allows.
    private static func attributes(of tag: ArraySlice<UInt8>) -> [String: String] {
        var result = [String: String]()
        var index = tag.startIndex + 1
        func skip(while condition: (UInt8) -> Bool) {
            while index < tag.endIndex, condition(tag[index]) { index += 1 }
        }
        skip { !endsName($0) }  // the element's name
        while true {
            skip(while: isSpace)
            let keyStart = index
            skip { !endsName($0) }
            let keyEnd = index
            skip(while: isSpace)
            guard keyEnd > keyStart, index < tag.endIndex, tag[index] == UInt8(ascii: "=") else { break }
            index += 1
            skip(while: isSpace)
            guard index < tag.endIndex, tag[index] == UInt8(ascii: "\"") || tag[index] == UInt8(ascii: "'"),
                let close = tag[(index + 1)...].firstIndex(of: tag[index])
            else { break }
            let key = String(decoding: tag[keyStart..<keyEnd], as: UTF8.self)
            result[key] = String(decoding: tag[(index + 1)..<close], as: UTF8.self)
            index = close + 1
        }
        return result
    }
}
