import Foundation
import StrokeProtocol

extension RecognitionError {
    /// Where `data`, the text of a file that people edit, stops being JSON of the strictness such a file needs
    /// (`JSONReader.documentError(in:)`: no comma after the last element, no key twice in one object), said for a
    /// message (`not valid JSON: the key "name" a second time in one object at line 3, column 5 (byte 40)`); nil
    /// where it is such JSON. Checked before `JSONDecoder` reads the file, which takes both without a word.
    public static func documentProblem(in data: Data) -> String? {
        data.withUnsafeBytes { JSONReader.documentError(in: $0) }.map { "not valid JSON: \($0)" }
    }

    /// What `JSONDecoder` found wrong in `data`, said where it is: the path of a field that is missing or of the
    /// wrong kind, in JSON's words (`templates[3].points[0][1]: expected a number, found a string`), and for text
    /// that is not JSON at all the line, column and byte where it stops being JSON (`not valid JSON: expected ']' at
    /// line 12, column 5 (byte 311)`), which Foundation's decoder does not say.
    public static func describe(_ error: DecodingError, in data: Data) -> String {
        func path(_ context: DecodingError.Context) -> String {
            let parts = context.codingPath.map { key in key.intValue.map { "[\($0)]" } ?? ".\(key.stringValue)" }
            let joined = parts.joined()
            return joined.isEmpty ? "top level" : String(joined.drop { $0 == "." })
        }
        switch error {
        case .dataCorrupted(let context):
            if let misfit = context.underlyingError as? MisfitNumber { return misfit.description }
            if context.codingPath.isEmpty, let syntax = data.withUnsafeBytes({ JSONReader.syntaxError(in: $0) }) {
                return "not valid JSON: \(syntax)"
            }
            let underlying = context.underlyingError.map { " \($0)" } ?? ""
            return "\(path(context)): \(context.debugDescription)\(underlying)"
        case .keyNotFound(let key, let context):
            return "\(path(context)): missing field \"\(key.stringValue)\""
        case .typeMismatch(let type, let context):
            let found = foundKind(context.debugDescription).map { ", found \($0)" } ?? ""
            return "\(path(context)): expected \(jsonKind(type))\(found)"
        case .valueNotFound(let type, let context):
            return "\(path(context)): expected \(jsonKind(type)), found null"
        @unknown default:
            return "\(error)"
        }
    }

    /// A Swift type that a field decodes to, said as the JSON that would fit it: `a number`, `a whole number`, `a
    /// string`, `a list`, `an object`, `true or false`; other types by their own names.
    static func jsonKind(_ type: Any.Type) -> String {
        switch type {
        case is Double.Type, is Float.Type: return "a number"
        case is Int.Type, is Int32.Type, is Int64.Type, is UInt.Type, is UInt32.Type, is UInt8.Type, is UInt16.Type,
            is Int16.Type, is Int8.Type, is UInt64.Type:
            return "a whole number"
        case is String.Type: return "a string"
        case is Bool.Type: return "true or false"
        default:
            let name = "\(type)"
            if name.hasPrefix("Array<") || name.hasPrefix("[") { return "a list" }
            if name.hasPrefix("Dictionary<") { return "an object" }
            return name
        }
    }

    /// What Foundation's decoder found in a field of the wrong kind, from its description (`Expected to decode Int
    /// but found a string instead.`), said as JSON: `a string`, `a number`, `a list`, `an object`, `true or
    /// false`; nil where the description does not say.
    static func foundKind(_ description: String) -> String? {
        guard let start = description.range(of: "but found "), let end = description.range(of: " instead") else {
            return nil
        }
        guard start.upperBound <= end.lowerBound else { return nil }
        var found = String(description[start.upperBound..<end.lowerBound])
        for article in ["a ", "an "] where found.hasPrefix(article) { found.removeFirst(article.count) }
        switch found {
        case "array": return "a list"
        case "dictionary": return "an object"
        case "string": return "a string"
        case "number": return "a number"
        case "bool": return "true or false"
        default: return nil
        }
    }

