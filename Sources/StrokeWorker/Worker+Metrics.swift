import Dispatch

extension Worker {
    // MARK: - Metrics endpoint

    /// The answer of the `--metrics` endpoint to `GET path`.
    func httpResponse(_ path: String) -> MetricsServer.Response {
        switch path {
        case "/metrics":
            return MetricsServer.Response(
                status: "200 OK", contentType: "text/plain; version=0.0.4; charset=utf-8",
                body: metrics.prometheusText(
                    labels: [("shard", "\(configuration.shard.index)/\(configuration.shard.count)")]))
        case "/healthz":
            let beat = control.heartbeat.load(ordering: .relaxed)
            let age = Double(DispatchTime.now().uptimeNanoseconds &- beat) / 1e9
            guard isReady, !control.isStopping, beat > 0, age < 5 else {
                return MetricsServer.Response(status: "503 Service Unavailable", body: "not receiving\n")
            }
            return MetricsServer.Response(status: "200 OK", body: "ok\n")
        case "/":
            return MetricsServer.Response(status: "200 OK", body: "stroke-worker: /metrics, /healthz\n")
        default:
            return MetricsServer.Response(status: "404 Not Found", body: "no \(path); try /metrics or /healthz\n")
        }
    }
}
