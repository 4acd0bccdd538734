/// `id` and `needs` in scenario files: the field checks, and
/// the whole-file check run before anything starts: unknown ids, duplicates, and cycles,
/// the cycle named in order (`cycle: a -> b -> c -> a`).
///
/// A cycle is any set of waits that can never all end, so besides `needs` the check knows
/// what the tree itself makes wait: a node starts after its parent started and ends after
/// its children ended, and in a `sequential` (and a `then`/`recover`) each child starts
/// after the one before it ended. A node needing one of its ancestors or descendants, or a
/// node before it in its own `sequential`, is refused that way too.
package enum ScenarioNeeds {
    /// Whether `text` is a valid id: letters, digits, `-`, `_`, `.` (ASCII), 1 to 128 of them.
    package static func isValidID(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 128
            && text.utf8.allSatisfy { c in
                (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A)
                    || c == 0x2D || c == 0x5F || c == 0x2E
            }
    }

    /// Checks an `id` value.
    static func id(_ text: String, at pos: JSONPosition, label: String, file: String) throws(ScenarioError) -> String {
        guard isValidID(text) else {
            throw ScenarioError(
                file: file, position: pos,
                message:
                    "\(label): \"id\" must be 1 to 128 letters, digits, '-', '_' or '.', not \"\(text.prefix(60))\"")
        }
        return text
    }

    /// Checks a `needs` value: an array of ids (no repeats).
    static func needs(
        _ value: JSONNode, label: String, file: String
    ) throws(ScenarioError) -> ([String], [JSONPosition]) {
        guard case .array(let items) = value.value else {
            throw ScenarioError(
                file: file, position: value.position,
                message: "\(label): \"needs\" must be an array of ids, not \(value.value.typeName)")
        }
        var ids: [String] = []
        var seen = Set<String>() // a node may need 20,000 others: no scan of `ids` per id
        var positions: [JSONPosition] = []
        for item in items {
            guard case .string(let s) = item.value else {
                throw ScenarioError(
                    file: file, position: item.position,
                    message: "\(label): \"needs\" must be an array of ids (found \(item.value.typeName))")
            }
            guard isValidID(s) else {
                throw ScenarioError(
                    file: file, position: item.position,
                    message: "\(label): \"needs\" has \"\(s.prefix(60))\", which is not a valid id")
            }
            guard seen.insert(s).inserted else {
                throw ScenarioError(
                    file: file, position: item.position, message: "\(label): \"needs\" names \"\(s)\" twice")
            }
            ids.append(s)
            positions.append(item.position)
        }
        return (ids, positions)
    }

    /// One node of the scenario, flattened in file order (preorder).
    struct Flat {
        let node: ScenarioNode
        let parent: Int
        /// Its index among its parent's children (its JSON path is made from these only for a
        /// message: `path(of:in:)`).
        let index: Int
        /// The builder's path (`0.1`).
        let key: String
        var children: [Int] = []
        /// Inside a `retry` (whose attempts are fresh copies).
        let inRetry: Bool

        /// How a cycle names it: its id, else its name in quotes.
        var shown: String { node.id ?? "\"\(node.name.prefix(60))\"" }
    }

    /// The nodes in file order.
    static func flatten(_ root: ScenarioNode) -> [Flat] {
        var out: [Flat] = []
        var stack: [(ScenarioNode, Int, Int, String, Bool)] = [(root, -1, 0, "0", false)]
        while let (n, parent, index, key, inRetry) = stack.popLast() {
            let me = out.count
            out.append(Flat(node: n, parent: parent, index: index, key: key, inRetry: inRetry))
            if parent >= 0 { out[parent].children.append(me) }
            for (i, c) in n.children.enumerated().reversed() {
                stack.append((c, me, i, key + "." + String(i), inRetry || n.kind == .retry))
            }
        }
        return out
    }

    /// Node `i`'s JSON path in the expanded tree (`$.children[1]`), for messages.
    static func path(of i: Int, in flat: [Flat]) -> String {
        var steps: [Int] = []
        var k = i
        while flat[k].parent >= 0 {
            steps.append(flat[k].index)
            k = flat[k].parent
        }
        return "$" + steps.reversed().map { ".children[\($0)]" }.joined()
    }

    /// How messages name node `i`: `$.children[1] (command "test")`.
    static func label(of i: Int, in flat: [Flat]) -> String {
        let f = flat[i]
        return "\(path(of: i, in: flat)) (\(f.node.kind.rawValue) \"\(f.node.name.prefix(60))\")"
    }

    /// The ids of `scenario`, each with the builder's path of its node (`0.1.2`).
    package static func paths(_ scenario: Scenario) -> [String: String] {
        var out: [String: String] = [:]
        for f in flatten(scenario.root) { if let id = f.node.id { out[id] = f.key } }
        return out
    }

    /// Refuses unknown ids, duplicate ids, `needs` into a `retry`, and cycles.
    package static func check(_ scenario: Scenario, file: String) throws(ScenarioError) {
        let flat = flatten(scenario.root)
        guard flat.contains(where: { $0.node.id != nil || !$0.node.needs.isEmpty }) else { return }
        func fail(_ pos: JSONPosition?, _ message: String) -> ScenarioError {
            ScenarioError(file: file, position: pos, message: message)
        }
        var index: [String: Int] = [:]
        for (i, f) in flat.enumerated() {
            guard let id = f.node.id else { continue }
            if let first = index[id] {
                let at = flat[first].node.idPosition.map { " (first at \($0.line):\($0.column))" } ?? ""
                let hint = f.node.idPosition == flat[first].node.idPosition ? "; \"repeat\" copies its ids" : ""
                throw fail(f.node.idPosition, "\(label(of: i, in: flat)): duplicate id \"\(id)\"\(at)\(hint)")
            }
            index[id] = i
        }
        // Resolved needs: edges[i] = the nodes node i needs, in its order.
        var needs = [[Int]](repeating: [], count: flat.count)
        for (i, f) in flat.enumerated() {
            for (k, id) in f.node.needs.enumerated() {
                let pos = k < f.node.needsPositions.count ? f.node.needsPositions[k] : nil
                guard let j = index[id] else {
                    let known = index.keys.sorted().prefix(10).joined(separator: ", ")
                    throw fail(
                        pos,
                        "\(label(of: i, in: flat)): \"needs\" names unknown id \"\(id)\""
                            + (known.isEmpty ? " (the file has no ids)" : " (known ids: \(known))"))
                }
                if flat[j].inRetry {
                    throw fail(
                        pos,
                        "\(label(of: i, in: flat)): \"needs\" names \"\(id)\", which is inside a retry (each attempt is a "
                            + "fresh copy); need the retry node instead")
                }
                needs[i].append(j)
            }
        }
        if let cycle = findCycle(flat, needs) {
            let names = cycle.map { flat[$0].shown }
            let first = flat[cycle[0]].node
            let k = cycle.count > 1 ? needs[cycle[0]].firstIndex(of: cycle[1]) : nil
            let pos = k.flatMap { $0 < first.needsPositions.count ? first.needsPositions[$0] : nil } ?? first.idPosition
            var message = "\(label(of: cycle[0], in: flat)): \"needs\" makes a cycle: " + cycleText(names)
            if cycle.count == 3, isAncestor(cycle[0], of: cycle[1], flat) || isAncestor(cycle[1], of: cycle[0], flat) {
                message += " (one contains the other)"
            }
            throw fail(pos, message)
        }
    }

    /// At most this many nodes of a cycle are named (a cycle through 10,000 nodes was one
    /// 89 KB line).
    static let namedInCycle = 10

    /// `a -> b -> c -> a`, or for a long cycle its first `namedInCycle` nodes and the count:
    /// `a -> b -> ... -> j -> ... (10,000 nodes in the cycle)`. `names` ends where it began.
    static func cycleText(_ names: [String]) -> String {
        let count = names.count - 1
        guard count > namedInCycle else { return names.joined(separator: " -> ") }
        return names.prefix(namedInCycle).joined(separator: " -> ") + " -> ... (\(grouped(count)) nodes in the cycle)"
    }

    /// `10000` as `10,000`.
    static func grouped(_ n: Int) -> String {
        var digits = String(n)
        var i = digits.count - 3
        while i > 0 {
            digits.insert(",", at: digits.index(digits.startIndex, offsetBy: i))
            i -= 3
        }
        return digits
    }

    static func isAncestor(_ a: Int, of b: Int, _ flat: [Flat]) -> Bool {
        var p = flat[b].parent
        while p >= 0 {
            if p == a { return true }
            p = flat[p].parent
        }
        return false
    }

    /// A cycle of waits, as nodes in order with the first repeated at the end, or nil.
    /// Vertices: `2i` the start of node i, `2i+1` its end; an edge `x -> y` says x waits for y.
    static func findCycle(_ flat: [Flat], _ needs: [[Int]]) -> [Int]? {
        let n = flat.count
        // Sequence predecessors: in a sequential/then/recover, a child starts after the one before.
        var before = [Int](repeating: -1, count: n)
        for f in flat where f.node.kind == .sequential || f.node.kind == .then || f.node.kind == .recover {
            for k in f.children.indices.dropFirst() { before[f.children[k]] = f.children[k - 1] }
        }
        func edges(_ v: Int) -> [Int] {
            let i = v / 2
            if v % 2 == 0 {
                // Start: after the parent's start, the previous sibling's end, every need's end.
                var out = needs[i].map { 2 * $0 + 1 }
                if flat[i].parent >= 0 { out.append(2 * flat[i].parent) }
                if before[i] >= 0 { out.append(2 * before[i] + 1) }
                return out
            }
            // End: after its own start and its children's ends.
            return [2 * i] + flat[i].children.map { 2 * $0 + 1 }
        }
        var color = [UInt8](repeating: 0, count: 2 * n) // 0 new, 1 on the stack, 2 done
        var onPath: [Int] = []
        for s in 0..<(2 * n) where color[s] == 0 {
            var stack: [(v: Int, next: [Int], k: Int)] = [(s, edges(s), 0)]
            color[s] = 1
            onPath = [s]
            while !stack.isEmpty {
                let top = stack.count - 1
                if stack[top].k < stack[top].next.count {
                    let w = stack[top].next[stack[top].k]
                    stack[top].k += 1
                    if color[w] == 1 {
                        let from = onPath.firstIndex(of: w)!
                        return nodesOfCycle(Array(onPath[from...]) + [w], flat)
                    }
                    if color[w] == 0 {
                        color[w] = 1
                        onPath.append(w)
                        stack.append((w, edges(w), 0))
                    }
                } else {
                    color[stack[top].v] = 2
                    onPath.removeLast()
                    stack.removeLast()
                }
            }
        }
        return nil
    }

    /// The nodes along a cycle of vertices, consecutive repeats merged, starting at the
    /// earliest node in file order that has an id (else the earliest), ending where it began.
    static func nodesOfCycle(_ vertices: [Int], _ flat: [Flat]) -> [Int] {
        var ring: [Int] = []
        for v in vertices.dropLast() where ring.last != v / 2 { ring.append(v / 2) }
        if ring.count > 1, ring.first == ring.last { ring.removeLast() }
        let starts = ring.indices.filter { flat[ring[$0]].node.id != nil }
        let start = (starts.isEmpty ? Array(ring.indices) : starts).min { ring[$0] < ring[$1] } ?? 0
        let rotated = Array(ring[start...] + ring[..<start])
        return rotated + [rotated[0]]
    }
}
