import Dispatch

#if canImport(Glibc)
    import Glibc
#endif

/// SIGINT and SIGTERM as a graceful-shutdown trigger, SIGHUP as a reload, SIGPIPE ignored.
public enum SignalHandling {
    /// Calls `handler` (on a dispatch queue) each time SIGINT or SIGTERM arrives; keep the returned sources alive.
    public static func onTermination(_ handler: @escaping @Sendable (Int32) -> Void) -> [any DispatchSourceSignal] {
        [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { handler(number) }
            return registered(source)
        }
    }

    /// Resumes `source` and returns once libdispatch has registered it. `resume` registers it later, on
    /// libdispatch's own thread: until then the signal's action is the `SIG_IGN` set before, and a signal that
    /// arrives is lost. A SIGTERM sent as soon as a proxy on a busy machine had logged `proxy listening` was
    /// ignored in 8 of 40 starts, and the proxy ran on until killed. Waits at most a second.
    private static func registered(_ source: any DispatchSourceSignal) -> any DispatchSourceSignal {
        let done = DispatchSemaphore(value: 0)
        source.setRegistrationHandler { done.signal() }
        source.resume()
        _ = done.wait(timeout: .now() + 1)
        return source
    }

    /// Ignores SIGPIPE, so that a write to a pipe or socket whose reader has gone (a log collector that died) fails
    /// with EPIPE instead of ending the process, sessions and state file unwritten (`LogOutput`).
    public static func ignoreBrokenPipes() {
        signal(SIGPIPE, SIG_IGN)
    }

    /// Calls `handler` (on a dispatch queue) each time SIGHUP arrives, instead of the default (ending the
    /// process); keep the returned source alive.
    public static func onReload(_ handler: @escaping @Sendable () -> Void) -> any DispatchSourceSignal {
        signal(SIGHUP, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: SIGHUP, queue: .global())
        source.setEventHandler { handler() }
        return registered(source)
    }
}
