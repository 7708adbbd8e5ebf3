import Dispatch
import Foundation
import StrokeWorker

#if canImport(Glibc)
    import Glibc
#endif

// A child process inherits the signal mask of the thread that started it, and stroke-bench starts its raw peers
// (`raw-echo`, `raw-sink`) from a thread of the concurrency runtime, which blocks SIGINT and SIGTERM. An async top
// level unblocked them while it waited (libdispatch's `sigsuspend`); this one must do it itself, or a raw echo would
// ignore `terminate()` until its 60-second idle timeout.
var termination = sigset_t()
sigemptyset(&termination)
sigaddset(&termination, SIGINT)
sigaddset(&termination, SIGTERM)
pthread_sigmask(SIG_UNBLOCK, &termination, nil)

let arguments = Array(CommandLine.arguments.dropFirst())

// Stopped by SIGINT or SIGTERM (a terminal's Ctrl-C, `timeout`, a CI job's end), stroke-bench passes the signal on
// to the workers and raw peers it started, which would otherwise run on without a parent, and then ends by the same
// signal. A raw peer (`raw-sink`, `raw-echo`) starts no children and keeps the signal's default action.
let isRawPeer = ["raw-sink", "raw-echo"].contains(arguments.first ?? "")
let stopSignals =
    isRawPeer
    ? []
    : SignalHandling.onTermination { number in
        ChildProcess.stopAll()
        signal(number, SIG_DFL)
        kill(getpid(), number)
    }

// The main thread waits on a semaphore instead of running an async top level: under an async main, libdispatch
// parks the main thread in `sigsuspend`, and Valgrind 3.19 (Debian 12) then dies at the first thread the
// concurrency runtime starts, which would rule out `valgrind --tool=callgrind` (`make profile`, Benchmarks.md).
// Nothing in stroke-bench runs on the main actor.
nonisolated(unsafe) var status: Int32 = 0
let finished = DispatchSemaphore(value: 0)
Task.detached {
    status = await BenchCommand.main(arguments)
    finished.signal()
}
finished.wait()
exit(status)
