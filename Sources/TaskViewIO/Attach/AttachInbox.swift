import Synchronization
import TaskGraph
import TaskViewCore

#if canImport(Glibc)
    import Glibc
#endif

/// What the connection threads hand to the main thread: stream items per program, and the
/// end of each connection. A pipe wakes a waiting main thread (headless attach) once per
/// batch, never per item.
final class AttachInbox: Sendable {
    enum Message: Sendable {
        case item(program: Int, StreamItem)
        /// The connection ended; `error` when the stream broke (nil: closed by the peer).
        case closed(program: Int, error: String?)
    }

    private let queue = Mutex<[Message]>([])
    private let wake = WakePipe()
    private var wakeRead: Int32 { wake.read }
    private var wakeWrite: Int32 { wake.write }

    init() {}

    func post(_ messages: [Message]) {
        guard !messages.isEmpty else { return }
        let wasEmpty = queue.withLock { q in
            let empty = q.isEmpty
            q.append(contentsOf: messages)
            return empty
        }
        if wasEmpty && wakeWrite >= 0 {
            var b: UInt8 = 1
            _ = write(wakeWrite, &b, 1)
        }
    }

    /// Readable while messages wait (nil when no pipe could be made).
    var wakeDescriptor: Int32? { wakeRead >= 0 ? wakeRead : nil }

    /// Takes everything posted so far.
    func drain() -> [Message] {
        let out = queue.withLock { q in
            let all = q
            q.removeAll(keepingCapacity: true)
            return all
        }
        if wakeRead >= 0 {
            var buf = [UInt8](repeating: 0, count: 64)
            while read(wakeRead, &buf, buf.count) > 0 {}
        }
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
