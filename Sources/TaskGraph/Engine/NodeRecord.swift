/// What the graph keeps of one node. Lives in the table of its task's stripe (`Stripe`),
/// guarded by that stripe's lock.
struct NodeRecord {
    /// The node's id (its slot in the stripe's table is a different number).
    var id: Int
    var kindIndex: UInt8
    var state: TaskState = .notExecuted
    var failed = false
    var dropped = false
    /// The first child's id when it fits in 32 bits (it goes in this padding, so the record
    /// stays 88 bytes); -1: none, or it is `moreChildren[0]`. See `children`.
    private var firstChild32: Int32 = -1
    var parent: Int = -1
    var weight: Double
    var fraction: Double = 0
    var name: String
    var info: String?
    /// The children after the first (all of them if the first id does not fit 32 bits).
    private var moreChildren: ChildTail = .none
    /// Strong while executing: an executing task lives until it settles.
    var retained: AnyGraphTask?

    var kind: String { NodeKind.all[Int(kindIndex)] }

    /// The node's subtasks in subtask order. Recording a first subtask allocates nothing.
    var children: ChildList {
        get { ChildList(head: firstChild32, tail: moreChildren) }
        _modify {
            // The array moves into the list and back, so appending does not copy it.
            var list = ChildList(head: firstChild32, tail: moreChildren)
            moreChildren = .none
            defer {
                firstChild32 = list.head
                moreChildren = list.tail
                // Checked at 1, 2, 4, 8, ... children: a node's checks cost O(children) in all.
                debugOnly { if list.count & (list.count - 1) == 0 { list.assertInvariants() } }
            }
            yield &list
        }
    }

    init(id: Int, kindIndex: UInt8, dropped: Bool = false, parent: Int = -1, weight: Double, name: String) {
        self.id = id
        self.kindIndex = kindIndex
        self.dropped = dropped
        self.parent = parent
        self.weight = weight
        self.name = name
    }

    static func kindIndex(_ kind: String) -> UInt8 {
        UInt8(NodeKind.all.firstIndex(of: kind) ?? 0)
    }
}

/// A record's subtasks in subtask order (`NodeRecord.children`): the first two ids in 32
/// bits each when they fit, the others in an array, so a composite of one or two subtasks
/// (`map*`, a `then` link and the task its closure made, `and`) records them without an
/// allocation.
struct ChildList: RandomAccessCollection {
    /// The first child's id; -1: none, or it is the tail's first.
    private(set) var head: Int32
    private(set) var tail: ChildTail

    init(head: Int32 = -1, tail: ChildTail = .none) {
        self.head = head
        self.tail = tail
    }

    var startIndex: Int { 0 }
    var endIndex: Int { count }
    var count: Int { (head < 0 ? 0 : 1) + tail.count }

    subscript(i: Int) -> NodeID {
        guard head >= 0 else { return tail[i] }
        return i == 0 ? NodeID(Int(head)) : tail[i - 1]
    }

    mutating func append(_ id: NodeID) {
        if head < 0, tail.isEmpty, let small = Int32(exactly: id.rawValue) {
            head = small
        } else {
            tail.append(id)
        }
    }

    mutating func insert(_ id: NodeID, at i: Int) {
        guard i < count else { return append(id) }
        var all = Array(self)
        all.insert(id, at: Swift.max(0, i))
        head = -1
        tail = .many(all)
    }

    /// Removes `id` (a child retention dropped), keeping the others' order. The list takes
    /// the array shape once; later removals edit that array in place.
    mutating func remove(_ id: NodeID) {
        if head >= 0 || !tail.isMany {
            let all = Array(self)
            head = -1
            tail = all.isEmpty ? .none : .many(all)
        }
        guard case .many(var all) = tail else { return }
        tail = .none // the array is uniquely held while it shrinks
        if let i = all.firstIndex(of: id) { all.remove(at: i) }
        tail = all.isEmpty ? .none : .many(all)
    }

