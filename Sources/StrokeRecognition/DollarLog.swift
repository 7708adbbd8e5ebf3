import Foundation

/// Recorded strokes in the XML log format of the $1 unistroke study (Wobbrock, Wilson and Li, UIST 2007).
///
/// A file holds one `<Gesture Name="check01" Subject="2" Speed="fast" …>` element with `<Point X= Y= T= />`
/// children (integer pixels, y down, absolute milliseconds) and may begin with a UTF-8 byte-order mark.
/// A data set is laid out as `DIR/sNN/{slow,medium,fast}/<gesture>NN.xml`.
public struct DollarLog: Sendable, Hashable {
    /// The gesture's name, taken from the file name without its repetition number (`check01.xml` → `check`).
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
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw RecognitionError(.malformedLog, "\(source): not UTF-8")
        }
        guard let gestureTag = Self.elements(named: "Gesture", in: text).first else {
            throw RecognitionError(.malformedLog, "\(source): no <Gesture> element")
        }
        let attributes = Self.attributes(of: gestureTag)
        let rawName = attributes["Name"] ?? ""
        let name = String(rawName.reversed().drop { $0.isNumber }.reversed())
        guard !name.isEmpty else { throw RecognitionError(.malformedLog, "\(source): <Gesture> has no Name") }
        var points = [StrokePoint]()
        for (index, tag) in Self.elements(named: "Point", in: text).enumerated() {
            let point = Self.attributes(of: tag)
            guard let x = point["X"].flatMap(Double.init), let y = point["Y"].flatMap(Double.init),
                let t = point["T"].flatMap(Double.init), x.isFinite, y.isFinite, t.isFinite
            else {
                throw RecognitionError(.malformedLog, "\(source): point \(index) lacks a numeric X, Y or T: \(tag)")
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
        guard let enumerator = manager.enumerator(atPath: directory) else {
            throw RecognitionError(.io, "cannot read directory \(directory)")
        }
        var paths = [String]()
        while let relative = enumerator.nextObject() as? String {
            if relative.hasSuffix(".xml") { paths.append(relative) }
        }
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

    // MARK: - A minimal scanner for this flat format

    private static func elements(named name: String, in text: String) -> [Substring] {
        var result = [Substring]()
        var rest = text[...]
        while let open = rest.range(of: "<\(name) ") ?? rest.range(of: "<\(name)>") {
            guard let close = rest[open.upperBound...].firstIndex(of: ">") else { break }
            result.append(rest[open.lowerBound...close])
            rest = rest[rest.index(after: close)...]
        }
        return result
    }

    private static func attributes(of tag: Substring) -> [String: String] {
        var result = [String: String]()
        var rest = tag
        while let equals = rest.firstIndex(of: "=") {
            let key = rest[..<equals].split(whereSeparator: { $0 == " " || $0 == "<" || $0 == "\n" }).last
            let afterEquals = rest[rest.index(after: equals)...]
            guard let quote = afterEquals.first, quote == "\"" || quote == "'",
                let end = afterEquals.dropFirst().firstIndex(of: quote)
            else { break }
            if let key {
                result[String(key)] = String(afterEquals[afterEquals.index(after: afterEquals.startIndex)..<end])
            }
            rest = afterEquals[afterEquals.index(after: end)...]
        }
        return result
    }
}
