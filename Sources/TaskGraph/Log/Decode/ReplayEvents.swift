/// The graph events of a replay log, stored compactly: one fixed-size record per event and
/// one `String` per distinct text (names, kinds, infos, messages, cancel sources). A
/// `GraphEvent` is built on demand when an element is read, without allocating (its strings
/// are shared with the table). `sequence` is the event's 1-based position.
///
/// Reading (`subscript`, `time(at:)`, iteration) is `@inlinable`: the viewer's seek and
/// replay loops run over millions of events from another module, and a call per event that
/// the compiler cannot see into costs them several times the work itself.
public struct ReplayEvents: RandomAccessCollection, Sendable {
    @usableFromInline
    struct Record: Sendable {
        @usableFromInline var time: Double
        /// Weight or fraction.
        @usableFromInline var value: Double
        @usableFromInline var id: Int32
        /// Parent (-1: none), the shared node of a `ref`, message, info, source or output text (-1: none), drop start, or the index in `boxed`.
        @usableFromInline var a: Int32
        /// Child index (-1: none), drop count, or output stream (0 stdout, 1 stderr).
        @usableFromInline var b: Int32
        /// Name text (add).
        @usableFromInline var c: Int32
        /// Kind text (add).
        @usableFromInline var d: Int32
        @usableFromInline var tag: Tag
        @usableFromInline var state: TaskState
        @usableFromInline var failed: Bool
    }

    @usableFromInline
    enum Tag: UInt8, Sendable {
        case add, parent, weight, state, progress, cancel, drop, output, ref, attributes, attempt
        /// A rare change kept whole (`a`: its index in `boxed`): renames, and any kind without a
        /// record of its own.
        case boxed
    }

    @usableFromInline var records: [Record] = []
    @usableFromInline var texts = TextTable()
    @usableFromInline var dropped: [Int32] = []
    /// The changes of `boxed` records.
    @usableFromInline var boxed: [GraphChange] = []

    init() {}

    /// The first event's index (0).
    @inlinable public var startIndex: Int { 0 }
    /// One past the last event's index (the number of events).
    @inlinable public var endIndex: Int { records.count }

    /// The time of event `i` without building it.
    @inlinable
    public func time(at i: Int) -> Double { records[i].time }

    /// Event `i` (0-based; its `sequence` is `i + 1`), built from the compact store. Its time
    /// is the line's `t`, except for a node that began executing before its line could say (a
    /// `state` line with `started`: before the log began, or on an attached program's clock):
    /// then the node's own start, which may be earlier than the events before it (and below
    /// 0). `time(at:)` is always the line's `t`.
    @inlinable
    public subscript(i: Int) -> GraphEvent {
        let r = records[i]
        let time = r.tag == .state && !r.value.isNaN ? r.value : r.time
        return GraphEvent(sequence: UInt64(i + 1), time: time, change: change(r))
    }

    @inlinable
    func text(_ k: Int32) -> String? { k >= 0 ? texts.strings[Int(k)] : nil }

    @inlinable
    func change(_ r: Record) -> GraphChange {
        let id = NodeID(Int(r.id))
        switch r.tag {
        case .add:
            return .added(
                id: id, kind: texts.strings[Int(r.d)], name: texts.strings[Int(r.c)], weight: r.value,
                parent: r.a >= 0 ? NodeID(Int(r.a)) : nil, index: r.b >= 0 ? Int(r.b) : nil)
        case .parent:
            return .parentSet(id: id, parent: NodeID(Int(r.a)), index: Int(r.b))
        case .weight:
            return .weightChanged(id: id, weight: r.value)
        case .state:
            return .stateChanged(id: id, state: r.state, failed: r.failed, message: text(r.a))
        case .progress:
            return .progress(id: id, progress: TaskProgress(r.value, info: text(r.a)))
        case .cancel:
            return .cancelRequested(id: id, source: text(r.a) ?? "")
        case .output:
            return .output(id: id, stream: r.b == 1 ? .stderr : .stdout, text: texts.strings[Int(r.a)])
        case .ref:
            return .ref(id: id, of: NodeID(Int(r.a)))
        case .attempt:
            return .attempt(id: id, of: NodeID(Int(r.a)))
        case .attributes:
            return .attributes(id: id, attributes: NodeAttribute.unpack(texts.strings[Int(r.a)]))
        case .boxed:
            return boxed[Int(r.a)]
        case .drop:
            let start = Int(r.a)
            return .dropped(ids: dropped[start..<start + Int(r.b)].map { NodeID(Int($0)) })
        }
    }

    mutating func reserveCapacity(_ n: Int) { records.reserveCapacity(n) }

    /// Whether any event is an `attempt` (a restart's).
    var containsAttempts: Bool { records.contains { $0.tag == .attempt } }

    @inline(__always)
    private mutating func push(
        _ time: Double, _ tag: Tag, _ id: Int, value: Double = 0, a: Int32 = -1,
        b: Int32 = -1, c: Int32 = -1, d: Int32 = -1, state: TaskState = .notExecuted,
        failed: Bool = false
    ) {
        records.append(
            Record(
                time: time, value: value, id: Int32(truncatingIfNeeded: id), a: a, b: b, c: c, d: d,
                tag: tag, state: state, failed: failed))
    }

    /// An `add` whose kind and name are already in the text table.
    mutating func appendAdd(
        time: Double, id: Int, kind: Int32, name: Int32, weight: Double,
        parent: Int?, index: Int?
    ) {
        push(
            time, .add, id, value: weight, a: parent.map { Int32($0) } ?? -1,
            b: parent == nil ? -1 : Int32(index ?? 0), c: name, d: kind)
    }

