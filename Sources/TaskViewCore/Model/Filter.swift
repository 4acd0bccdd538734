/// Which rows a name filter keeps: rows whose name contains the text (ignoring case) and
/// their ancestors. Recomputed only when the text or the tree's structure changed.
struct FilterCache: Sendable {
    var text = ""
    var version: UInt64 = .max
    var frozen = false
    var mask: [Bool]?

    mutating func refresh(tree: TreeModel, view: ViewState, frozen isFrozen: Bool) {
        if view.filter.isEmpty {
            mask = nil
            text = ""
            return
        }
        if text == view.filter && version == tree.structureVersion && frozen == isFrozen && mask != nil {
            return
        }
        text = view.filter
        version = tree.structureVersion
        frozen = isFrozen
        let needle = Array(view.filter.lowercased().unicodeScalars)
        var m = [Bool](repeating: false, count: tree.nodes.count)
        let shape = DisplayTree(tree: tree, view: view, mask: nil)
        for i in tree.nodes.indices where tree.nodes[i].exists && !m[i] && !shape.isFolded(i) {
            let name = tree.nodes[shape.content(i)].name
            guard FilterCache.contains(name, needle) else { continue }
            var x = i
            while x >= 0 && !m[x] {
                m[x] = true
                x = shape.parent(x)
            }
        }
        mask = m
    }

    static func contains(_ haystack: String, _ needle: [Unicode.Scalar]) -> Bool {
        if needle.isEmpty { return true }
        let hay = Array(haystack.lowercased().unicodeScalars)
        guard hay.count >= needle.count else { return false }
        for start in 0...(hay.count - needle.count) {
            var k = 0
            while k < needle.count && hay[start + k] == needle[k] { k += 1 }
            if k == needle.count { return true }
        }
        return false
    }
}

extension DashboardModel {
    /// Recomputes derived data (filter visibility) after the tree or the view changed.
    public mutating func refreshDerived() {
        filterCache.refresh(tree: shown, view: view, frozen: frozen != nil)
    }

    /// The navigable tree as drawn now. Call `refreshDerived()` first after changes.
    public func displayTree() -> DisplayTree {
        DisplayTree(tree: shown, view: view, mask: view.filter.isEmpty ? nil : filterCache.mask)
    }

    /// Keeps the selection on a visible row: the nearest visible ancestor, else the first
    /// row. Cheap when the selection is already visible.
    public mutating func fixSelection() {
        refreshDerived()
        let d = displayTree()
        let sel = view.selection
        if sel >= 0 && d.isVisible(sel) { return }
        if sel >= 0 && d.tree.contains(sel) {
            var x = sel
            while x >= 0 && !d.isVisible(x) {
                let p = Int(d.tree.nodes[x].parent)
                x = p >= 0 && d.tree.contains(p) ? p : -1
            }
            if x >= 0 { view.selection = x; return }
        }
        view.selection = d.first() ?? -1
    }

    /// The node of the first tree row for a tree area `rows` high, keeping the selection
    /// visible with as little scrolling as possible. O(rows + depth).
    public func topRow(rows: Int) -> Int? {
        let d = displayTree()
        let sel = view.selection
        guard rows > 0, sel >= 0, d.isVisible(sel) else {
            if view.top >= 0 && d.isVisible(view.top) { return view.top }
            return d.first()
        }
        guard let top = view.top >= 0 && d.isVisible(view.top) ? view.top : d.first() else { return sel }
        if top == sel { return sel }
        // Is the selection within `rows` rows below top?
        var x = top
        for _ in 1..<max(rows, 1) {
            guard let n = d.next(x) else { break }
            x = n
            if x == sel { return top }
        }
        if d.precedes(sel, top) { return sel }
        // Selection is below the window: put it on the last row.
        var y = sel
        for _ in 1..<max(rows, 1) {
            guard let p = d.prev(y) else { break }
            y = p
        }
        return y
    }
}
