/// Node-record chunks given back by graphs that ended (or by retention), kept for the next
/// chunk any graph needs, up to `capacity` of them (128 chunks of 88 KiB: 11 MiB).
///
/// Why: a chunk's memory, freed to malloc, tends to go back to the kernel (the heap's top is
/// trimmed), and the next graph's records then fault in fresh pages: one fault per 4 KiB,
/// about a tenth of W1's time (2,100 faults in 100,000 tasks, `BENCH_VERBOSE=1`). A program
/// that runs a graph per job or request reuses memory already paged in instead.
///
/// One lock, taken once per 1,024 records; the stack itself is a fixed buffer, so neither
/// side allocates.
final class NodeChunkPool: @unchecked Sendable {
    static let shared = NodeChunkPool(capacity: 128)

    /// Bytes of one chunk (`NodeTable.chunkSize` records).
    static let chunkBytes = NodeTable.chunkSize * MemoryLayout<NodeRecord>.stride

    let capacity: Int
    private let lock = Lock()
    private let slots: UnsafeMutablePointer<UnsafeMutableRawPointer>
    /// Chunks in `slots`; under `lock`.
    private var count = 0

    init(capacity: Int) {
        self.capacity = capacity
        slots = .allocate(capacity: capacity)
    }

    deinit {
        for i in 0..<count { slots[i].deallocate() }
        slots.deallocate()
    }

    /// Chunks held now.
    var held: Int { lock.withLock { count } }

    /// A chunk's memory, uninitialized: the last one given back, or a fresh allocation.
    func take() -> UnsafeMutablePointer<NodeRecord> {
        lock.lock()
        if count > 0 {
            count -= 1
            let chunk = slots[count]
            lock.unlock()
            return chunk.assumingMemoryBound(to: NodeRecord.self)
        }
        lock.unlock()
        return .allocate(capacity: NodeTable.chunkSize)
    }

    /// Takes back a chunk whose records are deinitialized; frees it when the pool is full.
    func give(_ chunk: UnsafeMutablePointer<NodeRecord>) {
        lock.lock()
        if count < capacity {
            slots[count] = UnsafeMutableRawPointer(chunk)
            count += 1
            lock.unlock()
            return
        }
        lock.unlock()
        chunk.deallocate()
    }
}
