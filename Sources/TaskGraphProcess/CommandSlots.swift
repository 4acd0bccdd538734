import Synchronization

/// At most `limit` commands running at once across every command made with these slots,
/// as `make -j N` limits its recipes. A command that
/// waits for a slot is executing, with progress info `queued` (cleared when it starts); it
/// starts in the order it began waiting. Cancelling a queued command takes it out of the queue: it never runs.
/// A command holds its slot until its process group is empty: daemons it left behind (which
/// left the group) are ended without holding one.
public final class CommandSlots: Sendable {
    /// How many commands may run at once (at least 1).
    public let limit: Int

    /// The progress info of a command waiting for a slot; when it gets one, it reports
    /// progress 0 without info (it starts then).
    package static let queuedInfo = "queued"

    private struct State {
        var running = 0
        var queue: [(token: Int, go: CheckedContinuation<Bool, Never>)] = []
        var nextToken = 0
        /// Tokens cancelled before they queued.
        var cancelled: Set<Int> = []
    }

    private let state = Mutex(State())

    /// Slots for `limit` commands at once (values below 1 count as 1).
    public init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// Commands running now (holding a slot).
    public var running: Int { state.withLock { $0.running } }

    /// A token naming one command's wait (for `cancel`).
    func token() -> Int {
        state.withLock { s in
            defer { s.nextToken += 1 }
            return s.nextToken
        }
    }

    /// Takes a slot, waiting in line when none is free (`queued` is called first, once).
    /// False: the wait was cancelled (`cancel(token)`); no slot is held then.
    func acquire(_ token: Int, queued: () -> Void) async -> Bool {
        let now: Bool? = state.withLock { s in
            if s.cancelled.remove(token) != nil { return false }
            guard s.running < limit else { return nil }
            s.running += 1
            return true
        }
        if let now { return now }
        queued()
        return await withCheckedContinuation { c in
            let resumeNow: Bool? = state.withLock { s in
                if s.cancelled.remove(token) != nil { return false }
                if s.running < limit {
                    s.running += 1
                    return true
                }
                s.queue.append((token, c))
                return nil
            }
            if let resumeNow { c.resume(returning: resumeNow) }
        }
    }

    /// Gives a slot back: the first command in line gets it.
    func release() {
        let next = state.withLock { s -> CheckedContinuation<Bool, Never>? in
            guard !s.queue.isEmpty else {
                s.running -= 1
                return nil
            }
            return s.queue.removeFirst().go // the slot passes on: `running` stays
        }
        next?.resume(returning: true)
    }

    /// Ends the wait of `token` (it gets no slot); a token not waiting yet is refused when
    /// it comes. A token that holds a slot is not affected.
    func cancel(_ token: Int) {
        let waiting = state.withLock { s -> CheckedContinuation<Bool, Never>? in
            if let i = s.queue.firstIndex(where: { $0.token == token }) { return s.queue.remove(at: i).go }
            s.cancelled.insert(token)
            return nil
        }
        waiting?.resume(returning: false)
    }

    /// Forgets a token that got its slot or finished without waiting (so `cancel` after
    /// the fact leaves nothing behind).
    func forget(_ token: Int) {
        _ = state.withLock { $0.cancelled.remove(token) }
    }
}
