import Foundation
import StrokeProtocol
import StrokeRecognition
import ZeroMQ

/// Throughput through libzmq proxies: the proxy alone, then 1, 2 and 3 sharded workers behind an input and
/// a results proxy, next to one worker without proxies.
struct ClusterBenchmark {
    struct Row: Codable, Sendable {
        /// `proxy-only`, `direct` (one worker, no proxy) or `proxied`.
        var setup: String
        var workers: Int
        var messagesPerSecond: Double
        var pointsPerSecond: Double
    }

    let worker: String
    let myself: String
    let context: ZMQContext

    func run(traffic: Traffic) async throws -> [Row] {
        var rows = [Row]()
        let perMessage = Double(traffic.pointCount) / Double(traffic.count)
        func row(_ setup: String, _ workers: Int, _ rate: Double) -> Row {
            Row(setup: setup, workers: workers, messagesPerSecond: rate, pointsPerSecond: rate * perMessage)
        }
        BenchCommand.log("cluster: proxy alone")
        rows.append(row("proxy-only", 0, try await proxyOnly(traffic)))
        rows.append(row("direct", 1, try await direct(traffic)))
        for workers in 1...3 {
            BenchCommand.log("cluster: \(String(counting: workers, "worker")) behind proxies")
            rows.append(row("proxied", workers, try await proxied(traffic, workers: workers)))
        }
        return rows
    }

    private func proxy() throws -> (ChildProcess, frontend: String, backend: String) {
        let process = try ChildProcess(
            worker,
            ["proxy", "--frontend", "bind:tcp://127.0.0.1:*", "--backend", "bind:tcp://127.0.0.1:*", "--no-drop"])
        let line = try process.waitForLine(containing: "proxy listening")
        func field(_ name: String) throws -> String {
            guard let range = line.range(of: "\(name)=") else { throw BenchError("no \(name) in \(line)") }
            return String(line[range.upperBound...].prefix { $0 != " " && $0 != "\"" })
        }
        return (process, try field("frontend"), try field("backend"))
    }

    /// Producer → input proxy → a raw sink that only counts.
    private func proxyOnly(_ traffic: Traffic) async throws -> Double {
        let (proxy, frontend, backend) = try proxy()
        defer { _ = proxy.terminate() }
        let sink = try ChildProcess(myself, ["raw-sink", "--connect", backend, "--count", "\(traffic.count)"])
        _ = try sink.waitForLine(containing: "listening")
        let context = self.context
        let started = try await onThread {
            let producer = try BenchProducer(context: context, endpoint: frontend)
            return try producer.sendAll(traffic)
        }
        let report = try JSONSerialization.jsonObject(with: Data(sink.output().utf8)) as! [String: Any]
        guard report["count"] as! Int == traffic.count else { throw BenchError("proxy sink lost messages") }
        return Double(traffic.count) / (Double((report["last"] as! NSNumber).uint64Value - started) / 1e9)
    }

    /// One worker bound directly, no proxy.
    private func direct(_ traffic: Traffic) async throws -> Double {
        let process = try ChildProcess(
            worker, ["--input", "tcp://127.0.0.1:*", "--output", "tcp://127.0.0.1:*", "--stats-interval", "0"])
        defer { _ = process.terminate() }
        let (input, output) = try process.workerEndpoints()
        return try await measure(traffic, input: input, output: output)
    }

    private func proxied(_ traffic: Traffic, workers count: Int) async throws -> Double {
        let (inputProxy, producers, workersIn) = try proxy()
        let (resultsProxy, workersOut, consumers) = try proxy()
        var workers = [ChildProcess]()
        defer {
            for process in workers { _ = process.terminate() }
            _ = inputProxy.terminate()
            _ = resultsProxy.terminate()
        }
        for index in 0..<count {
            let process = try ChildProcess(
                worker,
                [
                    "--input", "connect:\(workersIn)", "--output", "connect:\(workersOut)", "--shard",
                    "\(index)/\(count)", "--stats-interval", "0",
                ])
            _ = try process.workerEndpoints()
            workers.append(process)
        }
        return try await measure(traffic, input: producers, output: consumers)
    }

    private func measure(_ traffic: Traffic, input: String, output: String) async throws -> Double {
        let prefix = String(decoding: traffic.topics[0].dropFirst(4).prefix { $0 != UInt8(ascii: "-") }, as: UTF8.self)
        return try await WorkerBenchmarks.resultRate(
            traffic, input: input, output: output, prefix: prefix, context: context
        ).rate
    }
}

extension BenchProducer {
    /// Waits until the subscriptions that reached this producer cover all 4,096 shard buckets (every worker of a
    /// sharded cluster is subscribed).
    func waitForAllBuckets() throws {
        var coverage = ShardKey.Coverage()
        for frame in subscriptions { coverage.add(subscriptionFrame: frame) }
        while !coverage.isComplete {
            guard let frame = try socket.receiveMultipart()?.first else {
                throw BenchError("subscriptions cover \(coverage.count) of \(ShardKey.bucketCount) buckets")
            }
            subscriptions.append(frame)
            coverage.add(subscriptionFrame: frame)
        }
    }
}
