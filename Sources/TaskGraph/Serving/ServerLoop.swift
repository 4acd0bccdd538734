import Dispatch

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The server thread: accepts viewers, writes their buffers, reads their commands. It is the
/// only thread that touches sockets, so no program thread ever waits on a viewer.
extension GraphServer {
    func startThread() {
        // The thread holds the server until `run()` returns.
        let thread = WriterThread(yieldsToProgram: true) { [self] in
            run()
            return false
        }
        if !thread.start() { finishedRunning() }
    }

    /// The loop: write what is buffered, then poll for the wake pipe, new viewers, their
    /// lines and writability. Ends after `stop()` once every viewer has its `end` (or after
    /// `finalFlushSeconds`).
    func run() {
        lock.withLock { serverThread = pthread_self() }
        var active: [ViewerConnection] = []
        var fds: [pollfd] = []
        var stopDeadline: Double?
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        var lastPump = 0.0
        var nextUsage = 0.0
        while true {
            var more = false
            let letGo = lock.withLock { () -> (any GraphObservation)? in
                // The next slice of events when every viewer has room for it, or after a
                // short wait (a stalled viewer overflows then, and stops counting): encoding
                // must not outrun what viewers take, nor stop for one that takes nothing.
                if hasRoomLocked() || monotonicNow() - lastPump >= GraphServer.pumpWaitSeconds {
                    more = pumpLocked(limit: GraphServer.pumpSlice)
                    lastPump = monotonicNow()
                } else {
                    more = true
                }
                return letGoIfNobodyReadsLocked()
            }
            letGo?.cancel()
            if !active.isEmpty, monotonicNow() >= nextUsage {
                sendProgramUsage()
                nextUsage = monotonicNow() + GraphServer.programUsageSeconds
            }
            for c in active { refill(c) }
            var gone: [ViewerConnection] = []
            for c in active {
                if c.hasUnsent && !writeSome(c) {
                    gone.append(c)
                    continue
                }
                // A connection being closed gets its buffered lines and its error line out
                // first, for at most `finalFlushSeconds` (a viewer that reads nothing).
                if c.closeAfterSending
                    && (monotonicNow() >= c.closeDeadline
                        || lock.withLock { !c.hasUnsent && c.pending.isEmpty })
                {
                    gone.append(c)
                }
            }
            for c in gone { remove(c, from: &active) }
            let stopping = lock.withLock { self.stopping }
            if stopping {
                let deadline = stopDeadline ?? (monotonicNow() + GraphServer.finalFlushSeconds)
                stopDeadline = deadline
                let drained = lock.withLock { active.allSatisfy { !$0.hasUnsent && $0.pending.isEmpty } }
                if drained || monotonicNow() >= deadline { break }
            }

            fds.removeAll(keepingCapacity: true)
            fds.append(pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0))
            fds.append(pollfd(fd: stopping ? -1 : listenFD, events: Int16(POLLIN), revents: 0))
            for c in active {
                var events: Int16 = stopping || c.readClosed || c.closeAfterSending ? 0 : Int16(POLLIN)
                if c.hasUnsent { events |= Int16(POLLOUT) }
                fds.append(pollfd(fd: c.fd, events: events, revents: 0))
            }
            // New events wake this thread through the pipe (the first event of a batch).
            let (ready, roomy) = lock.withLock { () -> (Bool, Bool) in
                (active.contains { !$0.hasUnsent && (!$0.pending.isEmpty || $0.overflowed) }, hasRoomLocked())
            }
            // Events still spooled: the next slice at once while every viewer has room, else
            // when one can take more bytes or the wait is over.
            let wait = Int32(GraphServer.pumpWaitSeconds * 1000)
            var timeout: Int32 = stopping ? 20 : (ready ? 0 : (more ? (roomy ? 0 : wait) : -1))
            // Sleeping until woken: the next event's append wakes this thread (through the
            // pipe), unless events are waiting already.
            if timeout == -1 && !lock.withLock({ markSpoolIdleLocked() }) { timeout = 0 }
            // The program's own usage is due once a second while someone watches.
            if !active.isEmpty {
                let due = Int32(max(0, min(10, nextUsage - monotonicNow())) * 1000) + 1
                if timeout < 0 || timeout > due { timeout = due }
            }
            // A closing connection is closed at its deadline even if it never becomes writable.
            if active.contains(where: \.closeAfterSending) && (timeout < 0 || timeout > 50) { timeout = 50 }
            let n = poll(&fds, nfds_t(fds.count), timeout)
            guard n >= 0 else { continue } // EINTR
            if fds[0].revents != 0 {
                drainWakePipe()
                // Woken by the first event after a quiet spell: let a batch gather, so a
                // busy program wakes this thread a few hundred times a second, not per event.
                if !stopping { usleep(GraphServer.batchMicroseconds) }
            }
            if fds[1].revents != 0 { acceptViewers(&active) }
            var closing: [ViewerConnection] = []
            for (k, c) in active.enumerated() where k + 2 < fds.count {
                let rev = fds[k + 2].revents
                if rev & Int16(POLLIN) != 0 && !c.readClosed {
                    if !readLines(c, buffer: &chunk) { closing.append(c) }
                } else if rev & Int16(POLLHUP | POLLERR | POLLNVAL) != 0 {
                    closing.append(c) // the viewer is gone
                }
            }
            for c in closing { remove(c, from: &active) }
        }
        for c in active { remove(c, from: &active) }
        close(listenFD)
        var st = stat()
        if lstat(path, &st) == 0, st.st_ino == inode { unlink(path) }
        finishedRunning()
    }

    func finishedRunning() {
        finished.signal()
    }

    private func monotonicNow() -> Double { monotonicSeconds() }

    private func drainWakePipe() {
        var buf = [UInt8](repeating: 0, count: 64)
        while read(wakeRead, &buf, buf.count) > 0 {}
    }

    /// When everything handed over is written: resyncs an overflowed connection and takes
    /// its pending lines.
    private func refill(_ c: ViewerConnection) {
        guard !c.hasUnsent else { return }
        lock.withLock {
            if c.overflowed && !stopping && !c.closeAfterSending {
                // Observing again if the server let go while every viewer was stalled.
                if observation == nil { resnapshotLocked(observe: true) }
                resyncLocked(c)
            }
            guard !c.pending.isEmpty else {
                c.inFlightEventBytes = 0
                return
            }
            swap(&c.pending, &c.sending)
            c.pending.removeAll()
            c.sent = 0
            c.inFlightEventBytes = c.eventBytes
            c.eventBytes = 0
            c.pendingEvents = 0
            c.handedSeq = c.seq
        }
    }

    /// Writes as much as the socket takes. False when the viewer is gone.
    private func writeSome(_ c: ViewerConnection) -> Bool {
        c.sending.withBytes { bytes in
            while c.sent < bytes.count {
                let n = sendNoSignal(c.fd, bytes.baseAddress! + c.sent, bytes.count - c.sent)
                if n > 0 {
                    c.sent += n
                    continue
                }
                if n < 0 && errno == EINTR { continue }
                return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)
            }
            return true
        }
    }

    /// Accepts every waiting viewer: checks its uid and the viewer limit, then sends the
    /// header and a snapshot, attaching to the graph for the first viewer.
    private func acceptViewers(_ active: inout [ViewerConnection]) {
        while true {
            let fd = accept(listenFD, nil, nil)
            if fd < 0 {
                if errno == EINTR { continue }
                return // EAGAIN, or out of descriptors: try again at the next poll
            }
            SocketPath.configure(fd, nonBlocking: true)
            guard SocketPath.peerUID(fd) == geteuid() else {
                // One line, so the viewer can say why (not "killed"), then closed at once.
                var line = LogBuffer(capacity: 128)
                line.refusal(GraphServer.otherUserRefusal)
                line.withBytes { _ = sendNoSignal(fd, $0.baseAddress!, $0.count) }
                close(fd)
                continue
            }
            guard active.count < GraphServer.maxViewers else {
                var line = LogBuffer(capacity: 256)
                line.refusal("too many viewers (at most \(GraphServer.maxViewers))")
                line.withBytes { _ = sendNoSignal(fd, $0.baseAddress!, $0.count) }
                close(fd)
                continue
            }
            let c = ViewerConnection(fd: fd, nanosecondTimes: scratch.nanosecondTimes)
            c.sending.serverHeader(created: created, producer: name, pid: Int(getpid()), name: name)
            let accepted = lock.withLock { () -> Bool in
                guard !stopping else { return false }
                if observation == nil { attachLocked() }
                lastT = max(now, lastT)
                c.seq = model.writeSnapshot(into: &c.sending, seq: 1, t: lastT) - 1
                c.handedSeq = c.seq
                connections.append(c)
                return true
            }
            guard accepted else {
                close(fd)
                return
            }
            active.append(c)
        }
    }

    /// Starts observing for the first viewer. Events of an earlier observation still in the
    /// spool are dropped; events the snapshot already holds are skipped by sequence (lock
    /// order: ours, then the graph's; the observer never takes ours).
    private func attachLocked() {
        lock.assertHeld()
        lastT = max(now, lastT)
        resnapshotLocked(observe: true)
    }

    /// Closes a connection; the last one detaches from the graph.
    private func remove(_ c: ViewerConnection, from active: inout [ViewerConnection]) {
        guard let k = active.firstIndex(where: { $0 === c }) else { return }
        active.remove(at: k)
        close(c.fd)
        let detached = lock.withLock { () -> (any GraphObservation)? in
            connections.removeAll { $0 === c }
            guard connections.isEmpty, observation != nil else { return nil }
            model = RecorderModel(keepingTimes: true)
            lastRootSettle = nil
            defer { observation = nil }
            return observation
        }
        detached?.cancel()
    }

    /// Reads what the viewer sent and acts on complete lines. False when the connection must
    /// close (viewer gone, line over the cap, bytes that are not UTF-8 JSON).
    private func readLines(_ c: ViewerConnection, buffer: inout [UInt8]) -> Bool {
        guard !c.closeAfterSending else { return true }
        for _ in 0..<16 { // bounded, so one chatty viewer cannot starve the others
            let n = buffer.withUnsafeMutableBytes { recv(c.fd, $0.baseAddress, $0.count, 0) }
            if n == 0 {
                // The viewer will send nothing more (it may still read, as `nc -U` with its
                // input closed does); it is closed when it hangs up or a write fails.
                c.readClosed = true
                return c.input.isEmpty || handleFinalLine(c)
            }
            if n < 0 {
                if errno == EINTR { continue }
                return errno == EAGAIN || errno == EWOULDBLOCK
            }
            c.input.append(contentsOf: buffer[0..<n])
            guard handleLines(c) else { return false }
        }
        return true
    }

    /// A last line without its newline, at the viewer's end of input.
    private func handleFinalLine(_ c: ViewerConnection) -> Bool {
        c.input.append(10)
        return handleLines(c)
    }

    private func handleLines(_ c: ViewerConnection) -> Bool {
        var start = 0
        var cancels: [Int] = []
        defer {
            for id in cancels { graph.cancel(NodeID(id), source: "attach") }
        }
        while let nl = c.input[start...].firstIndex(of: 10) {
            var end = nl
            if end > start, c.input[end - 1] == 13 { end -= 1 }
            guard nl - start <= GraphServer.maxCommandBytes else { return false }
            let line = c.input[start..<end]
            start = nl + 1
            if line.allSatisfy({ $0 == 32 || $0 == 9 }) { continue }
            switch ViewerCommand(line: line) {
            case .notJSON:
                say("not UTF-8 JSON; closing the connection", to: c)
                lock.withLock {
                    c.closeAfterSending = true
                    c.overflowed = true // no more events after the error line (see the field)
                }
                c.closeDeadline = monotonicNow() + GraphServer.finalFlushSeconds
                c.input.removeAll()
                return true
            case .invalid(let message):
                say(message, to: c)
            case .usage:
                lock.withLock { c.wantsUsage = true }
            case .cancel(let id):
                if !allowCancel {
                    say("cancel is not allowed: this program serves with allowCancel: false", to: c)
                } else if lock.withLock({
                    pumpLocked()
                    return model.contains(id)
                }) {
                    cancels.append(id)
                } else {
                    say("no node \(id)", to: c)
                }
            }
        }
        c.input.removeFirst(start)
        return c.input.count <= GraphServer.maxCommandBytes
    }

    /// Queues the program's own CPU and memory on the streams of the viewers that asked.
    private func sendProgramUsage() {
        guard lock.withLock({ connections.contains { $0.wantsUsage } }), let usage = ProgramUsage.sample() else {
            return
        }
        lock.withLock {
            guard !stopping else { return }
            let t = max(now, lastT)
            lastT = t
            for c in connections where c.wantsUsage && !c.overflowed && !c.closeAfterSending {
                // Counted against the buffer like events: a viewer that reads nothing overflows.
                guard c.eventBytes + c.inFlightEventBytes + 128 <= GraphServer.bufferBytes else { continue }
                c.seq += 1
                let before = c.pending.count
                c.pending.programUsage(usage, seq: c.seq, t: t)
                c.eventBytes += c.pending.count - before
            }
        }
    }

    /// Queues an error line on the connection's stream.
    private func say(_ message: String, to c: ViewerConnection) {
        lock.withLock {
            guard !stopping else { return }
            let t = max(now, lastT)
            lastT = t
            // Error lines count against the buffer too: a viewer that sends and never reads
            // cannot grow it. Past the limit they are dropped (they change nothing).
            guard !c.overflowed,
                c.eventBytes + c.inFlightEventBytes + 256 + message.utf8.count <= GraphServer.bufferBytes
            else { return }
            c.seq += 1
            let before = c.pending.count
            c.pending.error(message, seq: c.seq, t: t)
            c.eventBytes += c.pending.count - before
        }
    }
}

/// `send` that never raises SIGPIPE (a viewer that went away must not kill the program).
func sendNoSignal(_ fd: Int32, _ p: UnsafeRawPointer, _ n: Int) -> Int {
    #if canImport(Glibc)
        send(fd, p, n, Int32(MSG_NOSIGNAL))
    #else
        send(fd, p, n, 0) // SO_NOSIGPIPE is set on the socket
    #endif
}
