/// Sibling lists in the order `s` chose (duration or name), worked out for one frame or
/// one key: per parent, the first time a row under it is visited, so a frame sorts only the
/// sibling lists it draws. Creation order (the default) never comes here.
final class SiblingOrder {
    /// Sorted live children by raw parent id (-1: the roots), and each child's position.
    private var lists: [Int: [Int]] = [:]
    private var positions: [Int: [Int: Int]] = [:]

    /// The sorted list for `parent` (-1: roots).
    func list(_ parent: Int, in d: DisplayTree) -> [Int] {
        if let l = lists[parent] { return l }
        let raw: [Int]
        if parent >= 0 {
            raw = d.tree.nodes[parent].children.map { Int($0) }.filter {
                d.tree.contains($0) && Int(d.tree.nodes[$0].parent) == parent
            }
        } else {
            raw = d.tree.roots
        }
        let sorted = Self.sort(raw, in: d)
        lists[parent] = sorted
        var pos: [Int: Int] = [:]
        pos.reserveCapacity(sorted.count)
        for (k, id) in sorted.enumerated() { pos[id] = k }
        positions[parent] = pos
        return sorted
    }

    /// `i`'s position among its sorted siblings.
    func position(_ i: Int, in d: DisplayTree) -> Int {
        let p = Int(d.tree.nodes[i].parent)
        let parent = p >= 0 && d.tree.contains(p) ? p : -1
        _ = list(parent, in: d)
        return positions[parent]?[i] ?? Int(d.tree.nodes[i].index)
    }

    static func sort(_ ids: [Int], in d: DisplayTree) -> [Int] {
        switch d.view.sort {
        case .creation:
            return ids
        case .duration:
            // Longest first; never started last; ties keep creation order.
            let keyed = ids.enumerated().map { (k, id) -> (Double, Int, Int) in
                let n = d.tree.nodes[id]
                let t = n.startedAt.isNaN ? -Double.infinity : (n.endedAt.isNaN ? d.now : n.endedAt) - n.startedAt
                return (t, k, id)
            }
            return keyed.sorted { $0.0 != $1.0 ? $0.0 > $1.0 : $0.1 < $1.1 }.map(\.2)
        case .name:
            let keyed = ids.enumerated().map { (k, id) in (d.tree.nodes[d.content(id)].name.lowercased(), k, id) }
            return keyed.sorted { $0.0 != $1.0 ? $0.0 < $1.0 : $0.1 < $1.1 }.map(\.2)
        }
    }
}

extension DisplayTree {
    /// `x`'s live children in row order.
    package func children(of x: Int) -> [Int] {
        if isSorted { return order.list(x, in: self) }
        return tree.nodes[x].children.map { Int($0) }.filter { tree.contains($0) && Int(tree.nodes[$0].parent) == x }
    }

    /// The live roots in row order.
    package func rootOrder() -> [Int] {
        isSorted ? order.list(-1, in: self) : tree.roots
    }

    /// The next (`step` 1) or previous (-1) sibling row in sorted order.
    func sortedSibling(_ i: Int, step: Int) -> Int? {
        let p = Int(tree.nodes[i].parent)
        let parent = p >= 0 && tree.contains(p) ? p : -1
        let list = order.list(parent, in: self)
        var k = order.position(i, in: self) + step
        while k >= 0 && k < list.count {
            if passes(list[k]) { return list[k] }
            k += step
        }
        return nil
    }
}
