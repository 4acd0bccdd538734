/// The scopes of a graph whose derived progress ("N/M", `ScopeDriver`) changed while nobody
/// observed the graph, and was not recorded yet: a scope of many children would otherwise
/// record it twice a child (its info string, its node and the graph's record) for nobody.
/// It is recorded as soon as anybody can look: an observer attaches, a snapshot is taken,
/// the scope's progress is read, or the scope settles (then it leaves this list).
///
/// A scope joins the list once, with its stripe locked, on its first unrecorded change, and
/// leaves it when it settles: the list holds running scopes only (the graph keeps them
/// alive anyway). Its lock is taken inside stripe locks, never the other way round.
final class UnrecordedProgress: @unchecked Sendable { // guarded by `lock`
    private let lock = Lock()
    @exclusivity(unchecked) private var entries: [(owner: AnyGraphTask, driver: ScopeDriver)] = []

    /// Lists `owner`, whose `driver` holds a change not recorded yet (its stripe locked).
    func add(_ owner: AnyGraphTask, _ driver: ScopeDriver) {
        lock.withLock {
            driver.listIndex = entries.count
            entries.append((owner, driver))
        }
    }

    /// Takes the owner of `driver` off the list (its stripe locked).
    func remove(_ driver: ScopeDriver) {
        lock.withLock {
            let i = driver.listIndex
            let last = entries.removeLast()
            if i < entries.count {
                entries[i] = last
                last.driver.listIndex = i
            }
            driver.listIndex = -1
        }
    }

    /// How many scopes are listed.
    var count: Int { lock.withLock { entries.count } }

    /// Records every listed scope's pending progress and empties the list (every stripe
    /// locked: before a capture or an observer's first event).
    func recordAllLocked() {
        assertSomeLockHeld()
        lock.withLock {
            guard !entries.isEmpty else { return }
            for (owner, driver) in entries {
                driver.recordPendingLocked(owner: owner)
                driver.listed = false
                driver.listIndex = -1
            }
            entries.removeAll()
        }
    }
}
