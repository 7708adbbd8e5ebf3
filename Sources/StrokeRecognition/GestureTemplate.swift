/// A named example of a gesture: one stroke, or several drawn one after another (a multistroke gesture).
public struct GestureTemplate: Sendable, Hashable {
    /// The gesture's name, reported when a stroke matches this template.
    public var name: String
    /// The example's points as drawn (any unit; the matcher normalizes position, size and rotation): all of its
    /// strokes, one after another.
    public var points: [SIMD2<Double>]
    /// Where each stroke after the first begins in `points`, ascending; empty for a single stroke.
    public var strokeStarts: [Int]

    /// Creates a template of one stroke.
    public init(name: String, points: [SIMD2<Double>]) {
        self.name = name
        self.points = points
        self.strokeStarts = []
    }

    /// Creates a template of the strokes `strokes`, in the order they were drawn.
    public init(name: String, strokes: [[SIMD2<Double>]]) {
        self.name = name
        self.points = strokes.flatMap { $0 }
        var starts = [Int]()
        var start = 0
        for stroke in strokes.dropLast() {
            start += stroke.count
            starts.append(start)
        }
        self.strokeStarts = starts
    }

    /// Creates a template from touch points, dropping their times.
    public init(name: String, strokePoints: [StrokePoint]) {
        self.init(name: name, points: strokePoints.map(\.position))
    }

    /// Number of strokes (1 for a unistroke template).
    public var strokeCount: Int { strokeStarts.count + 1 }

    /// Each stroke's points, in the order drawn.
    public var strokes: [ArraySlice<SIMD2<Double>>] {
        let bounds = [0] + strokeStarts + [points.count]
        return (0..<strokeCount).map { points[bounds[$0]..<bounds[$0 + 1]] }
    }
}

// MARK: - Codable

extension GestureTemplate: Codable {
    private enum CodingKeys: String, CodingKey {
        case name
        case points
        case strokes
    }

    /// Decodes `{"name": "...", "points": [[x, y], …]}` or, for several strokes,
    /// `{"name": "...", "strokes": [[[x, y], …], …]}`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let name = try container.decode(String.self, forKey: .name)
        let hasPoints = container.contains(.points)
        guard hasPoints != container.contains(.strokes) else {
            throw DecodingError.dataCorruptedError(
                forKey: hasPoints ? .strokes : .points, in: container,
                debugDescription: "a template has either \"points\" (one stroke) or \"strokes\" (several), not "
                    + (hasPoints ? "both" : "neither"))
        }
        if hasPoints {
            let pairs = try container.decode([[Double]].self, forKey: .points)
            self.init(name: name, points: try Self.points(pairs, key: .points, in: container))
        } else {
            let strokes = try container.decode([[[Double]]].self, forKey: .strokes)
            guard !strokes.isEmpty else {
                throw DecodingError.dataCorruptedError(
                    forKey: .strokes, in: container, debugDescription: "\"strokes\" is empty")
            }
            self.init(name: name, strokes: try strokes.map { try Self.points($0, key: .strokes, in: container) })
        }
    }

    private static func points(
        _ pairs: [[Double]], key: CodingKeys, in container: KeyedDecodingContainer<CodingKeys>
    ) throws -> [SIMD2<Double>] {
        var points = [SIMD2<Double>]()
        points.reserveCapacity(pairs.count)
        for (index, pair) in pairs.enumerated() {
            guard pair.count == 2 else {
                throw DecodingError.dataCorruptedError(
                    forKey: key, in: container,
                    debugDescription: "point \(index) has \(pair.count) numbers; expected [x, y]")
            }
            points.append(SIMD2(pair[0], pair[1]))
        }
        return points
    }

    /// Encodes `{"name": "...", "points": [[x, y], …]}`, or `"strokes"` for several strokes.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        if strokeStarts.isEmpty {
            try container.encode(points.map { [$0.x, $0.y] }, forKey: .points)
        } else {
            try container.encode(strokes.map { $0.map { [$0.x, $0.y] } }, forKey: .strokes)
        }
    }
}