    // MARK: - A number that does not fit its field

    /// A number of a JSON document that does not fit the field it is in, where it is: what
    /// `decodeJSON(_:from:)` says in place of Foundation's "The given data was not valid JSON".
    public struct MisfitNumber: Error, CustomStringConvertible {
        /// The number as written.
        public var text: String
        /// Its byte offset, from 0.
        public var offset: Int
        /// Its line, from 1.
        public var line: Int
        /// Its column, from 1, counted in bytes.
        public var column: Int

        /// `the number 1.5 at line 3, column 17 (byte 40) does not fit its field: …`.
        public var description: String {
            "the number \(text) at line \(line), column \(column) (byte \(offset)) does not fit its field: a whole "
                + "number is wanted there (a count, a version), or one within the field's range"
        }
    }

    /// `JSONDecoder().decode(type, from: data)`, but where the decoder fails on a number that does not fit its
    /// field (`1.5` or `1e30` where an `Int` is wanted), for which it says only "The given data was not valid
    /// JSON" at the top level of text that is valid JSON, the error names that number and its place
    /// (`MisfitNumber`, as the `DecodingError`'s underlying error, which `describe(_:in:)` says).
    ///
    /// The number is found by decoding again with some of the document's numbers written as `0`, halving the
    /// suspects each time: about log₂ of the numbers' count decodes, and only after such a failure.
    public static func decodeJSON<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        do {
            return try JSONDecoder().decode(type, from: data)
        } catch let error as DecodingError where isMisfit(error, in: data) {
            let bytes = [UInt8](data)
            let numbers = bytes.withUnsafeBytes { JSONReader.numberRanges(in: $0) }
            /// Whether the document decodes past the misfit with the numbers of `zeroed` written as `0`.
            func passes(_ zeroed: ArraySlice<Range<Int>>) -> Bool {
                var edited = [UInt8]()
                edited.reserveCapacity(bytes.count)
                var next = 0
                for range in zeroed.sorted(by: { $0.lowerBound < $1.lowerBound }) {
                    edited += bytes[next..<range.lowerBound]
                    edited.append(UInt8(ascii: "0"))
                    next = range.upperBound
                }
                edited += bytes[next...]
                do {
                    _ = try JSONDecoder().decode(type, from: Data(edited))
                    return true
                } catch let failure as DecodingError {
                    return !isMisfit(failure, in: Data(edited))
                } catch {
                    return true
                }
            }
            // Invariant: with `kept` and `suspects` zeroed the misfit is gone, with `kept` alone it is not.
            var kept = ArraySlice<Range<Int>>()
            var suspects = numbers[...]
            guard !suspects.isEmpty, passes(suspects) else { throw error }
            while suspects.count > 1 {
                let half = suspects.prefix(suspects.count / 2)
                if passes(kept + half) {
                    suspects = half
                } else {
                    kept += half
                    suspects = suspects.dropFirst(half.count)
                }
            }
            let range = suspects.first!
            let (line, column) = bytes.withUnsafeBytes { JSONReader.position(of: range.lowerBound, in: $0) }
            let misfit = MisfitNumber(
                text: String(decoding: bytes[range], as: UTF8.self), offset: range.lowerBound, line: line,
                column: column)
            throw DecodingError.dataCorrupted(
                .init(codingPath: [], debugDescription: misfit.description, underlyingError: misfit))
        }
    }

    /// Whether `error` is the decoder's "not valid JSON" at the top level of `data` that is valid JSON: a number
    /// that did not fit its field.
    private static func isMisfit(_ error: DecodingError, in data: Data) -> Bool {
        guard case .dataCorrupted(let context) = error, context.codingPath.isEmpty,
            context.underlyingError == nil
        else { return false }
        return data.withUnsafeBytes { JSONReader.syntaxError(in: $0) } == nil
    }
}
