import Foundation
import Synchronization

/// A serial executor that runs every job on one thread of its own, for an actor that owns a ZeroMQ socket: the
/// socket then has one owning thread, and a call that blocks in libzmq holds that thread, never one of Swift's
/// cooperative pool.
///
/// The thread starts with the executor. `finish()` ends it once the jobs queued before the call have run; the
/// owning actor calls it from its isolated `deinit`, after which nothing can queue a job on it.
final class ThreadExecutor: SerialExecutor {
    private struct Queue {
        var jobs: [UnownedJob] = []
        /// The next job to run: jobs are taken from the front without moving the rest.
        var head = 0
        var finishing = false
    }

    private let queue = Mutex(Queue())
    /// Signalled once for each job queued and once by `finish()`.
    private let wake = DispatchSemaphore(value: 0)

    /// Starts the executor's thread, named `name`.
    init(name: String) {
        // The thread holds the executor until it ends.
        ThreadRunner.start(name: name) { [self] in run() }
    }

    /// Queues `job`, to run on the executor's thread after those queued before it.
    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.withLock { queue in
            precondition(!queue.finishing, "ThreadExecutor: a job was queued after finish()")
            queue.jobs.append(job)
        }
        wake.signal()
    }

    /// Ends the thread once the jobs queued so far have run.
    func finish() {
        queue.withLock { $0.finishing = true }
        wake.signal()
    }

    // MARK: - The thread

    /// Runs the jobs in order until `finish()` and the jobs before it.
    private func run() {
        while true {
            wake.wait()
            let next = queue.withLock { queue -> UnownedJob? in
                guard queue.head < queue.jobs.count else { return nil }
                let job = queue.jobs[queue.head]
                queue.head += 1
                if queue.head == queue.jobs.count || queue.head >= 1024 {
                    queue.jobs.removeFirst(queue.head)
                    queue.head = 0
                }
                return job
            }
            // Each signal stands for one job or for `finish()`: a wake-up with no job left is the last one.
            guard let next else { return }
            next.runSynchronously(on: asUnownedSerialExecutor())
        }
    }
}
