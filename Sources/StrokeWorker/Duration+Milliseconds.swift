import Foundation

extension Duration {
    /// The duration in milliseconds with two decimals, for log fields (`"writeMilliseconds": "25.96"`).
    var millisecondsText: String {
        let (seconds, attoseconds) = components
        return String(format: "%.2f", Double(seconds) * 1000 + Double(attoseconds) / 1e15)
    }
}
