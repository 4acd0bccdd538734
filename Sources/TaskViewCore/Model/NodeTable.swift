/// `TreeModel`'s nodes by id: an array while ids stay dense (every access an index, as
/// before), and a dictionary for ids far beyond the nodes present, so a log or a socket
/// naming node 16,777,215 costs one entry, not sixteen million.
public struct NodeTable: Sendable {
    private var dense: [TreeModel.Node] = []
    private var far: [Int: TreeModel.Node] = [:]
    private var farMax = -1
    /// At most the smallest far id (the array's growth moves far ids it reaches).
    private var farMin = Int.max
    /// Ids made room for (`ensure` calls that added a slot): the array may only grow to
    /// about twice this, so a ladder of ids (4,095, 12,286, 28,668, ...) cannot double it
    /// per node.
    private var ensured = 0
    private static let absent = TreeModel.Node()

    init() {}

    /// One past the largest id ever stored (ids below may be absent: `exists` is false).
    public var count: Int { Swift.max(dense.count, farMax + 1) }

    /// Slots actually held (tests: memory follows the nodes, not the ids).
    var storedCount: Int { dense.count + far.count }

    /// Ids of the slots held, ascending: every node present is among them (absent ones
    /// too: check `exists`). A pass over the nodes walks these, never `0..<count`, which a
    /// single huge id makes billions long.
    public var ids: IDs { IDs(denseCount: dense.count, far: far.isEmpty ? [] : far.keys.sorted()) }

    /// The ids of `NodeTable.ids`: the array's indices, then the far ids in order.
    public struct IDs: Sequence, Sendable {
        let denseCount: Int
        let far: [Int]

        public func makeIterator() -> Iterator { Iterator(ids: self) }

        public struct Iterator: IteratorProtocol {
            let ids: IDs
            var k = 0

            public mutating func next() -> Int? {
                defer { k += 1 }
                if k < ids.denseCount { return k }
                let f = k - ids.denseCount
                return f < ids.far.count ? ids.far[f] : nil
            }
        }
    }

    /// Ids below this are held in the array (filter masks size themselves by it).
    var denseCount: Int { dense.count }

    public subscript(_ id: Int) -> TreeModel.Node {
        // Borrowed, not copied: `nodes[i].state` must not retain and release every string
        // and array of the node (a third of the time of absorbing an attach snapshot).
        _read {
            if id < dense.count {
                yield dense[id]
            } else if far.isEmpty {
                yield Self.absent
            } else {
                yield far[id] ?? Self.absent
            }
        }
        _modify {
            if id < dense.count {
                yield &dense[id]
            } else {
                var node = far[id] ?? Self.absent
                yield &node
                far[id] = node.exists ? node : nil
            }
        }
        set {
            if id < dense.count { dense[id] = newValue } else { far[id] = newValue.exists ? newValue : nil }
        }
    }

    /// `body` on node `id`, borrowed (absent: an absent node). The hot paths use this, not
    /// the subscript: the subscript's coroutine is called out of line and allocates its
    /// frame on the heap, a malloc and a free per `nodes[i].field` of every event absorbed.
    @inline(__always)
    func read<R>(_ id: Int, _ body: (TreeModel.Node) -> R) -> R {
        id >= 0 && id < dense.count ? body(dense[id]) : body(self[id])
    }

    /// `body` on node `id`, in place (see `read`).
    @inline(__always)
    mutating func update<R>(_ id: Int, _ body: (inout TreeModel.Node) -> R) -> R {
        id >= 0 && id < dense.count ? body(&dense[id]) : body(&self[id])
    }

    /// Makes room for `id`: the array grows while ids stay dense; others go to the dictionary.
    mutating func ensure(_ id: Int) {
        guard id >= dense.count else { return }
        ensured += 1
        if id < 2 * ensured + 4096 {
            // Plain appends: the array doubles its capacity by itself.
            while dense.count <= id { dense.append(Self.absent) }
            if farMin < dense.count {
                for (k, v) in far where k < dense.count {
                    dense[k] = v
                    far[k] = nil
                }
                farMin = far.keys.min() ?? .max
            }
        } else {
            farMax = Swift.max(farMax, id)
            farMin = Swift.min(farMin, id)
        }
    }
}
