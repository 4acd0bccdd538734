/// Reading a history line back. Fields this version does not know are ignored, so later
/// versions may add some; a line missing a required field, or holding one of the wrong
/// type, is not an entry.
extension HistoryEntry {
    /// The entry `bytes` (one line without its `\n`) holds; nil when it holds none.
    package init?(line bytes: [UInt8]) {
        guard bytes.count <= Self.maxLineBytes, let json = try? JSONParser.parse(bytes),
            case .object(let members) = json.value
        else { return nil }
        let fields = Fields(members)
        guard let start = fields.number("start"), let status = fields.number("status"),
            let list = fields.array("nodes")
        else { return nil }
        var nodes: [Node] = []
        nodes.reserveCapacity(list.count)
        for item in list {
            guard case .object(let m) = item.value else { return nil }
            let f = Fields(m)
            guard let path = f.string("path"), let outcome = f.string("outcome"),
                let attempts = f.number("attempts"), let count = Int(exactly: attempts)
            else { return nil }
            nodes.append(
                Node(
                    path: path, outcome: outcome, seconds: f.number("seconds"), attempts: count,
                    key: f.string("key"), commit: f.string("commit"), dirty: f.bool("dirty")))
        }
        guard let code = Int(exactly: status) else { return nil }
        self.init(
            run: fields.string("run"), start: start, seconds: fields.number("seconds"), status: code, nodes: nodes,
            omitted: fields.number("omitted").flatMap { Int(exactly: $0) } ?? 0)
    }
}

/// An object's members by key.
private struct Fields {
    var values: [String: JSONValue] = [:]

    init(_ members: [JSONMember]) {
        for m in members { values[m.key] = m.value.value }
    }

    func string(_ key: String) -> String? {
        if case .string(let s) = values[key] { return s }
        return nil
    }

    func number(_ key: String) -> Double? {
        if case .number(let d) = values[key] { return d }
        return nil
    }

    func bool(_ key: String) -> Bool? {
        if case .bool(let b) = values[key] { return b }
        return nil
    }

    func array(_ key: String) -> [JSONNode]? {
        if case .array(let a) = values[key] { return a }
        return nil
    }
}
