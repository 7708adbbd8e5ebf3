extension Worker {
    // MARK: - systemd (Type=notify)

    /// Tells systemd that the worker is ready, then pings its watchdog while the worker is live (`isLive`), until
    /// the lanes finish. A worker whose lanes hang stops pinging, and systemd restarts it after `WatchdogSec=`.
    func superviseWithSystemd(_ systemd: SystemdNotifier) async throws {
        guard isReady else { return }
        let inputs = endpoints.filter { $0.hasPrefix("input:") }.map { $0.dropFirst("input:".count) }
        systemd.notify("READY=1\nSTATUS=receiving on \(inputs.joined(separator: " "))")
        guard let interval = systemd.watchdogInterval else { return }
        // Half the interval, as sd_watchdog_enabled(3) advises; the stop flag is checked every 100 ms.
        let period = interval / 2
        var next = ContinuousClock.now
        while !control.lanesDone.load(ordering: .acquiring) {
            let now = ContinuousClock.now
            if now >= next {
                if isLive { systemd.notify("WATCHDOG=1") }
                next = now + period
            }
            try await Task.sleep(for: min(.milliseconds(100), next - now))
        }
    }
}
