/// Which rows a name filter keeps: rows whose name contains the text (ignoring case) and
/// their ancestors; with `filterWide` (Tab in the prompt) also rows whose info text or error
/// message contains it. Recomputed only when the text or the tree's structure changed (wide:
/// when any event arrived, since info texts change with progress).
package struct FilterCache: Sendable {
    package var text = ""
    package var wide = false
    package var version: UInt64 = .max
    package var frozen = false
    package var mask: FilterMask?

    /// Whether `mask` is the one for this tree, view and pause state.
    package func isCurrent(tree: TreeModel, view: ViewState, frozen isFrozen: Bool) -> Bool {
        view.filter.isEmpty
            || (mask != nil && text == view.filter && wide == view.filterWide
                && version == Self.version(tree, wide: view.filterWide) && frozen == isFrozen)
    }

    /// What must not change for a mask to stay current.
    package static func version(_ tree: TreeModel, wide: Bool) -> UInt64 {
        wide ? tree.sequence &+ tree.structureVersion &* 0x9E37_79B9 : tree.structureVersion
    }

    package mutating func refresh(tree: TreeModel, view: ViewState, frozen isFrozen: Bool) {
        if view.filter.isEmpty {
            mask = nil
            text = ""
            return
        }
        if isCurrent(tree: tree, view: view, frozen: isFrozen) { return }
        text = view.filter
        wide = view.filterWide
        version = Self.version(tree, wide: view.filterWide)
        frozen = isFrozen
        mask = Self.mask(tree: tree, view: view)
    }

    /// The rows `view.filter` keeps (nil for no filter). O(nodes).
    package static func mask(tree: TreeModel, view: ViewState) -> FilterMask? {
        if view.filter.isEmpty { return nil }
        let needle = Array(view.filter.lowercased().unicodeScalars)
        var m = FilterMask(denseRange: tree.nodes.denseRange)
        let shape = DisplayTree(tree: tree, view: view, mask: nil)
        for i in tree.nodes.ids where tree.nodes[i].exists && !m[i] && !shape.isFolded(i) {
            let c = shape.content(i)
            let name = tree.nodes[c].name
            guard
                FilterCache.contains(name, needle)
                    || (view.filterWide
                        && (tree.nodes[c].info.map { FilterCache.contains($0, needle) } ?? false
                            || tree.nodes[c].message.map { FilterCache.contains($0, needle) } ?? false))
            else { continue }
            var x = RowIndex(i)
            while x != .none && !m[x.rawValue] {
                m.insert(x.rawValue)
                x = shape.parent(x)
            }
        }
        return m
    }

    package static func contains(_ haystack: String, _ needle: [Unicode.Scalar]) -> Bool {
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

/// The rows a filter keeps, by raw id: a flag per id of the node table's array, and a set
/// for the ids beyond it (so a huge id costs one entry, not a flag per smaller id).
package struct FilterMask: Sendable {
    private var dense: [Bool]
    /// The id of `dense[0]`.
    private let base: Int
    private var far: Set<Int> = []

    package init(denseRange: Range<Int>) {
        base = denseRange.lowerBound
        dense = [Bool](repeating: false, count: denseRange.count)
    }

    /// Whether `id` passes the filter.
    package subscript(_ id: Int) -> Bool {
        let k = id &- base
        if k >= 0 && k < dense.count { return dense[k] }
        return !far.isEmpty && far.contains(id)
    }

    package mutating func insert(_ id: Int) {
        let k = id &- base
        if k >= 0 && k < dense.count { dense[k] = true } else { far.insert(id) }
    }

    /// Slots held (tests: memory follows the nodes, not the ids).
    package var storedCount: Int { dense.count + far.count }
}

extension DashboardModel {
    /// Stores the filter visibility for the current tree and view, so that the following
    /// `displayTree()` calls reuse it. Only saves work: `displayTree()` is always current.
    public mutating func refreshDerived() {
        filterCache.refresh(tree: shown, view: view, frozen: frozen != nil)
    }

    /// The navigable tree as drawn now. Always current: when the tree's structure or the
    /// filter changed since the last `refreshDerived()`, the filter is worked out afresh.
    package func displayTree() -> DisplayTree {
        let frozen = self.frozen != nil
        let mask =
            filterCache.isCurrent(tree: shown, view: view, frozen: frozen)
            ? filterCache.mask : FilterCache.mask(tree: shown, view: view)
        return DisplayTree(
            tree: shown, view: view, mask: view.filter.isEmpty ? nil : mask, now: pausedClock ?? clockNow)
    }

    /// Keeps the selection on a visible row: the nearest visible ancestor, else the first
    /// row. Cheap when the selection is already visible.
    public mutating func fixSelection() {
        refreshDerived()
        let d = displayTree()
        let sel = view.selection
        if sel != .none && d.isVisible(sel) { return }
        if sel != .none && d.tree.contains(sel.rawValue) {
            var x = sel
            while x != .none && !d.isVisible(x) {
                let p = Int(d.tree.nodes[x.rawValue].parent)
                x = p >= 0 && d.tree.contains(p) ? RowIndex(p) : .none
            }
            if x != .none {
                view.selection = x
                return
            }
        }
        view.selection = d.first() ?? RowIndex.none
    }

    /// The node of the first tree row for a tree area `rows` high, keeping the selection
    /// visible with as little scrolling as possible. O(rows + depth).
    package func topRow(rows: Int) -> RowIndex? {
        topRow(rows: rows, in: displayTree())
    }

    /// `topRow(rows:)` on the display tree `d` the caller already has.
    package func topRow(rows: Int, in d: DisplayTree) -> RowIndex? {
        let sel = view.selection
        guard rows > 0, sel != .none, d.isVisible(sel) else {
            if view.top != .none && d.isVisible(view.top) { return view.top }
            return d.first()
        }
        guard let top = view.top != .none && d.isVisible(view.top) ? view.top : d.first() else { return sel }
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
