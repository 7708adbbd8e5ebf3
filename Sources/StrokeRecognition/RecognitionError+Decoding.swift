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
    /// wrong kind (`templates[3].points[0][1]: expected Double`), and for text that is not JSON at all the line,
    /// column and byte where it stops being JSON (`not valid JSON: expected ']' at line 12, column 5 (byte 311)`),
    /// which Foundation's decoder does not say.
    public static func describe(_ error: DecodingError, in data: Data) -> String {
        func path(_ context: DecodingError.Context) -> String {
            let parts = context.codingPath.map { key in key.intValue.map { "[\($0)]" } ?? ".\(key.stringValue)" }
            let joined = parts.joined()
            return joined.isEmpty ? "top level" : String(joined.drop { $0 == "." })
        }
        switch error {
        case .dataCorrupted(let context):
            if context.codingPath.isEmpty, let syntax = data.withUnsafeBytes({ JSONReader.syntaxError(in: $0) }) {
                return "not valid JSON: \(syntax)"
            }
            let underlying = context.underlyingError.map { " \($0)" } ?? ""
            return "\(path(context)): \(context.debugDescription)\(underlying)"
        case .keyNotFound(let key, let context):
            return "\(path(context)): missing field \"\(key.stringValue)\""
        case .typeMismatch(let type, let context):
            return "\(path(context)): expected \(type)"
        case .valueNotFound(let type, let context):
            return "\(path(context)): expected \(type), found null"
        @unknown default:
            return "\(error)"
        }
    }
}
