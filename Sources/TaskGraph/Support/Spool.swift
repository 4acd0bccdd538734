import Dispatch

/// A queue between the program's threads, which append small values (observed events) while
/// holding the graph's lock, and one consumer thread that takes them in batches: appending
/// is a copy into a preallocated chunk under a private lock held for nanoseconds, so the
/// costly work (encoding, spans) happens on the consumer's thread, off the program's.
///
/// Values live in chunks of `chunkSize`; full chunks wait in order for the consumer, which
/// hands them back emptied (capacity kept), so steady state allocates nothing. At most
/// `maxChunks` chunks are queued; what `append` does beyond that is the `Overflow` policy.
///
/// Memory: at most `maxChunks + 1` chunks exist (filling, queued, lent or spare); emptied
/// chunks are kept as spares (up to `keptSpares`) until the spool is released, and the consumer
/// keeps `prepared` spares allocated and touched ahead of need, so the producer writes into
/// memory whose pages are already mapped (a fresh chunk's page faults cost the program's
/// thread about a third of its appends, measured on W1 with a recorder).
final class Spool<Element>: @unchecked Sendable {   // state behind `lock`
    /// What a full spool does with one more value.
    enum Overflow {
        /// The producer waits for the consumer to free a chunk, but never longer than
        /// `seconds` without the consumer making progress; then the spool fails: it drops
        /// this and every later value (`append` returns `.failed`).
        case wait(seconds: Double)
        /// The value is dropped and the spool is marked overflowed until the consumer calls
        /// `resume()` (it then resynchronizes from a snapshot).
        case drop
    }

    /// `queuedFirst`: queued into an empty spool (a consumer sleeping until there is work
    /// may need waking); `dropped`: overflowed (`.drop`); `failed`: closed or failed.
    enum AppendResult { case queued, queuedFirst, dropped, failed }

    let chunkSize: Int
    let maxChunks: Int
    let overflow: Overflow

    private let lock = Lock()
    @exclusivity(unchecked) private var filling: [Element] = []
    @exclusivity(unchecked) private var ready: [[Element]] = []
    @exclusivity(unchecked) private var spare: [[Element]] = []
    /// Chunks that exist: `filling`, queued, lent and spare (at most `maxChunks + 1`).
    @exclusivity(unchecked) private var chunkCount = 1
    /// Chunks handed to the consumer by the last `take`, not yet given back.
    @exclusivity(unchecked) private var lent = 0
    /// Chunks given back by the consumer so far (waiting producers watch it for progress).
    @exclusivity(unchecked) private var taken: UInt64 = 0
    @exclusivity(unchecked) private var waiters = 0
    @exclusivity(unchecked) private(set) var overflowed = false
    /// Values dropped since the overflow.
    @exclusivity(unchecked) private var droppedCount = 0
    @exclusivity(unchecked) private var failedFlag = false
    /// Whether a waiting producer gave up (`.wait`) or `fail()` was called.
    var failed: Bool { lock.withLock { failedFlag } }
    @exclusivity(unchecked) private var closed = false
    /// Signalled when a chunk is ready (the consumer may sleep until then).
    private let work = DispatchSemaphore(value: 0)
    /// Signalled for each waiting producer when the consumer took chunks.
    private let room = DispatchSemaphore(value: 0)

    /// Empty chunks the consumer keeps ready (allocated and touched) for the producer.
    let prepared: Int
    /// Emptied chunks kept for reuse at most (the rest are freed).
    let keptSpares: Int

    /// - Parameters:
    ///   - prepared: empty chunks the consumer keeps ready for the producer, whose pages it
    ///     has touched (0: chunks are allocated by the producer when needed). With
    ///     `prepared > 0` the first chunk is touched here too.
    ///   - keptSpares: emptied chunks kept for reuse (default: all, up to `maxChunks`);
    ///     at least `prepared` and 2.
    init(chunkSize: Int = 4096, maxChunks: Int, overflow: Overflow, prepared: Int = 0,
         keptSpares: Int = .max) {
        self.chunkSize = max(16, chunkSize)
        self.maxChunks = max(2, maxChunks)
        self.overflow = overflow
        self.prepared = min(max(0, prepared), self.maxChunks - 1)
        self.keptSpares = max(keptSpares, self.prepared, 2)
        if self.prepared > 0 {
            filling = Spool.preparedChunk(capacity: self.chunkSize)
        } else {
            filling.reserveCapacity(self.chunkSize)
        }
    }

