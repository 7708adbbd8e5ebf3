import Foundation
import StrokeWorker
import ZeroMQ

/// `stroke-worker` and `stroke-worker proxy`.
enum WorkerCommand {
    static func main(_ arguments: [String]) async -> Int32 {
        let environment = ProcessInfo.processInfo.environment
        // A log collector that goes away must not take the worker (or proxy) with it.
        SignalHandling.ignoreBrokenPipes()
        if arguments.first == "proxy" { return await ProxyCommand.main(Array(arguments.dropFirst()), environment) }
        if arguments.contains("--help") || arguments.contains("-h") {
            print(WorkerConfiguration.help)
            return 0
        }
        if arguments.contains("--version") {
            let zmq = ZMQContext.version
            print("stroke-worker 1.0.0 (wire protocol v1, libzmq \(zmq.major).\(zmq.minor).\(zmq.patch))")
            return 0
        }
        // Kept for the errors after the start: a bind that failed is said with the option that names it.
        var parsed: WorkerConfiguration?
        do {
            let configuration = try WorkerConfiguration(arguments: arguments, environment: environment)
            parsed = configuration
            let worker = try Worker(configuration: configuration)
            let signals = SignalHandling.onTermination { _ in worker.shutdown() }
            let reload = SignalHandling.onReload { worker.reload() }
            defer {
                signals.forEach { $0.cancel() }
                reload.cancel()
            }
            try await worker.run()
            return 0
        } catch let failure as CommandLineArguments.Failure {
            LogOutput.write("stroke-worker: \(failure)\nSee stroke-worker --help.\n")
            return 2
        } catch {
            let named = parsed?.bindFailure(error)
            LogOutput.write("stroke-worker: \(named ?? "\(error)")\n")
            return 1
        }
    }
}