    mutating func appendProgress(time: Double, id: Int, fraction: Double, info: Int32) {
        push(time, .progress, id, value: fraction, a: info)
    }

    /// `started`: the node's own time, if before `time` (NaN: at `time`): when an executing
    /// node began, or when a settled one ended (a `state` line's `started` or `ended`).
    mutating func appendState(
        time: Double, id: Int, state: TaskState, failed: Bool, message: Int32, started: Double = .nan
    ) {
        push(time, .state, id, value: started, a: failed ? message : -1, state: state, failed: failed)
    }

    /// Any change (its texts interned); `started` as for `appendState`.
    mutating func append(_ change: GraphChange, time: Double, started: Double = .nan) {
        switch change {
        case .added(let id, let kind, let name, let weight, let parent, let index):
            appendAdd(
                time: time, id: id.rawValue, kind: texts.intern(kind), name: texts.intern(name),
                weight: weight, parent: parent?.rawValue, index: index)
        case .parentSet(let id, let parent, let index):
            push(time, .parent, id.rawValue, a: Int32(parent.rawValue), b: Int32(index))
        case .weightChanged(let id, let weight):
            push(time, .weight, id.rawValue, value: weight)
        case .stateChanged(let id, let state, let failed, let message):
            appendState(
                time: time, id: id.rawValue, state: state, failed: failed,
                message: message.map { texts.intern($0) } ?? -1, started: started)
        case .progress(let id, let progress):
            appendProgress(
                time: time, id: id.rawValue, fraction: progress.fraction,
                info: progress.info.map { texts.intern($0) } ?? -1)
        case .cancelRequested(let id, let source):
            push(time, .cancel, id.rawValue, a: texts.intern(source))
        case .output(let id, let stream, let text):
            push(time, .output, id.rawValue, a: texts.intern(text), b: stream == .stderr ? 1 : 0)
        case .ref(let id, let of):
            push(time, .ref, id.rawValue, a: Int32(truncatingIfNeeded: of.rawValue))
        case .attempt(let id, let of):
            push(time, .attempt, id.rawValue, a: Int32(truncatingIfNeeded: of.rawValue))
        case .attributes(let id, let attributes):
            push(time, .attributes, id.rawValue, a: texts.intern(NodeAttribute.pack(attributes)))
        case .dropped(let ids):
            let start = Int32(dropped.count)
            dropped.append(contentsOf: ids.map { Int32($0.rawValue) })
            push(time, .drop, 0, a: start, b: Int32(ids.count))
        default: // rare kinds (a span's rename) are kept whole: a new kind needs nothing here
            push(time, .boxed, change.nodeID?.rawValue ?? 0, a: Int32(boxed.count))
            boxed.append(change)
        }
    }
}

/// Distinct texts, each stored once: looked up by their UTF-8 bytes (open addressing), so
/// a text read from the log becomes a `String` only the first time it is seen.
@usableFromInline
struct TextTable: Sendable {
    @usableFromInline private(set) var strings: [String] = []
    /// UTF-8 of every string, back to back.
    private var bytes: [UInt8] = []
    private var offsets: [Int] = [0]
    /// Slot → string index + 1 (0: empty); the count is a power of two.
    private var slots: [Int32] = Array(repeating: 0, count: 1024)

    @inline(__always)
    private static func hash(_ p: UnsafeBufferPointer<UInt8>) -> Int {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for c in p { h = (h ^ UInt64(c)) &* 0x100_0000_01b3 }
        return Int(truncatingIfNeeded: h ^ (h >> 29))
    }

    /// The index of the string with these UTF-8 bytes, added when new.
    mutating func intern(_ utf8: UnsafeBufferPointer<UInt8>) -> Int32 {
        let mask = slots.count - 1
        var s = Self.hash(utf8) & mask
        while true {
            let k = Int(slots[s])
            if k == 0 { break }
            let start = offsets[k - 1]
            let count = offsets[k] - start
            if count == utf8.count {
                let same =
                    count == 0
                    || bytes.withUnsafeBufferPointer {
                        memcmpEqual($0.baseAddress! + start, utf8.baseAddress!, count)
                    }
                if same { return Int32(k - 1) }
            }
            s = (s + 1) & mask
        }
        strings.append(String(decoding: utf8, as: UTF8.self))
        bytes.append(contentsOf: utf8)
        offsets.append(bytes.count)
        slots[s] = Int32(strings.count)
        if strings.count * 2 > slots.count { grow() }
        return Int32(strings.count - 1)
    }

    mutating func intern(_ string: String) -> Int32 {
        var string = string
        return string.withUTF8 { intern($0) }
    }

    private mutating func grow() {
        var next = [Int32](repeating: 0, count: slots.count * 2)
        let mask = next.count - 1
        bytes.withUnsafeBufferPointer { all in
            for k in 1...strings.count {
                let start = offsets[k - 1]
                var s = Self.hash(UnsafeBufferPointer(rebasing: all[start..<offsets[k]])) & mask
                while next[s] != 0 { s = (s + 1) & mask }
                next[s] = Int32(k)
            }
        }
        slots = next
    }
}

@inline(__always)
private func memcmpEqual(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, _ n: Int) -> Bool {
    for j in 0..<n where a[j] != b[j] { return false }
    return true
}
