import Dispatch
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

// The main thread waits on a semaphore instead of running an async top level: under an async main, libdispatch
// parks the main thread in `sigsuspend`, and Valgrind 3.19 (Debian 12) then dies at the first thread the
// concurrency runtime starts, which would rule out `valgrind --tool=callgrind` (see Benchmarks.md). Nothing in
// stroke-bench runs on the main actor.
nonisolated(unsafe) var status: Int32 = 0
let finished = DispatchSemaphore(value: 0)
let arguments = Array(CommandLine.arguments.dropFirst())
Task.detached {
    status = await BenchCommand.main(arguments)
    finished.signal()
}
finished.wait()
exit(status)
