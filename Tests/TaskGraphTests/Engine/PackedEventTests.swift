import Testing

@testable import TaskGraph

/// What the recorder and the server queue per event: every change comes back exactly as it
/// went in, packed in one cache line or (rarely) boxed.
@Suite struct PackedEventTests {
    private func roundTrip(_ change: GraphChange, sequence: UInt64 = 7, time: Double = 1.25) -> [GraphEvent] {
        var out: [GraphEvent] = []
        PackedItem(GraphEvent(sequence: sequence, time: time, change: change)).forEachEvent { out.append($0) }
        return out
    }

    private func isPacked(_ change: GraphChange) -> Bool {
        if case .packed = PackedItem(GraphEvent(sequence: 1, time: 0, change: change)) { return true }
        return false
    }

    static let changes: [GraphChange] = [
        .added(id: NodeID(3), kind: NodeKind.concurrent, name: "fetch ✓", weight: 2.5, parent: NodeID(1), index: 4),
        .added(id: NodeID(0), kind: NodeKind.task, name: "", weight: 1, parent: nil, index: nil),
        .added(id: NodeID(9), kind: NodeKind.ref, name: "r", weight: 0, parent: NodeID(2), index: 0),
        .parentSet(id: NodeID(5), parent: NodeID(6), index: 2),
        .weightChanged(id: NodeID(5), weight: 0.125),
        .stateChanged(id: NodeID(5), state: .executing, failed: false, message: nil),
        .stateChanged(id: NodeID(5), state: .completed, failed: true, message: "disk full"),
        .stateChanged(id: NodeID(5), state: .cancelled, failed: false, message: nil),
        .progress(id: NodeID(5), progress: TaskProgress(0.5, info: "half")),
        .progress(id: NodeID(5), progress: TaskProgress(1)),
        .cancelRequested(id: NodeID(5), source: "attach"),
        .ref(id: NodeID(8), of: NodeID(3)),
        .output(id: NodeID(5), stream: .stdout, text: "line"),
        .output(id: NodeID(5), stream: .stderr, text: ""),
    ]

    /// Every built-in kind is found by its bits (no scan), a copy of one made at run time is
    /// found too, and a kind of the caller's own is not mistaken for one: it is boxed and comes
    /// back as it went in.
    @Test func everyKindHasItsOwnCodeAndOthersHaveNone() {
        for (i, kind) in NodeKind.all.enumerated() {
            #expect(PackedEvent.knownKindCode(kind) == UInt8(i), "\(kind)")
            #expect(PackedEvent.kindCode(kind) == UInt8(i), "\(kind)")
            let copy = String(decoding: Array(kind.utf8), as: UTF8.self)
            #expect(PackedEvent.kindCode(copy) == UInt8(i), "\(kind)")
        }
        for other in ["", "tack", "Task", "scopes", "x", "a much longer kind of the caller's own"] {
            #expect(PackedEvent.kindCode(other) == nil, "\(other)")
            let change = GraphChange.added(id: NodeID(1), kind: other, name: "n", weight: 1, parent: nil, index: nil)
            #expect(!isPacked(change))
            #expect(roundTrip(change) == [GraphEvent(sequence: 7, time: 1.25, change: change)])
        }
    }

    @Test(arguments: changes)
    func aChangeComesBackAsItWentIn(_ change: GraphChange) {
        #expect(isPacked(change))
        #expect(roundTrip(change) == [GraphEvent(sequence: 7, time: 1.25, change: change)])
    }

    static let boxed: [GraphChange] = [
        .dropped(ids: [NodeID(1), NodeID(2)]),
        .added(id: NodeID(3), kind: "my own kind", name: "x", weight: 1, parent: nil, index: nil),
        .added(id: NodeID(3), kind: NodeKind.task, name: "x", weight: 1, parent: NodeID(1), index: Int(Int32.max) + 1),
        .parentSet(id: NodeID(5), parent: NodeID(6), index: -1),
        .attempt(id: NodeID(12), of: NodeID(3)),
        .renamed(id: NodeID(4), name: "GET /users/:id"),
    ]

    @Test(arguments: boxed)
    func whatDoesNotFitIsBoxedAndComesBackToo(_ change: GraphChange) {
        #expect(!isPacked(change))
        #expect(roundTrip(change) == [GraphEvent(sequence: 7, time: 1.25, change: change)])
    }

    @Test func aCancelAndItsStateChangeShareOneItem() {
        let first = GraphEvent(sequence: 10, time: 2, change: .cancelRequested(id: NodeID(4), source: "parent"))
        let second = GraphEvent(
            sequence: 11, time: 2, change: .stateChanged(id: NodeID(4), state: .cancelled, failed: false, message: nil))
        var out: [GraphEvent] = []
        PackedItem(pair: first, second)?.forEachEvent { out.append($0) }
        #expect(out == [first, second])
        // A failure message does not fit the pair: queued as two items.
        let failed = GraphEvent(
            sequence: 11, time: 2, change: .stateChanged(id: NodeID(4), state: .completed, failed: true, message: "x"))
        #expect(PackedItem(pair: first, failed) == nil)
    }

    @Test func anItemIsOneCacheLine() {
        #expect(MemoryLayout<PackedItem>.stride == 64)
        #expect(MemoryLayout<GraphRecorder.Entry>.stride == 64)
        #expect(MemoryLayout<SpooledEvent>.stride == 64)
    }
}
