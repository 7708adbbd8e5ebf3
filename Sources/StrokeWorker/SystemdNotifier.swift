#if canImport(Glibc)
    import Glibc
#endif

/// The worker's side of systemd's notification protocol (`sd_notify(3)`): datagrams on the socket that a unit of
/// `Type=notify` passes in `NOTIFY_SOCKET`, saying that the service is ready, reloading or stopping, and pinging
/// the watchdog (`WatchdogSec=`) while the lanes receive, so that systemd restarts a worker that hangs.
///
/// Written here from the protocol's documentation; libsystemd is not needed.
public struct SystemdNotifier: Sendable, Equatable {
    /// The socket's path; a leading `@` names a socket in the abstract namespace.
    public var socketPath: String
    /// How often systemd expects a ping at the latest (`WATCHDOG_USEC`); `nil` when the unit has no watchdog.
    public var watchdogInterval: Duration?

    /// A notifier for the socket at `socketPath`.
    public init(socketPath: String, watchdogInterval: Duration? = nil) {
        self.socketPath = socketPath
        self.watchdogInterval = watchdogInterval
    }

    /// The notifier that the environment describes, or `nil` outside a unit of `Type=notify`.
    ///
    /// `NOTIFY_SOCKET` names the socket. `WATCHDOG_USEC` gives the watchdog's interval when `WATCHDOG_PID` is
    /// unset or names this process (a child started by the worker must not ping for it); a value that is not a
    /// positive number of microseconds means no watchdog, as in `sd_watchdog_enabled(3)`.
    public static func fromEnvironment(_ environment: [String: String], processID: Int32 = getpid())
        -> SystemdNotifier?
    {
        guard let path = environment["NOTIFY_SOCKET"], path.hasPrefix("/") || path.hasPrefix("@") else { return nil }
        var interval: Duration?
        if let text = environment["WATCHDOG_USEC"], let microseconds = Int64(text), microseconds > 0,
            environment["WATCHDOG_PID"].map({ Int32($0) == processID }) ?? true
        {
            interval = .microseconds(microseconds)
        }
        return SystemdNotifier(socketPath: path, watchdogInterval: interval)
    }

    // MARK: - Notifying

    /// Sends `state`, newline-separated `KEY=value` assignments such as `READY=1`; false if it could not be sent.
    @discardableResult
    public func notify(_ state: String) -> Bool {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var path = Array(socketPath.utf8)
        if path.first == UInt8(ascii: "@") { path[0] = 0 }  // abstract: a leading NUL, and no terminating one
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard path.count < capacity else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: path) }
        let length = socklen_t(MemoryLayout<sockaddr_un>.offset(of: \.sun_path)! + path.count)
        let descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        let message = Array(state.utf8)
        let sent = withUnsafePointer(to: &address) { target in
            target.withMemoryRebound(to: sockaddr.self, capacity: 1) { target in
                message.withUnsafeBytes {
                    sendto(descriptor, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT | MSG_NOSIGNAL), target, length)
                }
            }
        }
        return sent == message.count
    }

    /// The `RELOADING=1` message, with the monotonic time that `Type=notify-reload` units need.
    public static func reloadingState() -> String {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return "RELOADING=1\nMONOTONIC_USEC=\(Int64(now.tv_sec) * 1_000_000 + Int64(now.tv_nsec) / 1000)"
    }
}
