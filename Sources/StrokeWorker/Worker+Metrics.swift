import Dispatch

extension Worker {
    // MARK: - Liveness

    /// Whether the worker is ready, not stopping, and its first lane went round its receive loop in the last five
    /// seconds (it does at least once a second): `/healthz` and the systemd watchdog.
    var isLive: Bool {
        let beat = control.heartbeat.load(ordering: .relaxed)
        let age = Double(DispatchTime.now().uptimeNanoseconds &- beat) / 1e9
        return isReady && !control.isStopping && beat > 0 && age < 5
    }

    // MARK: - Metrics endpoint

    // `/healthz` says the lanes turn (liveness: restart a worker that fails it); `/readyz` says that too and that
    // every endpoint the worker connects to (its proxies) has a working connection (readiness: a worker that cannot
    // reach its proxies serves nobody, and a rolling update should wait for it).

    /// The answer of the `--metrics` endpoint to `GET path`.
    func httpResponse(_ path: String) -> MetricsServer.Response {
        .route(
            path, service: "stroke-worker", live: isLive, notLive: "not receiving",
            unconnected: { connections.unconnected },
            metrics: {
                metrics.prometheusText(labels: [("shard", "\(configuration.shard.index)/\(configuration.shard.count)")])
            })
    }
}
