import Dispatch
import Synchronization

/// A queue between the program's threads, which append small values (observed events) while
/// holding the graph's event lock, and one consumer thread that takes them in batches, so the
/// costly work (encoding, spans) happens on the consumer's thread, off the program's.
///
/// Appends must not overlap: their callers serialize them (a graph calls its observers one
/// delivery at a time, under its event lock or its sole stripe's lock; other producers pause
/// the graph's deliveries, `Graph.withDeliveriesPaused`, or take a lock of their own when no
/// graph is observed). An append is then a copy into a preallocated chunk and one release store of the
/// chunk's count, with no lock: taking a lock of the spool's own on every event cost W1 with a
/// recorder, a tracer or a viewer ~0.02 µs a task (two locked instructions an event, and a
/// lock word the consumer's thread writes too).
///
/// Values live in chunks of `chunkSize`; full chunks wait in order for the consumer, which
/// takes the values out (each moved, never copied) and hands the chunk back emptied, so steady
/// state allocates nothing. The consumer also takes what is published in the chunk being
/// filled, without taking the chunk. At most `maxChunks` chunks are queued; what `append` does
/// beyond that is the `Overflow` policy.
///
/// Memory: at most `maxChunks + 1` chunks exist (filling, queued, being drained or spare);
/// emptied chunks are kept as spares (up to `keptSpares`) until the spool is released, and the
/// consumer keeps `prepared` spares allocated and touched ahead of need, so the producer writes
/// into memory whose pages are already mapped (a fresh chunk's page faults cost the program's
/// thread about a third of its appends, measured on W1 with a recorder).
final class Spool<Element>: @unchecked Sendable { // producer state: serialized appends; the rest behind `lock`
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

    /// `queuedFirst`: queued while the consumer sleeps until woken (`markIdleIfEmpty`): the
    /// caller wakes it; `dropped`: overflowed (`.drop`); `failed`: closed or failed.
    enum AppendResult { case queued, queuedFirst, dropped, failed }

    /// One chunk: `base` holds `capacity` slots; the first `published` are initialized and
    /// visible to the consumer, which has moved out those before `consumed`. Raw memory, so
    /// neither side counts references to reach it; the spool frees it.
    struct Chunk {
        let base: UnsafeMutablePointer<Element>
        /// `published` (written by the producer only) and `consumed` (by the consumer only),
        /// a cache line apart so that neither side's writes slow the other's.
        let header: UnsafeMutableRawPointer

        var published: UnsafeMutablePointer<Atomic<Int>> {
            header.assumingMemoryBound(to: Atomic<Int>.self)
        }
        var consumed: UnsafeMutablePointer<Int> {
            (header + 64).assumingMemoryBound(to: Int.self)
        }

        /// `touch`: writes one byte per page, so the pages are mapped before a producer fills it.
        init(capacity: Int, touch: Bool) {
            base = .allocate(capacity: capacity)
            header = .allocate(byteCount: 128, alignment: 64)
            header.bindMemory(to: Atomic<Int>.self, capacity: 1).initialize(to: Atomic(0))
            (header + 64).bindMemory(to: Int.self, capacity: 1).initialize(to: 0)
            if touch {
                let raw = UnsafeMutableRawPointer(base)
                let bytes = capacity * MemoryLayout<Element>.stride
                var offset = 0
                while offset < bytes {
                    raw.storeBytes(of: 0, toByteOffset: offset, as: UInt8.self)
                    offset += 4096
                }
            }
        }

        /// Destroys the values nobody took and frees the memory.
        func free() {
            let start = consumed.pointee
            let end = published.pointee.load(ordering: .acquiring)
            if end > start { (base + start).deinitialize(count: end - start) }
            base.deallocate()
            header.deallocate()
        }
    }

    private static var closedFlag: UInt8 { 1 }
    private static var overflowedFlag: UInt8 { 2 }
    private static var failedFlag: UInt8 { 4 }

    /// Cache-line guards around the fields every append reads or writes: an object allocated
    /// just before this one shared a line with them (the server writes its sequence there on
    /// every event it encodes), and so did the consumer's fields below; each write by the
    /// other thread made the program's next append wait for that line.
    private let leadingGuard: CacheLinePadding = .init()
    let chunkSize: Int
    let maxChunks: Int
    let overflow: Overflow

