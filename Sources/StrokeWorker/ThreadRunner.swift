import Foundation

/// Runs blocking work (ZeroMQ receive and poll loops) on a dedicated thread, never on Swift's cooperative
/// pool, and lets async code await its end.
public enum ThreadRunner {
    /// Runs `body` on a new thread named `name` and returns its result (or throws) when it finishes.
    public static func run<T: Sendable>(name: String, _ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            let thread = Thread {
                continuation.resume(with: Result { try body() })
            }
            thread.name = name
            thread.stackSize = 1 << 22
            thread.start()
        }
    }
}
