import Foundation
import Testing

@testable import StrokeRecognition

/// The checkmark detector's tuning read from a file, as `stroke-tool eval` and `stroke-worker` read it.
@Suite("Checkmark configuration files")
struct CheckmarkConfigurationTests {
    /// Writes `text` to a fresh temporary file and returns its path.
    static func file(_ text: String) throws -> String {
        let path = NSTemporaryDirectory() + "checkmark-\(UUID().uuidString).json"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// The error `CheckmarkConfiguration(contentsOf:)` throws for a file holding `text`.
    static func error(reading text: String) throws -> RecognitionError? {
        let path = try file(text)
        defer { try? FileManager.default.removeItem(atPath: path) }
        do {
            _ = try CheckmarkConfiguration(contentsOf: path)
            return nil
        } catch {
            return error
        }
    }

    @Test("fields left out keep their defaults; a full file round-trips")
    func partialAndRoundTrip() throws {
        let path = try Self.file(
            #"{"fireRatio": 1.3, "turn": [60, 150], "initialSpacing": 2.5, "minimumDuration": 40, "#
                + #""earlyFireFactor": 0.9, "compareHeights": false, "firstLegMaxTurn": 0.7, "secondLegMaxTurn": 0.25, "#
                + #""minimumFirstLegDuration": 45, "squareCornerTolerance": 0}"#)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let read = try CheckmarkConfiguration(contentsOf: path)
        var expected = CheckmarkConfiguration.default
        expected.fireRatio = 1.3
        expected.turn = 60...150
        expected.initialSpacing = 2.5
        expected.minimumDuration = 40
        expected.earlyFireFactor = 0.9
        expected.compareHeights = false
        expected.firstLegMaxTurn = 0.7
        expected.secondLegMaxTurn = 0.25
        expected.minimumFirstLegDuration = 45
        expected.squareCornerTolerance = 0
        #expect(read == expected)
        let empty = try Self.file("{}")
        defer { try? FileManager.default.removeItem(atPath: empty) }
        #expect(try CheckmarkConfiguration(contentsOf: empty) == .default)
        for configuration in [CheckmarkConfiguration.default, expected] {
            let data = try JSONEncoder().encode(configuration)
            #expect(try JSONDecoder().decode(CheckmarkConfiguration.self, from: data) == configuration)
        }
        try CheckmarkConfiguration.default.validate()
    }

    @Test(
        "out-of-range values, unknown fields and broken files are clear errors",
        arguments: [
            (#"{"minimumLegPoints": 0}"#, "minimumLegPoints 0"),
            (#"{"minimumDuration": -1}"#, "minimumDuration -1"),
            (#"{"minimumFirstLegDuration": -5}"#, "minimumFirstLegDuration -5"),
            (#"{"squareCornerTolerance": 50}"#, "squareCornerTolerance 50.0 is outside 0...45"),
            (#"{"squareCornerTolerance": -1}"#, "squareCornerTolerance -1.0"),
            (#"{"minimumLegPoints": -40}"#, "minimumLegPoints -40"),
            (#"{"capacity": 6}"#, "capacity 6 is outside 7..."),
            (#"{"initialSpacing": -1}"#, "initialSpacing -1.0"),
            (#"{"secondLegMaxCurl": 0.9}"#, "secondLegMaxCurl 0.9"),
            (#"{"steepFireRatio": 0}"#, "steepFireRatio 0.0"),
            (#"{"earlyFireFactor": -0.5}"#, "earlyFireFactor -0.5"),
            (#"{"earlyFireSpeed": 0}"#, "earlyFireSpeed 0.0"),
            (#"{"fireratio": 1.2}"#, "unknown field fireratio;"),
            (#"{"turns": 1, "fireratio": 1.2}"#, "unknown fields fireratio, turns;"),
            (#"{"turn": [165, 58]}"#, "not a checkmark configuration"),
            (#"{"capacity": "64"}"#, "not a checkmark configuration"),
            ("[1, 2]", "not a checkmark configuration"),
            ("not json", "not a checkmark configuration"),
            (#"{"capacity": "64"}"#, "capacity: expected a whole number, found a string"),
            (#"{"turn": 5}"#, "turn: expected a list, found a number"),
            ("{\n  \"capacity\": 64\n  \"turn\": [50, 135]\n}", "not valid JSON: expected '}' at line 3, column 3"),
            (#"{"fireRatio": 1.3,}"#, "not valid JSON: a comma after the last member at line 1, column 19"),
            (#"{"fireRatio": 1.3, "fireRatio": 1.1}"#, #"not valid JSON: the key "fireRatio" a second time"#),
            // A count with a fraction, or beyond an Int: Foundation said "top level: The given data was not valid
            // JSON" of valid JSON (session 80).
            (
                "{\n  \"fireRatio\": 1.3,\n  \"minimumLegPoints\": 2.5\n}",
                "the number 2.5 at line 3, column 23 (byte 44) does not fit its field"
            ),
            (#"{"capacity": 1e30}"#, "the number 1e30 at line 1, column 14 (byte 13) does not fit its field"),
        ])
    func invalid(text: String, expected: String) throws {
        let error = try #require(try Self.error(reading: text))
        #expect(error.code == .invalidConfiguration)
        #expect(error.message.contains(expected), "\(error.message)")
        #expect(error.message.hasPrefix(NSTemporaryDirectory()), "names the file")
    }

    @Test("a missing file is an I/O error naming it")
    func missing() {
        #expect {
            try CheckmarkConfiguration(contentsOf: "/nonexistent/checkmark.json")
        } throws: { error in
            (error as? RecognitionError)?.code == .io
                && (error as? RecognitionError)?.message.contains("/nonexistent/checkmark.json") == true
        }
    }

    @Test("a detector given an invalid tuning in code holds it within the valid ranges instead of reading astray")
    func clampedInCode() {
        var invalid = CheckmarkConfiguration.default
        invalid.minimumLegPoints = -40
        invalid.capacity = -5
        var valid = CheckmarkConfiguration.default
        valid.minimumLegPoints = 1
        valid.capacity = 3
        for log in Fixtures.logs {
            var a = CheckmarkDetector(configuration: invalid)
            var b = CheckmarkDetector(configuration: valid)
            #expect(a.add(contentsOf: log.points) == b.add(contentsOf: log.points))
        }
    }

    @Test("validation catches values set in code, which never pass through a file")
    func validateInCode() {
        var configuration = CheckmarkConfiguration.default
        configuration.firstLegDirection = -Double.infinity...120
        #expect(throws: RecognitionError.self) { try configuration.validate() }
        configuration = .default
        configuration.minimumSharpness = .nan
        #expect(throws: RecognitionError.self) { try configuration.validate() }
        configuration = .default
        configuration.secondLegMaxTurn = .infinity
        #expect(throws: RecognitionError.self) { try configuration.validate() }
        configuration = .default
        configuration.firstLegMaxTurn = -.nan
        #expect(throws: RecognitionError.self) { try configuration.validate() }
    }
}