    // The producer's (appends are serialized by their callers). `fill` changes under `lock`
    // too, where the consumer reads it.
    @exclusivity(unchecked) private var fill: Chunk
    @exclusivity(unchecked) private var fillCount = 0
    /// Set by a consumer about to sleep until woken, cleared by the next append (which then
    /// returns `.queuedFirst`); both under the producers' serialization.
    @exclusivity(unchecked) private var idle = false
    /// closed | overflowed | failed: written under `lock`, read by every append.
    private let flags = Atomic<UInt8>(0)
    private let trailingGuard: CacheLinePadding = .init()

    private let lock = Lock()
    @exclusivity(unchecked) private var ready: [Chunk] = []
    /// The consumer's: the full chunks of the drain under way (swapped with `ready`, so
    /// neither array is reallocated).
    @exclusivity(unchecked) private var draining: [Chunk] = []
    @exclusivity(unchecked) private var spare: [Chunk] = []
    /// Chunks that exist: `fill`, queued, being drained and spare (at most `maxChunks + 1`).
    @exclusivity(unchecked) private var chunkCount = 1
    /// Full chunks the consumer took and has not given back yet.
    @exclusivity(unchecked) private var lent = 0
    /// Chunks given back by the consumer so far (waiting producers watch it for progress).
    @exclusivity(unchecked) private var taken: UInt64 = 0
    @exclusivity(unchecked) private var waiters = 0
    /// Values dropped since the overflow.
    @exclusivity(unchecked) private var droppedCount = 0
    /// Whether a waiting producer gave up (`.wait`) or `fail()` was called.
    var failed: Bool { flags.load(ordering: .acquiring) & Spool.failedFlag != 0 }
    /// Signalled when a chunk is ready (the consumer may sleep until then).
    private let work = DispatchSemaphore(value: 0)
    /// Signalled for each waiting producer when the consumer gave chunks back.
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
    init(
        chunkSize: Int = 4096, maxChunks: Int, overflow: Overflow, prepared: Int = 0,
        keptSpares: Int = .max
    ) {
        self.chunkSize = max(16, chunkSize)
        self.maxChunks = max(2, maxChunks)
        self.overflow = overflow
        self.prepared = min(max(0, prepared), self.maxChunks - 1)
        self.keptSpares = max(keptSpares, self.prepared, 2)
        fill = Chunk(capacity: self.chunkSize, touch: self.prepared > 0)
    }

    deinit {
        fill.free()
        for c in ready { c.free() }
        for c in spare { c.free() }
    }

    /// Queues one value (from the program's thread; never calls back into the caller).
    @inline(__always)
    func append(_ value: consuming Element) -> AppendResult {
        let n = fillCount
        guard _fastPath(n < chunkSize && flags.load(ordering: .relaxed) == 0) else {
            return appendSlow(value)
        }
        (fill.base + n).initialize(to: value)
        fillCount = n &+ 1
        fill.published.pointee.store(n &+ 1, ordering: .releasing)
        return wakeIfIdle()
    }

    /// Queues two values in order, published together when they fit in the chunk.
    @inline(__always)
    func append(_ first: consuming Element, _ second: consuming Element) -> AppendResult {
        let n = fillCount
        guard _fastPath(n &+ 1 < chunkSize && flags.load(ordering: .relaxed) == 0) else {
            let one = append(first)
            let two = append(second)
            return one == .queued ? two : one
        }
        (fill.base + n).initialize(to: first)
        (fill.base + n + 1).initialize(to: second)
        fillCount = n &+ 2
        fill.published.pointee.store(n &+ 2, ordering: .releasing)
        return wakeIfIdle()
    }

    /// Queues the two events of one step (a cancel request and the state change it makes),
    /// packed in one item when they fit together, else one after the other; `wrap` makes an
    /// element of an item (a keeping observer's `pair` sink).
    @inline(__always)
    func appendPair(
        _ first: consuming GraphEvent, _ second: consuming GraphEvent,
        _ wrap: (consuming PackedItem) -> Element
    ) {
        if let both = PackedItem(pair: first, second) {
            _ = append(wrap(both))
        } else {
            _ = append(wrap(PackedItem(first)), wrap(PackedItem(second)))
        }
    }

    @inline(__always)
    private func wakeIfIdle() -> AppendResult {
        guard _slowPath(idle) else { return .queued }
        idle = false
        return .queuedFirst
    }

