extension ChromeTrace {
    /// Lane assignment for the trace's slices, in O(n log n) for n slices (no walk up the
    /// ancestors of each node). Slices are taken by start time (a parent before its
    /// children at the same start, by tree preorder); each lane keeps a stack of the slices
    /// open in it. A slice goes into its parent's lane when the parent is the innermost slice
    /// still open there (or the lane is empty) and it ends within the parent; otherwise into
    /// a lane where everything has ended (found through a heap keyed by when each lane
    /// empties), else a new lane. So within a lane a slice nests in its parent or overlaps
    /// nothing.
    struct Lanes {
        var lane: [Int: Int] = [:]
        var count = 0

        struct Slice {
            let id: Int
            let parent: Int
            let start: Int
            let end: Int
            let preorder: Int
        }

        static func assign(_ spans: [Int: Span], order: [Int], logEnd: Int) -> Lanes {
            let pre = preorder(spans, order: order)
            var slices: [Slice] = []
            slices.reserveCapacity(spans.count)
            for id in order {
                let s = spans[id]!
                guard let start = s.start else { continue }
                let a = micros(start)
                let b = max(a, s.end.map(micros) ?? logEnd)
                slices.append(Slice(id: id, parent: s.parent, start: a, end: b, preorder: pre[id] ?? 0))
            }
            slices.sort { ($0.start, $0.preorder) < ($1.start, $1.preorder) }

            var result = Lanes()
            result.lane.reserveCapacity(slices.count)
            var stacks: [[(id: Int, end: Int)]] = []
            var empties = MinHeap() // (when the lane's outermost open slice ends, lane)
            func pop(_ l: Int, before t: Int) {
                while let top = stacks[l].last, top.end <= t { stacks[l].removeLast() }
            }
            for s in slices {
                var chosen: Int?
                if let pl = result.lane[s.parent] {
                    pop(pl, before: s.start)
                    if let top = stacks[pl].last {
                        if top.id == s.parent && s.end <= top.end { chosen = pl }
                    } else {
                        chosen = pl
                    }
                }
                while chosen == nil, let (freeAt, l) = empties.peek(), freeAt <= s.start {
                    empties.pop()
                    pop(l, before: s.start)
                    if stacks[l].isEmpty { chosen = l } // else a stale entry: skip it
                }
                let l: Int
                if let chosen {
                    l = chosen
                } else {
                    l = stacks.count
                    stacks.append([])
                }
                if stacks[l].isEmpty { empties.push(s.end, l) }
                stacks[l].append((s.id, s.end))
                result.lane[s.id] = l
            }
            result.count = stacks.count
            return result
        }

        /// Each node's position in a depth-first walk of the tree (roots and children in id
        /// order), iterative so a 100,000-deep chain needs no deep stack.
        static func preorder(_ spans: [Int: Span], order: [Int]) -> [Int: Int] {
            var children: [Int: [Int]] = [:]
            var roots: [Int] = []
            for id in order {
                let p = spans[id]!.parent
                if p >= 0, spans[p] != nil, p != id { children[p, default: []].append(id) } else { roots.append(id) }
            }
            var index: [Int: Int] = [:]
            index.reserveCapacity(spans.count)
            var stack = Array(roots.reversed())
            while let id = stack.popLast() {
                guard index[id] == nil else { continue } // a cycle in a bad log: once is enough
                index[id] = index.count
                if let kids = children[id] { stack.append(contentsOf: kids.reversed()) }
            }
            return index
        }
    }

    /// A binary min-heap of (key, value) pairs, smallest key (then value) first.
    struct MinHeap {
        private var items: [(Int, Int)] = []

        func peek() -> (Int, Int)? { items.first }

        mutating func push(_ key: Int, _ value: Int) {
            items.append((key, value))
            var i = items.count - 1
            while i > 0 {
                let p = (i - 1) / 2
                guard items[i] < items[p] else { break }
                items.swapAt(i, p)
                i = p
            }
        }

        mutating func pop() {
            guard !items.isEmpty else { return }
            items.swapAt(0, items.count - 1)
            items.removeLast()
            var i = 0
            while true {
                let l = 2 * i + 1
                let r = l + 1
                var m = i
                if l < items.count && items[l] < items[m] { m = l }
                if r < items.count && items[r] < items[m] { m = r }
                if m == i { break }
                items.swapAt(i, m)
                i = m
            }
        }
    }
}