    /// What is wrong with the list, or nil: the shapes `append` and `insert` make. The first
    /// id is in `head` unless an insert moved them all to the tail (`head` -1, `.many`); the
    /// tail holds one id in 32 bits only after a `head`; no id is negative. O(count).
    func verifyInvariants() -> String? {
        guard head >= -1 else { return "head \(head) < -1" }
        switch tail {
        case .none:
            break
        case .one(let id):
            if head < 0 { return "a one-id tail (\(id)) without a head" }
            if id < 0 { return "negative id \(id) in the tail" }
        case .many(let ids):
            if ids.isEmpty { return "an empty array tail" }
            if let bad = ids.first(where: { $0.rawValue < 0 }) { return "negative id \(bad.rawValue) in the tail" }
        }
        return nil
    }

    /// Asserts `verifyInvariants()` (debug builds; nothing in release).
    @inline(__always)
    func assertInvariants(file: StaticString = #file, line: UInt = #line) {
        debugOnly {
            if let problem = verifyInvariants() { assertionFailure("ChildList: \(problem)", file: file, line: line) }
        }
    }
}

/// The children after a record's first (`ChildList`): none, one in 32 bits, or an array.
/// Eight bytes, as the array alone was (the enum's tag goes in the pointer's spare bits).
enum ChildTail {
    case none
    case one(Int32)
    case many([NodeID])

    var count: Int {
        switch self {
        case .none: 0
        case .one: 1
        case .many(let a): a.count
        }
    }

    var isEmpty: Bool { count == 0 }

    var isMany: Bool {
        if case .many = self { return true }
        return false
    }

    subscript(i: Int) -> NodeID {
        switch self {
        case .none: preconditionFailure("no child \(i)")
        case .one(let id):
            precondition(i == 0, "no child \(i)")
            return NodeID(Int(id))
        case .many(let a): return a[i]
        }
    }

    mutating func append(_ id: NodeID) {
        switch self {
        case .none:
            if let small = Int32(exactly: id.rawValue) { self = .one(small) } else { self = .many([id]) }
        case .one(let first):
            self = .many([NodeID(Int(first)), id])
        case .many(var a):
            self = .none // the array is uniquely held while it grows
            a.append(id)
            self = .many(a)
        }
    }
}

/// Node records in fixed-size chunks, by slot: growth never copies old records, and chunks
/// whose nodes were all dropped by retention go back to `pool` (as all do when the table is
/// freed). The chunks are raw allocations, so reaching a record costs no reference counting
/// (the hot paths touch one per event). Owned by one `Stripe`, which frees it
/// (`deallocate`); never copied elsewhere.
struct NodeTable {
    static let shift = 10
    static let chunkSize = 1 << shift

    struct Chunk {
        /// `chunkSize` records, the first ones initialized; nil once freed.
        var base: UnsafeMutablePointer<NodeRecord>?
        /// Records not dropped yet.
        var live: Int
        /// When each record's node began executing, then (from `chunkSize` on) when it
        /// settled (NaN: not kept), made on the first time kept in the chunk: only a graph
        /// that keeps start times has them.
        var starts: UnsafeMutablePointer<Double>? = nil
    }

    /// Where chunks come from and go back to.
    let pool: NodeChunkPool
    private var chunks: UnsafeMutablePointer<Chunk>?
    private var chunkCapacity = 0
    private(set) var count = 0
    /// Records not dropped (`count` counts every slot ever used): what a capture copies.
    private(set) var liveCount = 0
    /// Failure messages by slot, kept aside because few nodes have one.
    var messages: [Int: String] = [:]
    /// `ref` node -> the shared node it stands for, kept aside because few nodes are refs.
    var refs: [Int: Int] = [:]
    /// Whether any record has a start time kept (`setStart`).
    private(set) var hasStarts = false

    init(pool: NodeChunkPool = .shared) { self.pool = pool }

    private var chunkCount: Int { (count + Self.chunkSize - 1) >> Self.shift }

    /// Records initialized in chunk `c`.
    private func filled(_ c: Int) -> Int { min(Self.chunkSize, count - c << Self.shift) }

    /// The record in `id`; its chunk must exist.
    @inline(__always)
    func pointer(_ id: Int) -> UnsafeMutablePointer<NodeRecord> {
        chunks.unsafelyUnwrapped[id >> Self.shift].base.unsafelyUnwrapped + (id & (Self.chunkSize - 1))
    }