    /// A full chunk, or a flag set: takes `lock`.
    @inline(never)
    private func appendSlow(_ value: consuming Element) -> AppendResult {
        lock.lock()
        let f = flags.load(ordering: .relaxed)
        if f & (Spool.closedFlag | Spool.failedFlag) != 0 {
            lock.unlock()
            return .failed
        }
        if f & Spool.overflowedFlag != 0 {
            droppedCount += 1
            lock.unlock()
            return .dropped
        }
        if fillCount < chunkSize { // a flag was cleared since the caller read it
            lock.unlock()
            return append(value)
        }
        var start: Double?
        var seen = taken
        while ready.count + lent + 1 >= maxChunks {
            switch overflow {
            case .drop:
                flags.store(f | Spool.overflowedFlag, ordering: .releasing)
                droppedCount += 1
                lock.unlock()
                work.signal()
                return .dropped
            case .wait(let limit):
                let now = monotonicSeconds()
                if taken != seen {
                    seen = taken
                    start = now
                }
                if let s = start, now - s >= limit {
                    flags.store(flags.load(ordering: .relaxed) | Spool.failedFlag, ordering: .releasing)
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
                if flags.load(ordering: .relaxed) & (Spool.closedFlag | Spool.failedFlag) != 0 {
                    lock.unlock()
                    return .failed
                }
            }
        }
        ready.append(fill)
        fill = spareLocked()
        fillCount = 0
        assertInvariantsLocked()
        lock.unlock()
        work.signal()
        return append(value)
    }

    /// An empty chunk for `fill`: a spare, or a new one (lock held).
    ///
    /// The spare emptied longest ago comes first. The consumer's reads leave a drained
    /// chunk's lines in its core's cache, and the producer's every write to such a line waits
    /// for the other core to give it up; taking the chunk just drained (last in, first out)
    /// made the lock release after each event wait for that. W1 traced to a minimal tracer:
    /// 0.38 µs a task first in, last out, 0.35 µs first in, first out (the recorder's writer
    /// crowds its cache with encoding, so it was not affected).
    private func spareLocked() -> Chunk {
        lock.assertHeld()
        if !spare.isEmpty { return spare.removeFirst() }
        chunkCount += 1
        return Chunk(capacity: chunkSize, touch: false)
    }

    /// Hands the values queued so far to `body`, oldest first, each moved out of its chunk,
    /// at most `limit` of them (the rest wait for the next call); full chunks are given back
    /// as soon as they are emptied (that is the consumer's progress). Returns how many it
    /// handed over. The consumers' loop (recorder, server, relay); calls must not overlap.
    @inline(__always) @discardableResult
    func drain(limit: Int = .max, _ body: (consuming Element) -> Void) -> Int {
        lock.lock()
        swap(&draining, &ready)
        let current = fill
        lent += draining.count
        lock.unlock()
        var left = limit
        var done = 0
        while done < draining.count && left > 0 {
            let c = draining[done]
            left -= Spool.consume(c, upTo: left, body)
            guard c.consumed.pointee == chunkSize else { break } // queued chunks are full
            recycle(c)
            done += 1
        }
        if done < draining.count {
            // Not emptied: back in front of whatever was queued meanwhile, in order.
            lock.withLock {
                ready.insert(contentsOf: draining[done...], at: 0)
                lent -= draining.count - done
                assertInvariantsLocked()
            }
        }
        let reachedCurrent = done == draining.count
        draining.removeAll(keepingCapacity: true)
        prepareSpares() // after the recycling: a chunk given back is a spare already
        // The chunk being filled: what is published so far. The producer may queue it
        // meanwhile; a later drain then takes the rest, from `consumed`.
        if reachedCurrent && left > 0 { left -= Spool.consume(current, upTo: left, body) }
        return limit - left
    }

    /// Moves out at most `limit` published values of `c` not taken yet; returns how many.
    @inline(__always)
    private static func consume(_ c: Chunk, upTo limit: Int, _ body: (consuming Element) -> Void) -> Int {
        let start = c.consumed.pointee
        let end = start + min(c.published.pointee.load(ordering: .acquiring) - start, limit)
        var i = start
        while i < end {
            body((c.base + i).move())
            i += 1
        }
        c.consumed.pointee = end
        return end - start
    }

    /// Gives a drained chunk back: kept as a spare (up to `keptSpares`) or freed.
    private func recycle(_ c: Chunk) {
        c.published.pointee.store(0, ordering: .relaxed)
        c.consumed.pointee = 0
        let (wake, kept) = lock.withLock { () -> (Int, Bool) in
            lent -= 1
            taken &+= 1
            let keep = spare.count < keptSpares
            if keep { spare.append(c) } else { chunkCount -= 1 }
            assertInvariantsLocked()
            return (waiters, keep)
        }
        if !kept { c.free() }
        for _ in 0..<wake { room.signal() }
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
            let c = Chunk(capacity: chunkSize, touch: true)
            lock.withLock {
                spare.append(c)
                assertInvariantsLocked()
            }
        }
    }

