import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One lock stripe of a graph: the lock that guards the mutable state of the tasks that
/// belong to it and their node records, with the records themselves, the stripe's share of
/// the event count, its block of ids and its finished roots.
///
/// A thread uses one stripe (`Trampoline.stripe`), and a task belongs to the stripe of the
/// thread that created it; a task, its parent and its subtasks always share one stripe (an
/// adoption across stripes moves the subtree first, see `AnyGraphTask.withFamily`). So threads
/// running independent tasks take different locks and touch different memory.
@usableFromInline
final class Stripe: @unchecked Sendable { // mutable state behind `lock`
    /// Ids are claimed from the graph in blocks of this many, so one thread numbers its
    /// nodes 0, 1, 2, ... and the graph's shared counter is touched once per block.
    static let blockShift = 6
    static let blockSize = 1 << blockShift

    // Keeps this stripe's hot fields off the cache line of whatever precedes it in memory.
    private let leadingPadding = CacheLinePadding()
    @usableFromInline let lock = Lock(padded: true)
    /// `lock`'s word, so the hot paths lock it without touching (retaining) the `Lock`.
    @usableFromInline let mutex: RawLock
    @usableFromInline let index: Int

    // Everything below is guarded by `lock`.
    /// Events counted in this stripe while nobody observes (`Graph.emit`).
    @exclusivity(unchecked) var sequence: UInt64 = 0
    /// Records of the nodes created in this stripe, slot = position.
    @exclusivity(unchecked) var own = NodeTable()
    /// Records moved in from other stripes (adoptions across stripes); slot `~position`.
    @exclusivity(unchecked) var foreign = NodeTable()
    /// First slot of each id block this stripe claimed, by block number.
    @exclusivity(unchecked) var blockBase: [Int: Int] = [:]
    /// The block number of each 64 own slots (to forget them when their chunk is freed).
    @exclusivity(unchecked) var blockOfSlots: [Int] = []
    /// Slots of the records in `foreign`, by node id.
    @exclusivity(unchecked) var foreignSlot: [Int: Int] = [:]
    @exclusivity(unchecked) var nextID = 0
    @exclusivity(unchecked) var idEnd = 0
    /// Roots of this stripe that finished, oldest first, for retention.
    @exclusivity(unchecked) var finishedRoots: [(id: Int, time: Double)] = []
    @exclusivity(unchecked) var finishedRootsHead = 0
    /// Parents whose finished children retention counts (`ChildRetention`), by node id.
    @exclusivity(unchecked) var retainedParents: [Int: ChildRetention] = [:]
    // Keeps the next stripe's hot fields off this one's cache lines.
    private let padding = CacheLinePadding()

    init(index: Int) {
        self.index = index
        mutex = lock.raw
    }

    deinit {
        own.deallocate()
        foreign.deallocate()
    }

    /// Stores a new own record with the next id of this stripe's block; returns its id and slot.
    @inline(__always)
    func append(_ make: (_ id: Int) -> NodeRecord, claim: () -> Int) -> (id: Int, slot: Int) {
        if nextID == idEnd {
            let block = claim()
            nextID = block << Stripe.blockShift
            idEnd = nextID + Stripe.blockSize
            blockBase[block] = own.count
            blockOfSlots.append(block)
        }
        let id = nextID
        nextID += 1
        let slot = own.append(make(id))
        own.assertChunk(of: slot)
        return (id, slot)
    }

    /// The slot of node `id` if this stripe holds its live record.
    func slot(of id: Int) -> Int? {
        if let base = blockBase[id >> Stripe.blockShift] {
            let s = base + (id & (Stripe.blockSize - 1))
            if own.contains(s) { return s }
        }
        if let f = foreignSlot[id] { return ~f }
        return nil
    }

    @inline(__always)
    func contains(_ slot: Int) -> Bool {
        slot >= 0 ? own.contains(slot) : foreign.contains(~slot)
    }

    /// The live record in `slot`; callers check `contains` first.
    subscript(slot: Int) -> NodeRecord {
        _read {
            if slot >= 0 { yield own[slot] } else { yield foreign[~slot] }
        }
        _modify {
            if slot >= 0 { yield &own[slot] } else { yield &foreign[~slot] }
        }
    }

    /// The id of the live record in `slot` (callers check `contains` first), read in place:
    /// through the subscript, the nested `_read` accessors cost a heap-allocated coroutine
    /// frame per read.
    @inline(__always)
    func id(ofSlot slot: Int) -> Int {
        slot >= 0 ? own.pointer(slot).pointee.id : foreign.pointer(~slot).pointee.id
    }

    @inline(__always)
    func modify(_ slot: Int, _ body: (inout NodeRecord) -> Void) {
        if slot >= 0 { own.modify(slot, body) } else { foreign.modify(~slot, body) }
    }

    func message(_ slot: Int) -> String? {
        slot >= 0 ? own.messages[slot] : foreign.messages[~slot]
    }