    mutating func append(_ record: consuming NodeRecord) -> Int {
        let id = count
        let c = id >> Self.shift
        if id & (Self.chunkSize - 1) == 0 {
            if c == chunkCapacity { grow() }
            (chunks.unsafelyUnwrapped + c).initialize(to: Chunk(base: pool.take(), live: 0))
        }
        let chunk = chunks.unsafelyUnwrapped + c
        (chunk.pointee.base.unsafelyUnwrapped + (id & (Self.chunkSize - 1))).initialize(to: record)
        chunk.pointee.live += 1
        count += 1
        liveCount += 1
        return id
    }

    private mutating func grow() {
        let capacity = max(4, chunkCapacity * 2)
        let new = UnsafeMutablePointer<Chunk>.allocate(capacity: capacity)
        if let old = chunks {
            new.moveInitialize(from: old, count: chunkCapacity)
            old.deallocate()
        }
        chunks = new
        chunkCapacity = capacity
    }

    func contains(_ id: Int) -> Bool {
        guard id >= 0, id < count, let base = chunks.unsafelyUnwrapped[id >> Self.shift].base else { return false }
        return !base[id & (Self.chunkSize - 1)].dropped
    }

    /// Access to a live record; callers check `contains` first.
    subscript(id: Int) -> NodeRecord {
        // `_read` so that reading one field does not copy the whole record.
        _read { yield pointer(id).pointee }
        nonmutating _modify { yield &pointer(id).pointee }
    }

    /// Marks a record dropped; frees its chunk when every record in it is gone (then returns
    /// the chunk's number).
    @discardableResult
    mutating func drop(_ id: Int) -> Int? {
        guard contains(id) else { return nil }
        let c = id >> Self.shift
        pointer(id).pointee = NodeRecord(id: -1, kindIndex: 0, dropped: true, weight: 0, name: "")
        messages[id] = nil
        if !refs.isEmpty { refs[id] = nil }
        let chunk = chunks.unsafelyUnwrapped + c
        chunk.pointee.live -= 1
        liveCount -= 1
        guard chunk.pointee.live == 0 && filled(c) == Self.chunkSize, let base = chunk.pointee.base else { return nil }
        base.deinitialize(count: Self.chunkSize)
        pool.give(base)
        chunk.pointee.base = nil
        chunk.pointee.starts?.deallocate()
        chunk.pointee.starts = nil
        return c
    }

    /// When the node in `id` began executing, if kept (the caller checks it is live).
    func start(_ id: Int) -> Double? {
        guard let starts = chunks.unsafelyUnwrapped[id >> Self.shift].starts else { return nil }
        let t = starts[id & (Self.chunkSize - 1)]
        return t.isNaN ? nil : t
    }

    /// When the node in `id` settled, if kept (the caller checks it is live).
    func end(_ id: Int) -> Double? {
        guard let starts = chunks.unsafelyUnwrapped[id >> Self.shift].starts else { return nil }
        let t = starts[Self.chunkSize + (id & (Self.chunkSize - 1))]
        return t.isNaN ? nil : t
    }

    /// Keeps when the node in `id` began executing: a store into its chunk's times (made
    /// on the chunk's first), no hashing, so a served graph pays little per task.
    mutating func setStart(_ id: Int, _ time: Double) {
        times(id)[id & (Self.chunkSize - 1)] = time
    }

    /// Keeps when the node in `id` settled (beside its start).
    mutating func setEnd(_ id: Int, _ time: Double) {
        times(id)[Self.chunkSize + (id & (Self.chunkSize - 1))] = time
    }

    /// The times of `id`'s chunk: starts, then ends; made on the first kept.
    private mutating func times(_ id: Int) -> UnsafeMutablePointer<Double> {
        let chunk = chunks.unsafelyUnwrapped + (id >> Self.shift)
        if chunk.pointee.starts == nil {
            let starts = UnsafeMutablePointer<Double>.allocate(capacity: 2 * Self.chunkSize)
            starts.initialize(repeating: .nan, count: 2 * Self.chunkSize)
            chunk.pointee.starts = starts
            hasStarts = true
        }
        return chunk.pointee.starts.unsafelyUnwrapped
    }

