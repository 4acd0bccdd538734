#if canImport(Glibc)
    import Glibc
#endif

/// The fast path of the reader: lines exactly as `GraphRecorder` writes them (keys in its
/// order, no whitespace) are read with fixed byte matches and no per-line field record.
/// Anything else, and any value the generic path would reject, returns false before the
/// parser's state changes, and the line goes through `eventLine`, which has the messages.
extension LogParser {
    /// True when the line was read and applied. Throws only for snapshot lines, whose
    /// checks are shared with the generic path.
    mutating func fastEventLine(_ line: UnsafeBufferPointer<UInt8>) throws -> Bool {
        var s = LineScanner(line)
        guard s.matchLiteral("{\"seq\":"), let seq = s.plainInt(), seq > lastSeq, seq <= Self.maxSeq,
            seq == lastSeq + 1 || lastSeq == 0 || skipBadLines,
            s.matchLiteral(",\"t\":"), let t = s.fastNumber(), t.isFinite, t >= 0, t <= 1e12, t >= lastT,
            s.matchLiteral(",\"ev\":\"")
        else { return false }
        if s.matchLiteral("progress\"") {
            guard pending == nil, s.matchLiteral(",\"id\":"), let id = s.plainInt(), model.contains(id),
                s.matchLiteral(",\"fraction\":"), let fraction = s.fastNumber(), fraction >= 0, fraction <= 1
            else { return false }
            var info: Int32 = -1
            if s.matchLiteral(",\"info\":") {
                guard let k = internedText(&s) else { return false }
                info = k
            }
            guard s.atEnd() else { return false }
            modelStale = true // states and progress are not needed to validate later lines
            log.events.appendProgress(time: t, id: id, fraction: fraction, info: info)
        } else if s.matchLiteral("state\"") {
            guard pending == nil, s.matchLiteral(",\"id\":"), let id = s.plainInt(), model.contains(id),
                s.matchLiteral(",\"state\":\""), let state = s.stateName()
            else { return false }
            var failed = false
            var message: Int32 = -1
            if s.matchLiteral(",\"failed\":true") {
                failed = state == .completed
                if s.matchLiteral(",\"message\":") {
                    guard let k = internedText(&s) else { return false }
                    message = k
                }
            }
            guard s.atEnd() else { return false }
            if !failed { message = -1 }
            modelStale = true
            log.events.appendState(time: t, id: id, state: state, failed: failed, message: message)
        } else if s.matchLiteral("add\"") {
            guard pending == nil, s.matchLiteral(",\"id\":"), let id = s.plainInt(), id <= LogModel.maxID,
                !model.contains(id), s.matchLiteral(",\"kind\":"), let kind = internedKind(&s),
                s.matchLiteral(",\"name\":"), let name = internedText(&s),
                s.matchLiteral(",\"weight\":"), let weight = s.fastNumber(), weight.isFinite, weight >= 0
            else { return false }
            var parent: Int?
            var index: Int?
            if s.matchLiteral(",\"parent\":") {
                guard let p = s.plainInt(), p <= LogModel.maxID, model.contains(p) else { return false }
                parent = p
            }
            if s.matchLiteral(",\"index\":") {
                guard let i = s.plainInt(), i <= LogModel.maxID else { return false }
                index = i
            }
            guard s.atEnd() else { return false }
            let strings = log.events.texts.strings
            model.apply(
                .added(
                    id: NodeID(id), kind: strings[Int(kind)], name: strings[Int(name)], weight: weight,
                    parent: parent.map { NodeID($0) }, index: parent == nil ? nil : (index ?? 0)))
            log.events.appendAdd(
                time: t, id: id, kind: kind, name: name, weight: weight,
                parent: parent, index: index)
        } else if s.matchLiteral("snapshot\"") {
            var f = Fields()
            guard s.matchLiteral(",\"part\":"), let part = s.plainInt(), part >= 1, part <= 1 << 20,
                s.matchLiteral(",\"parts\":"), let parts = s.plainInt(), parts >= 1, parts <= 1 << 20,
                s.matchLiteral(",\"nodes\":"), let nodes = fastSnapshotNodes(&s), s.atEnd()
            else { return false }
            f.seq = seq
            f.t = t
            f.ev = .snapshot
            f.part = part
            f.parts = parts
            f.nodes = nodes
            try apply(f, t: t) // the same checks and messages as the generic path
        } else {
            return false
        }
        lastSeq = seq
        lastT = t
        return true
    }

    @inline(__always)
    func text(_ k: Int32) -> String? { k >= 0 ? log.events.texts.strings[Int(k)] : nil }

