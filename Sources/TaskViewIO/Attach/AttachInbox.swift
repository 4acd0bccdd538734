import Dispatch
import Synchronization
import TaskGraph
import TaskViewCore

#if canImport(Glibc)
    import Glibc
#endif

/// What the connection threads hand to the main thread: stream items per program, and the
/// end of each connection. A pipe wakes a waiting main thread (headless attach) once per
/// batch, never per item.
///
/// Bounded both ways: the main thread takes at most a tick's worth at a time (`drain(limit:)`),
/// so a key waits for one bounded batch, not for everything a fast program sent; and a
/// connection thread waits while `maxQueued` events are queued, so it stops reading its
/// socket and the program's server resyncs this viewer instead of the viewer's memory growing.
final class AttachInbox: Sendable {
    enum Message: Sendable {
        case item(program: Int, StreamItem)
        /// The connection ended; `error` when the stream broke (nil: closed by the peer).
        case closed(program: Int, error: String?)

        /// What taking it costs, in events (a snapshot: its nodes).
        var cost: Int {
            switch self {
            case .item(_, .events(let e)): max(1, e.count)
            case .item(_, .snapshot(let nodes, _, _)): max(1, nodes.count)
            default: 1
            }
        }
    }

    /// Events queued at most before a connection thread waits (a few ticks' worth).
    static let maxQueued = 1 << 15

    private struct Queue {
        /// `messages[head...]` wait. A taken one is set to nil at once (its events are freed
        /// while the main thread lags: a lagging viewer kept thousands of taken reads, tens of
        /// MiB); the nils before `head` are removed now and then.
        var messages: [Message?] = []
        var head = 0
        var cost = 0
        var isEmpty: Bool { head == messages.count }
    }

    private let queue = Mutex<Queue>(Queue())
    /// Signalled when a drain made room for a waiting connection thread.
    private let room = DispatchSemaphore(value: 0)
    private let wake = WakePipe()
    private var wakeRead: Int32 { wake.read }
    private var wakeWrite: Int32 { wake.write }

    init() {}

    /// Queues `messages`; then, while more than `maxQueued` events wait and `stopped` is
    /// false, waits for the main thread to take some (by default it does not wait: the
    /// connection's last message must never wait for a main thread that is stopping it).
    func post(_ messages: [Message], stopped: () -> Bool = { true }) {
        guard !messages.isEmpty else { return }
        let cost = messages.reduce(0) { $0 + $1.cost }
        let (wasEmpty, full) = queue.withLock { q in
            let empty = q.isEmpty
            q.messages.append(contentsOf: messages.lazy.map { $0 })
            q.cost += cost
            return (empty, q.cost > Self.maxQueued)
        }
        if wasEmpty { poke() }
        guard full else { return }
        while !stopped() && queue.withLock({ $0.cost > Self.maxQueued }) {
            _ = room.wait(timeout: .now() + .milliseconds(50))
        }
    }

    private func poke() {
        guard wakeWrite >= 0 else { return }
        var b: UInt8 = 1
        _ = write(wakeWrite, &b, 1)
    }

    /// Messages the queue still holds (tests: a taken one is not among them).
    var messagesHeld: Int { queue.withLock { q in q.messages.reduce(0) { $0 + ($1 == nil ? 0 : 1) } } }

    /// Readable while messages wait (nil when no pipe could be made).
    var wakeDescriptor: Int32? { wakeRead >= 0 ? wakeRead : nil }

    /// Takes the oldest messages, up to `limit` events (at least one message); what is left
    /// keeps the wake pipe readable.
    func drain(limit: Int = .max) -> [Message] {
        if wakeRead >= 0 {
            var buf = [UInt8](repeating: 0, count: 64)
            while read(wakeRead, &buf, buf.count) > 0 {}
        }
        let (out, left, wasFull) = queue.withLock { q -> ([Message], Bool, Bool) in
            let wasFull = q.cost > Self.maxQueued
            var end = q.head
            var taken = 0
            var out: [Message] = []
            while end < q.messages.count, let next = q.messages[end], end == q.head || taken + next.cost <= limit {
                taken += next.cost
                out.append(next)
                q.messages[end] = nil
                end += 1
            }
            q.cost -= taken
            q.head = end
            if q.isEmpty {
                q.messages.removeAll(keepingCapacity: true)
                q.head = 0
            } else if q.head > 4096 && q.head * 2 > q.messages.count {
                q.messages.removeFirst(q.head)
                q.head = 0
            }
            return (out, !q.isEmpty, wasFull)
        }
        if left { poke() }
        if wasFull { room.signal() }
        return out
    }

    /// Waits until something is posted, a signal arrives, or `seconds` pass.
    func wait(seconds: Double) {
        guard wakeRead >= 0 else {
            usleep(UInt32(min(seconds, 1) * 1e6))
            return
        }
        if !queue.withLock({ $0.isEmpty }) { return }
        var p = pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)
        _ = poll(&p, 1, Int32(max(0, min(seconds, 60)) * 1000))
    }
}
