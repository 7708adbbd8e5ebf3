import Dispatch
import StrokeProtocol
import ZeroMQ

/// A lane's recognition helper: a thread that recognizes, in order, the finished strokes a busy lane hands it
/// (`OffloadingSink`) and hands the encoded events back.
///
/// The lane keeps its sockets and its sessions; the helper owns nothing but its scratch space. Strokes come in
/// batches through an `EventPipe` and results go back through `RecognitionResults`, so the two threads meet
/// once per batch and per result, and the helper never waits for the lane.
final class RecognitionHelper: Sendable {
    /// Finished strokes, lane to helper.
    let jobs = EventPipe()
    /// Their events, helper to lane, in the same order.
    let results: RecognitionResults
    private let stopped = DispatchSemaphore(value: 0)
    /// The thread's name: `recognize-` and the lane's index.
    let name: String
    /// The libraries, of which the thread keeps a copy of its own.
    let libraries: LibrarySource
    /// Counts how the strokes it recognizes are answered.
    let metrics: WorkerMetrics

    /// Creates the helper of lane `lane` (not started).
    ///
    /// - Throws: `ZMQError` when the results' signal cannot be created.
    init(lane: Int, libraries: LibrarySource, metrics: WorkerMetrics) throws(ZMQError) {
        name = "recognize-\(lane)"
        self.libraries = libraries
        self.metrics = metrics
        results = try RecognitionResults()
    }

    /// Starts the thread.
    func start() {
        ThreadRunner.start(name: name) { self.run() }
    }

    /// Tells the thread that nothing more will come and waits until it has recognized everything handed over.
    func finish() {
        jobs.finish()
        stopped.wait()
    }

    private func run() {
        defer { stopped.signal() }
        var writer = JSONWriter()
        var tiltSamples: [TiltFeedback.Sample] = []
        var generation = -1
        var registry = libraries.refresh(&generation)!
        while true {
            jobs.waitForWork(milliseconds: Lane.pollMilliseconds)
            while true {
                let next = jobs.take()
                guard let batch = next.batch else {
                    if next.finished { return }
                    break
                }
                // The lane took reloaded libraries before it handed this batch over.
                if let fresh = libraries.refresh(&generation) { registry = fresh }
                batch.forEachEvent(
                    encodingRequestsWith: &writer, registry: registry, metrics: metrics, tiltSamples: &tiltSamples
                ) { topic, payload in results.append(topic: topic, payload: payload) }
                jobs.recycle(batch)
            }
        }
    }
}