    func setMessage(_ slot: Int, _ text: String) {
        if slot >= 0 { own.messages[slot] = text } else { foreign.messages[~slot] = text }
    }

    /// The shared node a `ref` node stands for.
    func refOf(_ slot: Int) -> Int? {
        slot >= 0 ? own.refs[slot] : foreign.refs[~slot]
    }

    func setRef(_ slot: Int, _ of: Int) {
        if slot >= 0 { own.refs[slot] = of } else { foreign.refs[~slot] = of }
    }

    /// When an executing node began (kept while the graph keeps start times).
    func start(_ slot: Int) -> Double? {
        slot >= 0 ? own.start(slot) : foreign.start(~slot)
    }

    /// Keeps when a node began executing (read in snapshots, with its end once settled).
    func setStart(_ slot: Int, _ time: Double) {
        if slot >= 0 { own.setStart(slot, time) } else { foreign.setStart(~slot, time) }
    }

    /// When a node settled (kept while the graph keeps start times).
    func end(_ slot: Int) -> Double? {
        slot >= 0 ? own.end(slot) : foreign.end(~slot)
    }

    func setEnd(_ slot: Int, _ time: Double) {
        if slot >= 0 { own.setEnd(slot, time) } else { foreign.setEnd(~slot, time) }
    }

    /// Whether any node of the stripe has a start time kept.
    var hasStarts: Bool { own.hasStarts || foreign.hasStarts }

    /// Forgets a record (retention, or a move to another stripe).
    func drop(_ slot: Int) {
        guard contains(slot) else { return }
        if slot >= 0 {
            guard let chunk = own.drop(slot) else { return own.assertChunk(of: slot) }
            // Every slot of the chunk is gone: so are its id blocks.
            let per = NodeTable.chunkSize >> Stripe.blockShift
            for b in chunk * per..<min(chunk * per + per, blockOfSlots.count) {
                blockBase[blockOfSlots[b]] = nil
            }
            assertInvariants() // once per freed chunk (1,024 drops)
        } else {
            foreignSlot[foreign[~slot].id] = nil
            if foreign.drop(~slot) != nil { assertInvariants() } else { foreign.assertChunk(of: ~slot) }
        }
    }

    /// What is wrong with the stripe's records, or nil: both node tables
    /// (`NodeTable.verifyInvariants`), `foreignSlot` naming each live foreign record by its
    /// id, and the id block in use. O(records): debug builds check it once per freed chunk
    /// and on every capture (`assertInvariants`). Lock held.
    func verifyInvariants() -> String? {
        if let problem = own.verifyInvariants() { return "own records: \(problem)" }
        if let problem = foreign.verifyInvariants() { return "foreign records: \(problem)" }
        for (id, f) in foreignSlot where !foreign.contains(f) || foreign[f].id != id {
            return "foreignSlot[\(id)] = \(f), which does not hold node \(id)"
        }
        var liveForeign = 0
        foreign.forEachLive { _, _ in liveForeign += 1 }
        if liveForeign != foreignSlot.count {
            return "\(liveForeign) foreign records, \(foreignSlot.count) in foreignSlot"
        }
        if nextID > idEnd || idEnd - nextID > Stripe.blockSize {
            return "next id \(nextID) outside its block (end \(idEnd))"
        }
        return nil
    }

    /// Asserts `verifyInvariants()` (debug builds; nothing in release). Lock held.
    @inline(__always)
    func assertInvariants(file: StaticString = #file, line: UInt = #line) {
        debugOnly {
            assertLocked(file: file, line: line)
            if let problem = verifyInvariants() {
                assertionFailure("Stripe \(index): \(problem)", file: file, line: line)
            }
        }
    }

    /// Stores a record moved in from another stripe; returns its slot.
    func adopt(_ record: NodeRecord, message: String?, refOf: Int? = nil) -> Int {
        let id = record.id
        let f = foreign.append(record)
        foreignSlot[id] = f
        if let message { foreign.messages[f] = message }
        if let refOf { foreign.refs[f] = refOf }
        foreign.assertChunk(of: f)
        return ~f
    }

    /// Live records, each with its slot.
    func forEachLive(_ body: (Int, NodeRecord) -> Void) {
        own.forEachLive(body)
        foreign.forEachLive { body(~$0, $1) }
    }
}

/// A stripe reached without a retain/release pair (see `Graph.stripeRefs`): the task hot
/// paths lock, use and unlock it through this.
extension Unmanaged where Instance == Stripe {
    @inlinable @inline(__always)
    var mutex: RawLock { _withUnsafeGuaranteedRef { $0.mutex } }

    @inlinable @inline(__always)
    func unlock() { mutex.unlock() }

    /// Runs `body` with the stripe, unretained (the graph keeps it alive).
    @inlinable @inline(__always)
    func with<T>(_ body: (Stripe) throws -> T) rethrows -> T { try _withUnsafeGuaranteedRef(body) }
}
