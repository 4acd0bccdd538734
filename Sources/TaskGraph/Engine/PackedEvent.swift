/// A graph event as the library's own keeping observers (recorder, server) queue it on the
/// program's thread: one 64-byte cache line instead of `GraphEvent`'s 96 bytes, and a cancel
/// request with the state change it makes (one step) in one line for both. The program's
/// thread writes every queued event into memory the consumer thread reads next, so the bytes
/// per event are what it costs (W5 with a recorder: about 2 MB per cancel of 10,100 nodes
/// before this). What does not fit (a `dropped` list, a kind of the caller's own, an index
/// past `Int32`) is boxed: rare, and an allocation only then.
struct PackedEvent {
    enum Tag: UInt8 { case added, parentSet, weight, state, progress, cancel, cancelPair, ref, output }

    var sequence: UInt64
    var time: Double
    var id: Int
    /// `added`: the parent (-1: none); `parentSet`: the parent; `ref`: the shared node;
    /// `cancelPair`: the node whose state changed.
    var aux: Int = -1
    /// `added`/`weight`: the weight; `progress`: the fraction.
    var value: Double = 0
    /// `added`: the name; `state`: the message; `progress`: the info; `cancel`/`cancelPair`:
    /// the source; `output`: the line.
    var text: String? = nil
    /// `added`/`parentSet`: the index (-1: none).
    var index: Int32 = -1
    var tag: Tag
    /// `added`: the kind's index in `NodeKind.all`; `state`/`cancelPair`: the state;
    /// `output`: the stream.
    var byte: UInt8 = 0
    /// `state`: failed.
    var flag: Bool = false

    final class Box: @unchecked Sendable { // immutable
        let event: GraphEvent
        init(_ event: consuming GraphEvent) { self.event = event }
    }
}

/// What a keeping observer queues: an event packed in one cache line, or (rarely) boxed.
enum PackedItem {
    case packed(PackedEvent)
    case boxed(PackedEvent.Box)

    /// Packs `event` (its strings are moved, not copied). The change is consumed and each
    /// case's payload moved out of it: a switch on the borrowed event copied the strings it
    /// bound and destroyed the event after (about 200 instructions a W1 task, callgrind).
    /// What does not fit is boxed, rebuilt from the moved parts.
    @inline(__always)
    init(_ event: consuming GraphEvent) {
        let sequence = event.sequence
        let time = event.time
        let change = (consume event).change
        switch consume change {
        case .added(let id, let kind, let name, let weight, let parent, let index):
            if let k = PackedEvent.kindCode(kind), let i = PackedEvent.smallIndex(index) {
                self = .packed(
                    PackedEvent(
                        sequence: sequence, time: time, id: id.rawValue, aux: parent?.rawValue ?? -1,
                        value: weight, text: name, index: i, tag: .added, byte: k))
            } else {
                self = .boxed(
                    PackedEvent.Box(
                        GraphEvent(
                            sequence: sequence, time: time,
                            change: .added(
                                id: id, kind: kind, name: name, weight: weight, parent: parent, index: index))))
            }
        case .parentSet(let id, let parent, let index):
            if let i = PackedEvent.smallIndex(index) {
                self = .packed(
                    PackedEvent(
                        sequence: sequence, time: time, id: id.rawValue, aux: parent.rawValue,
                        index: i, tag: .parentSet))
            } else {
                self = .boxed(
                    PackedEvent.Box(
                        GraphEvent(
                            sequence: sequence, time: time,
                            change: .parentSet(id: id, parent: parent, index: index))))
            }
        case .weightChanged(let id, let weight):
            self = .packed(PackedEvent(sequence: sequence, time: time, id: id.rawValue, value: weight, tag: .weight))
        case .stateChanged(let id, let state, let failed, let message):
            self = .packed(
                PackedEvent(
                    sequence: sequence, time: time, id: id.rawValue, text: message, tag: .state,
                    byte: PackedEvent.code(state), flag: failed))
        case .progress(let id, let progress):
            self = .packed(
                PackedEvent(
                    sequence: sequence, time: time, id: id.rawValue, value: progress.fraction,
                    text: progress.info, tag: .progress))
        case .cancelRequested(let id, let source):
            self = .packed(PackedEvent(sequence: sequence, time: time, id: id.rawValue, text: source, tag: .cancel))
        case .ref(let id, let of):
            self = .packed(PackedEvent(sequence: sequence, time: time, id: id.rawValue, aux: of.rawValue, tag: .ref))
        case .output(let id, let stream, let line):
            self = .packed(
                PackedEvent(
                    sequence: sequence, time: time, id: id.rawValue, text: line, tag: .output,
                    byte: stream == .stdout ? 0 : 1))
        case .dropped(let ids):
            self = .boxed(PackedEvent.Box(GraphEvent(sequence: sequence, time: time, change: .dropped(ids: ids))))
        case let rare: // attributes, attempts, renames, and any later kind: boxed whole
            self = .boxed(PackedEvent.Box(GraphEvent(sequence: sequence, time: time, change: rare)))
        }
    }

    /// Packs the two events of one step: a cancel request and the state change it makes in
    /// one item when the change is a plain one (no failure message); nil otherwise.
    @inline(__always)
    init?(pair first: borrowing GraphEvent, _ second: borrowing GraphEvent) {
        guard case .cancelRequested(let id, let source) = first.change,
            case .stateChanged(let changed, let state, let failed, let message) = second.change,
            !failed, message == nil, second.sequence == first.sequence &+ 1
        else { return nil }
        guard second.time == first.time else { return nil }
        self = .packed(
            PackedEvent(
                sequence: first.sequence, time: first.time, id: id.rawValue, aux: changed.rawValue,
                text: source, tag: .cancelPair, byte: PackedEvent.code(state)))
    }

