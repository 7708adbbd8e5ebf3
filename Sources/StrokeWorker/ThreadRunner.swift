import Foundation

/// Runs blocking work (ZeroMQ receive and poll loops) on a dedicated thread, never on Swift's cooperative
/// pool, and lets async code await its end.
enum ThreadRunner {
    /// Runs `body` on a new thread named `name` and returns (or throws) when it finishes.
    static func run(name: String, _ body: @escaping @Sendable () throws -> Void) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let thread = Thread {
                do {
                    try body()
                    continuation.resume()
                } catch {
                    continuation.resume(throwing: error)
                }
            }
            thread.name = name
            thread.stackSize = 1 << 22
            thread.start()
        }
    }
}
