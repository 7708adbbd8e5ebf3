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
    /// 15 bytes: longer names are cut.
    ///
    /// Through the system, not Foundation's `Thread.name`: on Linux its setter names the thread only once the
    /// thread that called `start()` has stored the new thread's handle, and names nothing before that, so a new
    /// thread that named itself first kept the name of the thread that started it (a lane's recognition helper
    /// was called `lane-0`, and a lane the dispatch pool's name, in 3 of 40 starts).
    public static func nameCurrentThread(_ name: String) {
        let cut = String(decoding: Array(name.utf8.prefix(15)), as: UTF8.self)
        #if canImport(Glibc)
            // Glibc's module leaves out pthread_setname_np (it needs _GNU_SOURCE): found by name instead.
            typealias SetName = @convention(c) (pthread_t, UnsafePointer<CChar>) -> Int32
            if let symbol = dlsym(nil, "pthread_setname_np") {
                _ = unsafeBitCast(symbol, to: SetName.self)(pthread_self(), cut)
                return
            }
        #endif
        Thread.current.name = cut
    }
}