    /// Hands each event to `body`, in order (two for a cancel pair).
    @inline(__always)
    consuming func forEachEvent(_ body: (consuming GraphEvent) -> Void) {
        switch consume self {
        case .packed(let p):
            if p.tag == .cancelPair {
                body(
                    GraphEvent(
                        sequence: p.sequence, time: p.time,
                        change: .cancelRequested(id: NodeID(p.id), source: p.text ?? "")))
                body(
                    GraphEvent(
                        sequence: p.sequence &+ 1, time: p.time,
                        change: .stateChanged(
                            id: NodeID(p.aux), state: PackedEvent.state(p.byte),
                            failed: false, message: nil)))
            } else {
                body(p.intoEvent())
            }
        case .boxed(let box):
            body(box.event)
        }
    }
}

extension PackedEvent {
    /// The event again (not for `cancelPair`, which is two: see `PackedItem.forEachEvent`),
    /// its text moved into it.
    consuming func intoEvent() -> GraphEvent {
        let id = NodeID(self.id)
        let sequence = sequence
        let time = time
        let aux = aux
        let value = value
        let index = index
        let tag = tag
        let byte = byte
        let flag = flag
        let text = (consume self).text
        let change: GraphChange
        switch tag {
        case .added:
            change = .added(
                id: id, kind: NodeKind.all[Int(byte)], name: text ?? "", weight: value,
                parent: aux >= 0 ? NodeID(aux) : nil, index: index >= 0 ? Int(index) : nil)
        case .parentSet: change = .parentSet(id: id, parent: NodeID(aux), index: Int(index))
        case .weight: change = .weightChanged(id: id, weight: value)
        case .state: change = .stateChanged(id: id, state: PackedEvent.state(byte), failed: flag, message: text)
        case .progress: change = .progress(id: id, progress: TaskProgress(value, info: text))
        case .cancel, .cancelPair: change = .cancelRequested(id: id, source: text ?? "")
        case .ref: change = .ref(id: id, of: NodeID(aux))
        case .output: change = .output(id: id, stream: byte == 0 ? .stdout : .stderr, text: text ?? "")
        }
        return GraphEvent(sequence: sequence, time: time, change: change)
    }

    /// `added`/`parentSet`'s index as packed (-1: none); nil when it does not fit (boxed).
    @inline(__always)
    static func smallIndex(_ index: Int?) -> Int32? {
        guard let index else { return -1 }
        guard let small = Int32(exactly: index), small >= 0 else { return nil }
        return small
    }

    static func code(_ state: TaskState) -> UInt8 {
        switch state {
        case .notExecuted: 0
        case .executing: 1
        case .completed: 2
        case .cancelled: 3
        }
    }

    static func state(_ code: UInt8) -> TaskState {
        switch code {
        case 0: .notExecuted
        case 1: .executing
        case 2: .completed
        default: .cancelled
        }
    }

    /// The index of `kind` in `NodeKind.all`; nil for a kind of the caller's own. The graph
    /// passes the very strings of `NodeKind`, whose bits (a short string is stored in the
    /// value itself) are found in one table lookup; any other string is compared with every
    /// kind. (Scanning first compared a `scope` with 17 other kinds, about 370 instructions on
    /// every scope a recorder or a server saw.)
    @inline(__always)
    static func kindCode(_ kind: String) -> UInt8? {
        if let code = knownKindCode(kind) { return code }
        let all = NodeKind.all
        for i in all.indices where all[i] == kind { return UInt8(i) }
        return nil
    }

    /// `kindCode` when `kind` has the very bits of a `NodeKind` string (equal bits are an
    /// equal string, as `==` itself decides first); nil otherwise.
    @inline(__always)
    static func knownKindCode(_ kind: String) -> UInt8? {
        guard MemoryLayout<String>.size == 16 else { return nil }
        let bits = KindBits(kind)
        var slot = bits.slot
        while let code = kindTable[slot].code { // open addressing: the table is never full
            if kindTable[slot].bits == bits { return code }
            slot = (slot + 1) & 63
        }
        return nil
    }

    /// A string's 16 bytes (its whole value on 64-bit systems; elsewhere zero, and
    /// `knownKindCode` does not look).
    struct KindBits: Equatable {
        var low: UInt64 = 0
        var high: UInt64 = 0

        @inline(__always)
        init(_ s: String) {
            guard MemoryLayout<String>.size == 16 else { return }
            withUnsafeBytes(of: s) { raw in
                low = raw.loadUnaligned(as: UInt64.self)
                high = raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self)
            }
        }

        init() {}

        var slot: Int {
            let h = (low &* 0x9E37_79B9_7F4A_7C15 ^ high) &* 0xBF58_476D_1CE4_E5B9
            return Int(truncatingIfNeeded: h >> 58) // 64 slots
        }
    }

    /// `knownKindCode`'s table: each kind in its slot or the next free one after it (64 slots
    /// for 20 kinds: a lookup rarely probes more than one).
    static let kindTable: [(bits: KindBits, code: UInt8?)] = {
        var table = [(bits: KindBits, code: UInt8?)](repeating: (KindBits(), nil), count: 64)
        for (i, kind) in NodeKind.all.enumerated() where i < 48 {
            let bits = KindBits(kind)
            var slot = bits.slot
            while table[slot].code != nil { slot = (slot + 1) & 63 }
            table[slot] = (bits, UInt8(i))
        }
        return table
    }()
}
