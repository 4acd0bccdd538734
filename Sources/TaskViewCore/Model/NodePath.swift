/// A node's path of names from its root down (`release/build/core`): how a node is matched
/// across runs (the ETA history, and what compares runs). The one place that defines it.
///
/// Each component is the node's name with `\`, `/` and `#` escaped by a `\`, and `#K` added
/// for the K-th sibling (K ≥ 2) of the same name, in the order the siblings were added (the
/// roots in creation order), so `tests/item#2` is the second `item` under `tests`. A
/// restarted row counts with its newest attempt (`rows(in:)`); the path is the row's.
package enum NodePath {
    /// The text of one component: `name` escaped, with `#ordinal` when `ordinal` > 1.
    package static func component(_ name: String, ordinal: Int) -> String {
        var out = ""
        out.reserveCapacity(name.utf8.count + 2)
        for c in name.unicodeScalars {
            if c == "\\" || c == "/" || c == "#" { out.unicodeScalars.append("\\") }
            out.unicodeScalars.append(c)
        }
        return ordinal > 1 ? out + "#\(ordinal)" : out
    }

    /// The components of a path's text: each name unescaped, with its ordinal (1 without
    /// `#K`).
    package static func components(_ path: String) -> [(name: String, ordinal: Int)] {
        var out: [(name: String, ordinal: Int)] = []
        var name = ""
        var ordinal: String?
        var escaped = false
        func finish() {
            out.append((name, ordinal.flatMap { Int($0) } ?? 1))
            name = ""
            ordinal = nil
        }
        for c in path.unicodeScalars {
            if escaped {
                name.unicodeScalars.append(c)
                escaped = false
            } else if c == "\\" {
                escaped = true
            } else if c == "/" {
                finish()
            } else if c == "#" {
                ordinal = ""
            } else if ordinal != nil {
                ordinal!.unicodeScalars.append(c)
            } else {
                name.unicodeScalars.append(c)
            }
        }
        finish()
        return out
    }

    /// The path of node `id` (a row, or any node: an attempt's path runs through the node
    /// that holds it). Costs the node's depth times its siblings'; `rows(in:)` gives every
    /// row's path in one pass.
    package static func of(_ id: Int, in tree: TreeModel) -> String {
        var parts: [String] = []
        var i = id
        while i >= 0 && tree.contains(i) && parts.count < 4096 {
            let n = tree[i]
            let siblings = n.parent >= 0 ? tree[Int(n.parent)].children.map(Int.init) : roots(of: tree)
            var ordinal = 1
            for s in siblings {
                if s == i { break }
                if tree.contains(s) && tree[s].name == n.name { ordinal += 1 }
            }
            // A root holding attempts is no row's sibling.
            parts.append(component(n.name, ordinal: siblings.contains(i) ? ordinal : 1))
            i = Int(n.parent)
        }
        return parts.reversed().joined(separator: "/")
    }

    /// Every row of `tree` with its path, parents before children, siblings in order: the
    /// nodes drawn as rows (not the attempts restarts drew in them, nor what holds those).
    package static func rows(in tree: TreeModel) -> [(id: Int, path: String)] {
        var out: [(id: Int, path: String)] = []
        out.reserveCapacity(tree.liveCount)
        var stack: [(id: Int, path: String)] = []
        func push(_ ids: [Int], under prefix: String) {
            var seen: [String: Int] = [:]
            var level: [(id: Int, path: String)] = []
            for id in ids where tree.contains(id) {
                let name = tree[id].name
                let ordinal = (seen[name] ?? 0) + 1
                seen[name] = ordinal
                level.append((id, prefix + component(name, ordinal: ordinal)))
            }
            stack.append(contentsOf: level.reversed())
        }
        push(roots(of: tree), under: "")
        while let (id, path) = stack.popLast() {
            out.append((id, path))
            push(tree[id].children.map(Int.init), under: path + "/")
        }
        return out
    }

    /// The roots in creation order, without those that hold restarts' attempts.
    static func roots(of tree: TreeModel) -> [Int] {
        var out: [Int] = []
        tree.forEachRoot {
            if !tree.hiddenRoots.contains($0) { out.append($0) }
            return true
        }
        return out
    }
}

extension NodePath {
    /// The path of `path`'s parent (nil for a root's): up to its last unescaped `/`.
    package static func parent(of path: String) -> Substring? {
        let u = path.utf8
        var i = u.endIndex
        while i > u.startIndex {
            i = u.index(before: i)
            guard u[i] == UInt8(ascii: "/") else { continue }
            var slashes = 0
            var j = i
            while j > u.startIndex {
                j = u.index(before: j)
                guard u[j] == UInt8(ascii: "\\") else { break }
                slashes += 1
            }
            if slashes % 2 == 0 { return path[..<i] }
        }
        return nil
    }
}