    /// Queues one value (from the program's thread; never calls back into the caller).
    @inline(__always)
    func append(_ value: consuming Element) -> AppendResult {
        lock.lock()
        if _fastPath(filling.count < chunkSize && !closed && !overflowed && !failedFlag) {
            let first = filling.isEmpty && ready.isEmpty
            filling.append(value)
            lock.unlock()
            return first ? .queuedFirst : .queued
        }
        return appendSlow(value)
    }

    /// Queues two values in order, with one turn of the lock when they fit in the chunk.
    @inline(__always)
    func append(_ first: consuming Element, _ second: consuming Element) -> AppendResult {
        lock.lock()
        if _fastPath(filling.count + 1 < chunkSize && !closed && !overflowed && !failedFlag) {
            let isFirst = filling.isEmpty && ready.isEmpty
            filling.append(first)
            filling.append(second)
            lock.unlock()
            return isFirst ? .queuedFirst : .queued
        }
        lock.unlock()
        let one = append(first)
        let two = append(second)
        return one == .queued ? two : one
    }

    /// Queues the two events of one step (a cancel request and the state change it makes),
    /// packed in one item when they fit together, else one after the other; `wrap` makes an
    /// element of an item (a keeping observer's `pair` sink).
    @inline(__always)
    func appendPair(_ first: consuming GraphEvent, _ second: consuming GraphEvent,
                    _ wrap: (consuming PackedItem) -> Element) {
        if let both = PackedItem(pair: first, second) {
            _ = append(wrap(both))
        } else {
            _ = append(wrap(PackedItem(first)), wrap(PackedItem(second)))
        }
    }

    /// Called with `lock` held; unlocks.
    @inline(never)
    private func appendSlow(_ value: consuming Element) -> AppendResult {
        if closed || failedFlag { lock.unlock(); return .failed }
        if overflowed { droppedCount += 1; lock.unlock(); return .dropped }
        var start: Double?
        var seen = taken
        while ready.count + lent + 1 >= maxChunks {
            switch overflow {
            case .drop:
                overflowed = true
                droppedCount += 1
                lock.unlock()
                work.signal()
                return .dropped
            case let .wait(limit):
                let now = monotonicSeconds()
                if taken != seen { seen = taken; start = now }
                if let s = start, now - s >= limit {
                    failedFlag = true
                    lock.unlock()
                    work.signal()
                    return .failed
                }
                if start == nil { start = now }
                waiters += 1
                lock.unlock()
                work.signal()
                _ = room.wait(timeout: .now() + .milliseconds(10))
                lock.lock()
                waiters -= 1
                if closed || failedFlag { lock.unlock(); return .failed }
            }
        }
        var next = spareLocked()
        swap(&next, &filling)
        ready.append(next)
        filling.append(value)
        lock.unlock()
        work.signal()
        return .queued
    }

    /// An empty chunk for `filling`: a spare, or a new one (lock held).
    private func spareLocked() -> [Element] {
        if let c = spare.popLast() { return c }
        chunkCount += 1
        var c: [Element] = []
        c.reserveCapacity(chunkSize)
        return c
    }

    /// Takes everything queued so far and hands each value over to `body`, oldest first:
    /// moved out of its chunk in place, with `placeholder` (a value with nothing to release)
    /// left there, and the chunk given back once done. Lending each value instead (or
    /// iterating the array) made the consumer copy what it took apart and destroy the
    /// original after: ~1,500 instructions a W1 task on the tracing thread. The consumers'
    /// loop (recorder, server, relay).
    @inline(__always)
    func drain(placeholder: Element, _ body: (consuming Element) -> Void) {
        var chunks = take()
        for i in chunks.indices {
            chunks[i].withUnsafeMutableBufferPointer { values in
                guard let base = values.baseAddress else { return }
                for j in 0..<values.count {
                    body((base + j).move())
                    (base + j).initialize(to: placeholder)
                }
            }
            recycle(&chunks[i])
        }
    }

    /// Everything queued so far, oldest first (each chunk in order); give the chunks back with
    /// `recycle`. Empty when nothing is queued.
    func take() -> [[Element]] {
        let out = takeQueued()
        prepareSpares()
        return out
    }

