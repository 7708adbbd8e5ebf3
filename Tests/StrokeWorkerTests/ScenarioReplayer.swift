import Foundation
import StrokeWorker

/// Replays `Protocol/vectors/scenarios.json` and compares the events with the expected ones.
enum ScenarioReplayer {
    static let vectorsDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../Protocol/vectors").standardized

    static func scenarios() throws -> [[String: Any]] {
        let data = try Data(contentsOf: vectorsDirectory.appendingPathComponent("scenarios.json"))
        return (try JSONSerialization.jsonObject(with: data) as! [String: Any])["scenarios"] as! [[String: Any]]
    }

    /// The frames of one vector message.
    static func frames(_ message: [String: Any]) throws -> [[UInt8]] {
        if let frames = message["frames"] as? [String] { return frames.map { Array($0.utf8) } }
        let topic = Array((message["topic"] as! String).utf8)
        if let json = message["json"] {
            return [topic, Array(try JSONSerialization.data(withJSONObject: json, options: [.sortedKeys]))]
        }
        if let text = message["text"] as? String { return [topic, Array(text.utf8)] }
        let hex = message["hex"] as! String
        var bytes = [UInt8]()
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            bytes.append(UInt8(hex[index..<next], radix: 16)!)
            index = next
        }
        return [topic, bytes]
    }

    /// Differences between actual events (topic, parsed payload) and the expected ones; empty when they agree.
    static func compare(actual: [(topic: String, payload: [String: Any])], expected: [[String: Any]]) -> [String] {
        var problems = [String]()
        if actual.count != expected.count {
            problems.append("expected \(expected.count) events, got \(actual.count): \(actual.map { $0.payload })")
        }
        for (index, (event, wanted)) in zip(actual, expected).enumerated() {
            for (key, value) in wanted {
                if key == "topic" {
                    if event.topic != value as! String {
                        problems.append("event \(index): topic \(event.topic) ≠ \(value)")
                    }
                    continue
                }
                let got = event.payload[key]
                if key == "event", value as? String == "@result" {
                    if !["match", "nomatch"].contains(got as? String) {
                        problems.append("event \(index): not a result")
                    }
                    continue
                }
                if !same(got, value) {
                    problems.append("event \(index): \(key) = \(String(describing: got)) ≠ \(value)")
                }
            }
        }
        return problems
    }

    static func same(_ a: Any?, _ b: Any) -> Bool {
        if b is NSNull { return a == nil || a is NSNull }
        if let a = a as? NSNumber, let b = b as? NSNumber { return a.doubleValue == b.doubleValue }
        if let a = a as? String, let b = b as? String { return a == b }
        if let a = a as? [Any], let b = b as? [Any] {
            return a.count == b.count && zip(a, b).allSatisfy { same($0, $1) }
        }
        if let a = a as? [String: Any], let b = b as? [String: Any] {
            // The fields a vector names; others may come along.
            return b.allSatisfy { same(a[$0.key], $0.value) }
        }
        return false
    }
}
