import Foundation

extension CheckmarkConfiguration {
    // MARK: - Validation

    /// Checks the ranges in which the detector is defined: at least one resampled point per leg and room for
    /// both legs and their corner, a positive `initialSpacing` when one is set, curls of at least 1 (a path is
    /// never shorter than its chord), positive fire ratios, early-fire factor and speed, finite angles and
    /// ratios, a minimum duration of 0 or more, and a square corner's tolerance of 0 to 45 degrees.
    public func validate() throws(RecognitionError) {
        func fail(_ message: String) -> RecognitionError { RecognitionError(.invalidConfiguration, message) }
        guard (1...1024).contains(minimumLegPoints) else {
            throw fail("minimumLegPoints \(minimumLegPoints) is outside 1...1024")
        }
        let leastCapacity = 2 * minimumLegPoints + 1
        guard (leastCapacity...(1 << 24)).contains(capacity) else {
            throw fail(
                "capacity \(capacity) is outside \(leastCapacity)...\(1 << 24) (2 × minimumLegPoints + 1 or more)")
        }
        if let initialSpacing, !(initialSpacing.isFinite && initialSpacing > 0) {
            throw fail("initialSpacing \(initialSpacing) must be a positive number, or absent")
        }
        for (name, range) in [
            ("firstLegDirection", firstLegDirection), ("secondLegDirection", secondLegDirection), ("turn", turn),
        ] where !(range.lowerBound.isFinite && range.upperBound.isFinite) {
            throw fail("\(name) \(range) must have finite bounds")
        }
        for (name, value) in [("firstLegMaxCurl", firstLegMaxCurl), ("secondLegMaxCurl", secondLegMaxCurl)]
        where !(value.isFinite && value >= 1) {
            throw fail("\(name) \(value) must be at least 1")
        }
        for (name, value) in [
            ("fireRatio", fireRatio), ("steepFireRatio", steepFireRatio), ("earlyFireFactor", earlyFireFactor),
            ("earlyFireSpeed", earlyFireSpeed),
        ]
        where !(value.isFinite && value > 0) {
            throw fail("\(name) \(value) must be positive")
        }
        for (name, value) in [
            ("minimumSharpness", minimumSharpness), ("firstLegMaxTurn", firstLegMaxTurn),
            ("secondLegMaxTurn", secondLegMaxTurn), ("steepAngle", steepAngle), ("steepFirstAngle", steepFirstAngle),
        ] where !value.isFinite {
            throw fail("\(name) \(value) must be finite")
        }
        guard minimumDuration.isFinite, minimumDuration >= 0 else {
            throw fail("minimumDuration \(minimumDuration) must be 0 or more milliseconds")
        }
        guard minimumFirstLegDuration.isFinite, minimumFirstLegDuration >= 0 else {
            throw fail("minimumFirstLegDuration \(minimumFirstLegDuration) must be 0 or more milliseconds")
        }
        guard squareCornerTolerance.isFinite, (0...45).contains(squareCornerTolerance) else {
            throw fail("squareCornerTolerance \(squareCornerTolerance) is outside 0...45 degrees")
        }
    }

    // MARK: - Files

    /// Reads a tuning from a JSON file and validates it: an object with any of the fields, named as the
    /// properties, ranges as `[lower, upper]`; fields left out keep their defaults, unknown ones are an error.
    ///
    /// - Throws: `RecognitionError` with code `.io` when the file cannot be read, `.invalidConfiguration` when it
    ///   is not such an object or a value is out of range (`validate()`); the message names the file.
    public init(contentsOf path: String) throws(RecognitionError) {
        let data = try RecognitionError.contents(ofFile: path)
        if let problem = RecognitionError.documentProblem(in: data) {
            throw RecognitionError(.invalidConfiguration, "\(path): not a checkmark configuration: \(problem)")
        }
        do {
            self = try RecognitionError.decodeJSON(CheckmarkConfiguration.self, from: data)
        } catch let error as RecognitionError {
            throw RecognitionError(error.code, "\(path): \(error.message)")
        } catch let error as DecodingError {
            throw RecognitionError(
                .invalidConfiguration,
                "\(path): not a checkmark configuration: \(RecognitionError.describe(error, in: data))")
        } catch {
            throw RecognitionError(.invalidConfiguration, "\(path): not a checkmark configuration: \(error)")
        }
        do {
            try validate()
        } catch {
            throw RecognitionError(error.code, "\(path): \(error.message)")
        }
    }