    /// Brings the spares up to `prepared` (bounded by `maxChunks`), allocating and touching
    /// each chunk here, on the consumer's thread, so the producer's next chunks do not take
    /// their page faults on the program's thread.
    private func prepareSpares() {
        while lock.withLock({ () -> Bool in
            guard spare.count < prepared, chunkCount < maxChunks else { return false }
            chunkCount += 1
            return true
        }) {
            let c = Spool.preparedChunk(capacity: chunkSize)
            lock.withLock { spare.append(c) }
        }
    }

    private func takeQueued() -> [[Element]] {
        lock.lock()
        var out = ready
        ready.removeAll(keepingCapacity: true)
        if !filling.isEmpty {
            var next = spareLocked()
            swap(&next, &filling)
            out.append(next)
        }
        lent += out.count
        lock.unlock()
        return out
    }

    /// An empty array with room for `capacity` values whose memory has been written once
    /// (one byte per page), so its pages are mapped before a producer fills it.
    private static func preparedChunk(capacity: Int) -> [Element] {
        [Element](unsafeUninitializedCapacity: capacity) { buffer, count in
            if let base = buffer.baseAddress {
                let raw = UnsafeMutableRawPointer(base)
                let bytes = capacity * MemoryLayout<Element>.stride
                var offset = 0
                while offset < bytes {
                    raw.storeBytes(of: 0, toByteOffset: offset, as: UInt8.self)
                    offset += 4096
                }
            }
            count = 0
        }
    }

    /// Returns chunks taken by `take` (emptied here and kept for reuse). A consumer
    /// gives each chunk back as soon as it is done with it: that is its progress.
    func recycle(_ chunks: [[Element]]) {
        var chunks = chunks
        for i in chunks.indices { chunks[i].removeAll(keepingCapacity: true) }
        let wake = lock.withLock { () -> Int in
            lent -= chunks.count
            taken &+= UInt64(chunks.count)
            while spare.count < keptSpares, let c = chunks.popLast() { spare.append(c) }
            chunkCount -= chunks.count
            return waiters
        }
        for _ in 0..<wake { room.signal() }
    }

    /// Chunks that exist now (filling, queued, lent, spare), and how many are spare (for tests).
    var chunkCounts: (all: Int, spare: Int) { lock.withLock { (chunkCount, spare.count) } }

    /// Whether values were dropped (`.drop`) since the last `resume()`.
    var isOverflowed: Bool { lock.withLock { overflowed } }

    /// Gives one taken chunk back, leaving an empty array in its place (so the chunk's
    /// storage is reused, not copied).
    func recycle(_ chunk: inout [Element]) {
        var c: [Element] = []
        swap(&c, &chunk)
        c.removeAll(keepingCapacity: true)
        let wake = lock.withLock { () -> Int in
            lent -= 1
            taken &+= 1
            if spare.count < keptSpares { spare.append(c) } else { chunkCount -= 1 }
            return waiters
        }
        for _ in 0..<wake { room.signal() }
    }

    /// Accepts values again after an overflow (the consumer has dropped what it had);
    /// returns how many values were dropped meanwhile.
    func resume() -> Int {
        lock.withLock {
            defer { overflowed = false; droppedCount = 0 }
            return droppedCount
        }
    }

    /// Takes and forgets everything queued; returns how many values that was.
    @discardableResult
    func discard() -> Int {
        let chunks = takeQueued()
        let n = chunks.reduce(0) { $0 + $1.count }
        recycle(chunks)
        return n
    }

    /// Drops every later value.
    func close() {
        lock.withLock { closed = true }
        room.signal()
        work.signal()
    }

    /// Marks the spool failed (the consumer cannot go on): later values are dropped.
    func fail() {
        lock.withLock { failedFlag = true }
        room.signal()
    }

    /// Sleeps until a chunk is ready, the spool overflowed or failed, or `milliseconds` passed.
    func waitForWork(milliseconds: Int) {
        _ = work.wait(timeout: .now() + .milliseconds(milliseconds))
    }

    /// Wakes a consumer sleeping in `waitForWork`.
    func wake() { work.signal() }
}

/// Seconds on a monotonic clock (for timeouts).
func monotonicSeconds() -> Double {
    Double(DispatchTime.now().uptimeNanoseconds) / 1e9
}
