/// A named example stroke of a gesture.
public struct GestureTemplate: Sendable, Hashable {
    /// The gesture's name, reported when a stroke matches this template.
    public var name: String
    /// The example stroke, as drawn (any unit; the matcher normalizes position, size and rotation).
    public var points: [SIMD2<Double>]

    /// Creates a template.
    public init(name: String, points: [SIMD2<Double>]) {
        self.name = name
        self.points = points
    }

    /// Creates a template from touch points, dropping their times.
    public init(name: String, strokePoints: [StrokePoint]) {
        self.init(name: name, points: strokePoints.map(\.position))
    }
}

// MARK: - Codable

extension GestureTemplate: Codable {
    private enum CodingKeys: String, CodingKey {
        case name
        case points
    }

    /// Decodes `{"name": "...", "points": [[x, y], …]}`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decode(String.self, forKey: .name)
        let pairs = try container.decode([[Double]].self, forKey: .points)
        var points = [SIMD2<Double>]()
        points.reserveCapacity(pairs.count)
        for (index, pair) in pairs.enumerated() {
            guard pair.count == 2 else {
                throw DecodingError.dataCorruptedError(
                    forKey: .points, in: container,
                    debugDescription: "point \(index) has \(pair.count) numbers; expected [x, y]")
            }
            points.append(SIMD2(pair[0], pair[1]))
        }
        self.points = points
    }

    /// Encodes `{"name": "...", "points": [[x, y], …]}`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try container.encode(points.map { [$0.x, $0.y] }, forKey: .points)
    }
}