    /// For a consumer about to sleep until the next append wakes it: when nothing is waiting,
    /// marks it idle, so that append returns `.queuedFirst`, and returns true (it may sleep);
    /// else false (drain first). Call it with the producers held off (the graph's deliveries
    /// paused, `Graph.withDeliveriesPaused`), so no append runs meanwhile and no wake-up is
    /// lost.
    func markIdleIfEmpty() -> Bool {
        let empty = lock.withLock {
            ready.isEmpty && fill.published.pointee.load(ordering: .relaxed) == fill.consumed.pointee
        }
        idle = empty
        return empty
    }

    /// What is wrong with the spool's chunk accounting, or nil: every chunk counted in
    /// `chunkCount` is the one being filled, queued, lent to the consumer or spare (but one the
    /// consumer is allocating, between the two steps of `prepareSpares`),
    /// never more than `maxChunks + 1` of them, spares within `keptSpares`, and the chunk
    /// being filled published only as far as it was filled and taken only as far as
    /// published. O(1): debug builds check it after each change of the chunks (once per
    /// chunk of values, not per value).
    func verifyInvariants() -> String? { lock.withLock { invariantViolationLocked() } }

    private func invariantViolationLocked() -> String? {
        lock.assertHeld()
        let accounted = 1 + ready.count + lent + spare.count
        guard chunkCount == accounted || chunkCount == accounted + 1 else {
            return
                "\(chunkCount) chunks counted, \(accounted) accounted for (filling, \(ready.count) queued, \(lent) lent, \(spare.count) spare)"
        }
        if chunkCount > maxChunks + 1 { return "\(chunkCount) chunks, at most \(maxChunks + 1)" }
        if lent < 0 || waiters < 0 { return "negative count: lent \(lent), waiters \(waiters)" }
        if spare.count > keptSpares { return "\(spare.count) spares, at most \(keptSpares)" }
        let published = fill.published.pointee.load(ordering: .acquiring)
        if published < 0 || published > chunkSize { return "\(published) published in a chunk of \(chunkSize)" }
        return nil
    }

    /// Asserts `verifyInvariants()` (debug builds; nothing in release). Lock held.
    @inline(__always)
    private func assertInvariantsLocked(file: StaticString = #file, line: UInt = #line) {
        debugOnly {
            lock.assertHeld(file: file, line: line)
            if let problem = invariantViolationLocked() {
                assertionFailure("Spool: \(problem)", file: file, line: line)
            }
        }
    }

    /// Chunks that exist now (filling, queued, being drained, spare), and how many are spare
    /// (for tests).
    var chunkCounts: (all: Int, spare: Int) { lock.withLock { (chunkCount, spare.count) } }

    /// The chunk being filled and the spares in the order they will be used (for tests).
    var chunkOrder: (fill: UnsafeMutableRawPointer, spares: [UnsafeMutableRawPointer]) {
        lock.withLock { (UnsafeMutableRawPointer(fill.base), spare.map { UnsafeMutableRawPointer($0.base) }) }
    }

    /// Whether values were dropped (`.drop`) since the last `resume()`.
    var isOverflowed: Bool { flags.load(ordering: .acquiring) & Spool.overflowedFlag != 0 }

    /// Accepts values again after an overflow (the consumer has dropped what it had);
    /// returns how many values were dropped meanwhile.
    func resume() -> Int {
        lock.withLock {
            defer {
                flags.store(flags.load(ordering: .relaxed) & ~Spool.overflowedFlag, ordering: .releasing)
                droppedCount = 0
            }
            return droppedCount
        }
    }

    /// Takes and forgets everything queued; returns how many values that was.
    @discardableResult
    func discard() -> Int {
        var n = 0
        drain { (value: consuming Element) in
            _ = consume value
            n += 1
        }
        return n
    }

    /// Drops every later value.
    func close() {
        lock.withLock { flags.store(flags.load(ordering: .relaxed) | Spool.closedFlag, ordering: .releasing) }
        room.signal()
        work.signal()
    }

    /// Marks the spool failed (the consumer cannot go on): later values are dropped.
    func fail() {
        lock.withLock { flags.store(flags.load(ordering: .relaxed) | Spool.failedFlag, ordering: .releasing) }
        room.signal()
    }

    /// Sleeps until a chunk is ready, the spool overflowed or failed, or `milliseconds` passed.
    func waitForWork(milliseconds: Int) {
        _ = work.wait(timeout: .now() + .milliseconds(milliseconds))
    }

    /// Wakes a consumer sleeping in `waitForWork`.
    func wake() { work.signal() }
}