    // MARK: - Decoding

    /// The fields, named as the properties.
    private enum Field: String, CodingKey, CaseIterable {
        case initialSpacing, capacity, minimumLegPoints, firstLegDirection, secondLegDirection, turn
        case firstLegMaxCurl, secondLegMaxCurl, minimumSharpness, firstLegMaxTurn, secondLegMaxTurn, fireRatio
        case steepFireRatio, steepAngle
        case steepFirstAngle, compareHeights, earlyFireFactor, earlyFireSpeed, minimumDuration, minimumFirstLegDuration
        case squareCornerTolerance
    }

    /// Any key of a JSON object, to find the unknown ones.
    private struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// Decodes the fields present over the defaults; an unknown field is an `.invalidConfiguration` error (a
    /// misspelt name would otherwise be ignored without a word).
    public init(from decoder: any Decoder) throws {
        let unknown = try decoder.container(keyedBy: AnyKey.self).allKeys.map(\.stringValue)
            .filter { Field(stringValue: $0) == nil }
        guard unknown.isEmpty else {
            throw RecognitionError(
                .invalidConfiguration,
                "unknown field\(unknown.count == 1 ? "" : "s") \(unknown.sorted().joined(separator: ", ")); known: "
                    + Field.allCases.map(\.stringValue).joined(separator: ", "))
        }
        let fields = try decoder.container(keyedBy: Field.self)
        let d = CheckmarkConfiguration.default
        func value<T: Decodable>(_ field: Field, _ fallback: T) throws -> T {
            try fields.decodeIfPresent(T.self, forKey: field) ?? fallback
        }
        self.init(
            initialSpacing: try fields.decodeIfPresent(Double.self, forKey: .initialSpacing),
            capacity: try value(.capacity, d.capacity),
            minimumLegPoints: try value(.minimumLegPoints, d.minimumLegPoints),
            firstLegDirection: try value(.firstLegDirection, d.firstLegDirection),
            secondLegDirection: try value(.secondLegDirection, d.secondLegDirection), turn: try value(.turn, d.turn),
            firstLegMaxCurl: try value(.firstLegMaxCurl, d.firstLegMaxCurl),
            secondLegMaxCurl: try value(.secondLegMaxCurl, d.secondLegMaxCurl),
            minimumSharpness: try value(.minimumSharpness, d.minimumSharpness),
            firstLegMaxTurn: try value(.firstLegMaxTurn, d.firstLegMaxTurn),
            secondLegMaxTurn: try value(.secondLegMaxTurn, d.secondLegMaxTurn),
            fireRatio: try value(.fireRatio, d.fireRatio), steepFireRatio: try value(.steepFireRatio, d.steepFireRatio),
            steepAngle: try value(.steepAngle, d.steepAngle),
            steepFirstAngle: try value(.steepFirstAngle, d.steepFirstAngle),
            compareHeights: try value(.compareHeights, d.compareHeights),
            earlyFireFactor: try value(.earlyFireFactor, d.earlyFireFactor),
            earlyFireSpeed: try value(.earlyFireSpeed, d.earlyFireSpeed),
            minimumDuration: try value(.minimumDuration, d.minimumDuration),
            minimumFirstLegDuration: try value(.minimumFirstLegDuration, d.minimumFirstLegDuration),
            squareCornerTolerance: try value(.squareCornerTolerance, d.squareCornerTolerance))
    }
}
