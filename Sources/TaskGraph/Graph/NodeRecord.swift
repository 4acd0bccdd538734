/// What the graph keeps of one node. Lives in `Graph.table`, guarded by the graph's lock.
struct NodeRecord {
    var kindIndex: UInt8
    var state: TaskState = .notExecuted
    var failed = false
    var dropped = false
    var parent: Int = -1
    var weight: Double
    var fraction: Double = 0
    var name: String
    var info: String?
    var children: [NodeID] = []
    /// Strong while executing: an executing task lives until it settles.
    var retained: AnyGraphTask?

    var kind: String { NodeKind.all[Int(kindIndex)] }

    init(kindIndex: UInt8, dropped: Bool = false, parent: Int = -1, weight: Double, name: String) {
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

/// Node records in fixed-size chunks: growth never copies old records, and chunks whose
/// nodes were all dropped by retention are freed.
struct NodeTable {
    static let shift = 10
    static let chunkSize = 1 << shift

    final class Chunk {
        @exclusivity(unchecked) var records: [NodeRecord] = []
        @exclusivity(unchecked) var live = 0
        init() { records.reserveCapacity(NodeTable.chunkSize) }
    }

    private(set) var chunks: [Chunk?] = []
    private(set) var count = 0
    /// Failure messages, kept aside because few nodes have one.
    var messages: [Int: String] = [:]
    /// `ref` node -> the shared node it stands for, kept aside because few nodes are refs.
    var refs: [Int: Int] = [:]

    mutating func append(_ record: consuming NodeRecord) -> Int {
        let id = count
        if id & (Self.chunkSize - 1) == 0 { chunks.append(Chunk()) }
        let chunk = chunks[id >> Self.shift]!
        chunk.records.append(record)
        chunk.live += 1
        count += 1
        return id
    }

    func contains(_ id: Int) -> Bool {
        guard id >= 0, id < count, let chunk = chunks[id >> Self.shift] else { return false }
        return !chunk.records[id & (Self.chunkSize - 1)].dropped
    }

    /// Access to a live record; callers check `contains` first.
    subscript(id: Int) -> NodeRecord {
        // `_read` so that reading one field does not copy the whole record.
        _read { yield chunks[id >> Self.shift]!.records[id & (Self.chunkSize - 1)] }
        nonmutating _modify {
            let chunk = chunks[id >> Self.shift]!
            yield &chunk.records[id & (Self.chunkSize - 1)]
        }
    }

    /// Marks a record dropped; frees its chunk when every record in it is gone.
    mutating func drop(_ id: Int) {
        guard contains(id) else { return }
        let c = id >> Self.shift
        let chunk = chunks[c]!
        chunk.records[id & (Self.chunkSize - 1)] = NodeRecord(kindIndex: 0, dropped: true, weight: 0, name: "")
        messages[id] = nil
        if !refs.isEmpty { refs[id] = nil }
        chunk.live -= 1
        if chunk.live == 0 && chunk.records.count == Self.chunkSize { chunks[c] = nil }
    }

    /// Live ids in ascending order.
    func forEachLive(_ body: (Int, NodeRecord) -> Void) {
        for (c, chunk) in chunks.enumerated() {
            guard let chunk else { continue }
            for (i, r) in chunk.records.enumerated() where !r.dropped {
                body(c << Self.shift + i, r)
            }
        }
    }
}
