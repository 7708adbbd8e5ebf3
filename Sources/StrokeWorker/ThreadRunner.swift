import Foundation

/// Runs blocking work (ZeroMQ receive and poll loops) on a dedicated thread, never on Swift's cooperative
/// pool, and lets async code await its end.
public enum ThreadRunner {
    /// Runs `body` on a new thread named `name` and returns its result (or throws) when it finishes.
    public static func run<T: Sendable>(name: String, _ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            start(name: name) { continuation.resume(with: Result { try body() }) }
        }
    }

    /// Starts `body` on a new thread named `name` (4 MiB of stack) and returns at once.
    public static func start(name: String, _ body: @escaping @Sendable () -> Void) {
        let thread = Thread {
            nameCurrentThread(name)
            body()
        }
        thread.name = name
        thread.stackSize = 1 << 22
        thread.start()
    }

    /// Gives the calling thread a name that `top -H`, `ps -L` and `/proc/…/task/…/comm` show. The kernel keeps
    /// 15 bytes: longer names are cut. (Foundation names the OS thread only from the thread itself.)
    public static func nameCurrentThread(_ name: String) {
        Thread.current.name = String(decoding: Array(name.utf8.prefix(15)), as: UTF8.self)
    }
}