    /// A text value (not null, at most 1 MiB) as an index into the log's text table.
    mutating func internedText(_ s: inout LineScanner) -> Int32? {
        let start = s.i
        guard let raw = try? s.rawString() else { return nil }
        if !raw.contains(92) {
            guard raw.count <= Self.maxText else { return nil }
            return log.events.texts.intern(raw)
        }
        s.i = start
        guard let v = try? Self.text(&s) else { return nil }
        return log.events.texts.intern(v)
    }

    /// A node kind (a short string without escapes) as an index into the log's text table.
    mutating func internedKind(_ s: inout LineScanner) -> Int32? {
        guard let raw = try? s.rawString(), raw.count > 0, raw.count <= 64, !raw.contains(92) else { return nil }
        return log.events.texts.intern(raw)
    }

    /// The nodes of a snapshot line in the writer's layout; nil for anything else.
    mutating func fastSnapshotNodes(_ s: inout LineScanner) -> [SnapshotNode]? {
        guard s.matchLiteral("[") else { return nil }
        var out: [SnapshotNode] = []
        if s.matchLiteral("]") { return out }
        out.reserveCapacity(max(16, (s.end - s.i) / 110))
        while true {
            guard s.matchLiteral("{\"id\":"), let id = s.plainInt(), id <= LogModel.maxID,
                s.matchLiteral(",\"kind\":"), let kind = internedKind(&s)
            else { return nil }
            var parent: Int?
            var index: Int?
            if s.matchLiteral(",\"parent\":") {
                guard let p = s.plainInt(), p <= LogModel.maxID else { return nil }
                parent = p
            }
            if s.matchLiteral(",\"index\":") {
                guard let i = s.plainInt(), i <= LogModel.maxID else { return nil }
                index = i
            }
            guard s.matchLiteral(",\"name\":"), let name = internedText(&s),
                s.matchLiteral(",\"weight\":"), let weight = s.fastNumber(), weight.isFinite, weight >= 0,
                s.matchLiteral(",\"state\":\""), let state = s.stateName(),
                s.matchLiteral(",\"failed\":")
            else { return nil }
            let failedFlag: Bool
            if s.matchLiteral("false") {
                failedFlag = false
            } else if s.matchLiteral("true") {
                failedFlag = true
            } else {
                return nil
            }
            guard s.matchLiteral(",\"fraction\":"), let fraction = s.fastNumber(), fraction >= 0, fraction <= 1
            else { return nil }
            var info: Int32 = -1
            var message: Int32 = -1
            if s.matchLiteral(",\"info\":") {
                guard let k = internedText(&s) else { return nil }
                info = k
            }
            if s.matchLiteral(",\"message\":") {
                guard let k = internedText(&s) else { return nil }
                message = k
            }
            guard s.matchLiteral("}") else { return nil }
            var n = LogModel.Node(id: Int32(id), kind: text(kind)!, name: text(name)!, weight: weight)
            n.state = state
            n.failed = failedFlag && state == .completed
            n.fraction = fraction
            n.info = text(info)
            n.message = n.failed ? text(message) : nil
            out.append(SnapshotNode(node: n, parent: parent, index: index))
            if s.matchLiteral(",") { continue }
            guard s.matchLiteral("]") else { return nil }
            return out
        }
    }
}

extension LineScanner {
    /// A plain non-negative integer (no sign, fraction or exponent, at most 15 digits, no
    /// leading zero); nil otherwise.
    @inline(__always)
    mutating func plainInt() -> Int? {
        let start = i
        var v = 0
        while i < end {
            let d = base[i] &- 48
            guard d < 10 else { break }
            v = v &* 10 &+ Int(d)
            i += 1
        }
        let n = i - start
        guard n > 0, n <= 15, n == 1 || base[start] != 48 else { return nil }
        if i < end {
            let c = base[i]
            if c == 46 || c == 101 || c == 69 { return nil }
        }
        return v
    }

    /// A number as `number()` reads it, nil instead of an error.
    @inline(__always)
    mutating func fastNumber() -> Double? {
        guard i < end, base[i] &- 48 < 10 || base[i] == 45 else { return nil }
        return try? number()
    }

    /// `notExecuted"`, `executing"`, `completed"` or `cancelled"`.
    @inline(__always)
    mutating func stateName() -> TaskState? {
        if matchLiteral("executing\"") { return .executing }
        if matchLiteral("completed\"") { return .completed }
        if matchLiteral("cancelled\"") { return .cancelled }
        if matchLiteral("notExecuted\"") { return .notExecuted }
        return nil
    }

    /// Consumes the closing `}` of a line; true when nothing follows it.
    @inline(__always)
    mutating func atEnd() -> Bool {
        matchLiteral("}") && i == end
    }
}