    /// Live slots in ascending order.
    func forEachLive(_ body: (Int, NodeRecord) -> Void) {
        for c in 0..<chunkCount {
            guard let base = chunks.unsafelyUnwrapped[c].base else { continue }
            for i in 0..<filled(c) where !base[i].dropped {
                body(c << Self.shift + i, base[i])
            }
        }
    }

    /// What is wrong with the table, or nil: the structure `append`, `drop` and `setStart`
    /// keep. Each chunk's live count matches its records, a chunk is freed exactly when it
    /// is full and all its records are dropped, side tables name live slots only. O(count):
    /// debug builds check it when a chunk is freed and on every capture (`assertInvariants`),
    /// and the touched chunk's count after each append and drop (`assertChunk`).
    func verifyInvariants() -> String? {
        guard count >= 0, count <= chunkCapacity << Self.shift else {
            return "\(count) records in \(chunkCapacity) chunks"
        }
        guard (chunks == nil) == (chunkCapacity == 0) else { return "chunk array and capacity disagree" }
        var live = 0
        for c in 0..<chunkCount {
            if let problem = verifyChunk(c, counting: true) { return problem }
            if chunks.unsafelyUnwrapped[c].base != nil { live += chunks.unsafelyUnwrapped[c].live }
        }
        if live != liveCount { return "\(liveCount) live records counted, \(live) held" }
        if let slot = messages.keys.first(where: { !contains($0) }) { return "a message for slot \(slot), not live" }
        if let slot = refs.keys.first(where: { !contains($0) }) { return "a ref for slot \(slot), not live" }
        return nil
    }

    /// What is wrong with chunk `c`, or nil (`counting`: its live records counted, O(chunk)).
    private func verifyChunk(_ c: Int, counting: Bool) -> String? {
        let chunk = chunks.unsafelyUnwrapped[c]
        guard let base = chunk.base else {
            if filled(c) != Self.chunkSize { return "chunk \(c) freed before it was full" }
            if chunk.starts != nil { return "freed chunk \(c) keeps start times" }
            return nil
        }
        if chunk.live < 0 || chunk.live > filled(c) { return "chunk \(c) counts \(chunk.live) of \(filled(c)) live" }
        if chunk.live == 0 && filled(c) == Self.chunkSize { return "chunk \(c) is full, all dropped, not freed" }
        if chunk.starts != nil && !hasStarts { return "chunk \(c) keeps start times the table does not know of" }
        if counting {
            var live = 0
            for i in 0..<filled(c) where !base[i].dropped { live += 1 }
            if live != chunk.live { return "chunk \(c) counts \(chunk.live) live records, holds \(live)" }
        }
        return nil
    }

    /// Asserts `verifyInvariants()` (debug builds; nothing in release).
    @inline(__always)
    func assertInvariants(file: StaticString = #file, line: UInt = #line) {
        debugOnly {
            if let problem = verifyInvariants() { assertionFailure("NodeTable: \(problem)", file: file, line: line) }
        }
    }

    /// Asserts (debug builds) the counts of the chunk holding `slot`: O(1), after each change.
    @inline(__always)
    func assertChunk(of slot: Int, file: StaticString = #file, line: UInt = #line) {
        debugOnly {
            guard slot >= 0, slot < count else { return }
            if let problem = verifyChunk(slot >> Self.shift, counting: false) {
                assertionFailure("NodeTable: \(problem)", file: file, line: line)
            }
        }
    }

    /// Frees every record and chunk (the owning stripe's deinit).
    mutating func deallocate() {
        guard let chunks else { return }
        for c in 0..<chunkCount {
            chunks[c].starts?.deallocate()
            guard let base = chunks[c].base else { continue }
            base.deinitialize(count: filled(c))
            pool.give(base)
        }
        chunks.deinitialize(count: chunkCount)
        chunks.deallocate()
        self.chunks = nil
        chunkCapacity = 0
        count = 0
    }
}

extension NodeTable {
    @inline(__always)
    func modify(_ id: Int, _ body: (inout NodeRecord) -> Void) {
        body(&pointer(id).pointee)
    }
}
