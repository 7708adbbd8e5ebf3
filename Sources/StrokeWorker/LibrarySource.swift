import Synchronization

/// The worker's template libraries as they are now: compiled once at start, then replaced whole when their files
/// are read again (`Worker.reloadLibraries()`, on SIGHUP).
///
/// Every thread that recognizes (lanes, recognition helpers, publisher threads) holds its own copy
/// (`LibraryRegistry.independentCopy()`) and asks for a newer one each time it picks up work (`refresh`): one
/// atomic load while nothing changed, so nothing on the per-message path. A reload keeps the libraries' names and
/// order, so the library index a session or a stroke in flight holds means the same library before and after.
final class LibrarySource: Sendable {
    private let current: Mutex<(generation: Int, registry: LibraryRegistry)>
    private let latest = Atomic<Int>(0)

    /// The libraries at start.
    init(_ registry: LibraryRegistry) {
        current = Mutex((0, registry))
    }

    /// The libraries now.
    var registry: LibraryRegistry { current.withLock { $0.registry } }

    /// Replaces the libraries; threads take the new ones when they next call `refresh`.
    func replace(_ registry: LibraryRegistry) {
        current.withLock { state in
            state = (state.generation + 1, registry)
            latest.store(state.generation, ordering: .releasing)
        }
    }

    /// A copy of its own of the newest libraries for the calling thread, if they are newer than `generation`
    /// (which then becomes theirs); nil otherwise. Start a thread with `generation` -1 to get the first copy.
    func refresh(_ generation: inout Int) -> LibraryRegistry? {
        guard latest.load(ordering: .acquiring) != generation else { return nil }
        let (newest, registry) = current.withLock { ($0.generation, $0.registry) }
        generation = newest
        return registry.independentCopy()
    }
}
