import Synchronization
import TaskGraph
import TaskViewCore

#if canImport(Glibc)
    import Glibc
#endif

/// One viewer connection to a serving program: a thread reads the stream into the inbox;
/// the main thread sends commands. `stop()` wakes and joins the thread, so nothing keeps
/// taskview alive after quitting.
final class AttachConnection: @unchecked Sendable {
    // @unchecked: `fd` and `program` are immutable; `thread` is set once by `start` and
    // read by `stop`, both on the main thread.
    let fd: Int32
    let program: Int
    let path: String
    private var thread: pthread_t?
    private let stopped = Atomic<Bool>(false)

    init(fd: Int32, program: Int, path: String) {
        self.fd = fd
        self.program = program
        self.path = path
    }

    /// Starts the reader thread.
    func start(inbox: AttachInbox) {
        let box = Unmanaged.passRetained(ThreadBody { [self] in self.readLoop(inbox) })
        var t = pthread_t()
        if pthread_create(
            &t, nil,
            { raw in
                let body = Unmanaged<ThreadBody>.fromOpaque(raw!).takeRetainedValue()
                body.run()
                return nil
            }, box.toOpaque()) == 0
        {
            thread = t
        } else {
            box.release()
            inbox.post([.closed(program: program, error: "cannot start a reader thread")])
        }
    }

    /// Asks for the program's own CPU and memory (`{"cmd":"usage"}`); false when the
    /// connection is gone.
    func requestUsage() -> Bool {
        UnixSocket.send(fd, "{\"cmd\":\"usage\"}\n")
    }

    /// Sends `{"cmd":"cancel","id":N}`; false when the connection is gone.
    func sendCancel(remote id: Int) -> Bool {
        UnixSocket.send(fd, "{\"cmd\":\"cancel\",\"id\":\(id)}\n")
    }

    /// Ends the connection and joins the reader thread.
    func stop() {
        guard !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        shutdown(fd, Int32(SHUT_RDWR))
        if let thread { pthread_join(thread, nil) }
        close(fd)
    }

    private func readLoop(_ inbox: AttachInbox) {
        var stream = LogStream(name: path)
        let size = 1 << 16
        let buf = UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: 8)
        defer { buf.deallocate() }
        while true {
            let n = read(fd, buf.baseAddress, size)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 {
                if stopped.load(ordering: .acquiring) { return }
                let error: String? =
                    n < 0
                    ? String(cString: strerror(errno))
                    : stream.partialBytes > 0 && !stream.sawEnd ? "the stream ended inside a line" : nil
                inbox.post([.closed(program: program, error: stream.sawEnd ? nil : error)])
                return
            }
            do {
                let items = try stream.feed(UnsafeRawBufferPointer(rebasing: buf[0..<n]))
                inbox.post(items.map { .item(program: program, $0) }) { stopped.load(ordering: .acquiring) }
            } catch {
                inbox.post([.closed(program: program, error: "bad stream: \(error)")])
                shutdown(fd, Int32(SHUT_RDWR))
                return
            }
        }
    }
}

/// A closure carried through `pthread_create`'s context pointer.
private final class ThreadBody: Sendable {
    let run: @Sendable () -> Void
    init(_ run: @escaping @Sendable () -> Void) { self.run = run }
}
