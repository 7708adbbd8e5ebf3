import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

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

    /// Runs `body` on a new thread named `name` that the kernel runs only when the cores have nothing else to do
    /// (Linux's `SCHED_IDLE`; elsewhere, or where refused, at the usual priority), and waits for its result.
    ///
    /// For background work that must never take a core from a lane, such as writing a checkpoint. The thread is
    /// new each time because an unprivileged thread cannot take its priority back (`RLIMIT_NICE`), and the calling
    /// thread keeps its own, so that it may hold locks a lane takes without making the lane wait on idle time.
    public static func runWhenIdle<T: Sendable>(name: String, _ body: @escaping @Sendable () -> T) -> T {
        let result = Mutex<T?>(nil)
        let done = DispatchSemaphore(value: 0)
        start(name: name) {
            #if canImport(Glibc)
                var parameters = sched_param()
                // SCHED_IDLE from <sched.h>, which Glibc's module leaves out (it needs _GNU_SOURCE).
                _ = sched_setscheduler(0, 5, &parameters)
            #endif
            let value = body()
            result.withLock { $0 = value }
            done.signal()
        }
        done.wait()
        return result.withLock { $0.take()! }
    }

    /// Gives the calling thread a name that `top -H`, `ps -L` and `/proc/…/task/…/comm` show. The kernel keeps
    /// 15 bytes: longer names are cut. (Foundation names the OS thread only from the thread itself.)
    public static func nameCurrentThread(_ name: String) {
        Thread.current.name = String(decoding: Array(name.utf8.prefix(15)), as: UTF8.self)
    }
}
