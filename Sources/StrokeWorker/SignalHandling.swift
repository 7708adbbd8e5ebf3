import Dispatch

#if canImport(Glibc)
    import Glibc
#endif

/// SIGINT and SIGTERM as a graceful-shutdown trigger.
public enum SignalHandling {
    /// Calls `handler` (on a dispatch queue) each time SIGINT or SIGTERM arrives; keep the returned sources alive.
    public static func onTermination(_ handler: @escaping @Sendable (Int32) -> Void) -> [any DispatchSourceSignal] {
        [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { handler(number) }
            source.resume()
            return source
        }
    }

    /// Calls `handler` (on a dispatch queue) each time SIGHUP arrives, instead of the default (ending the
    /// process); keep the returned source alive.
    public static func onReload(_ handler: @escaping @Sendable () -> Void) -> any DispatchSourceSignal {
        signal(SIGHUP, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: SIGHUP, queue: .global())
        source.setEventHandler { handler() }
        source.resume()
        return source
    }
}
