extension OTLPTrace {
    /// Per span (by position in `spans`): the id of the node that names its trace (its topmost
    /// known ancestor, else itself) and of its parent span (its nearest executed ancestor, -1
    /// for none). Each span is resolved once, from the nearest resolved ancestor down, so a
    /// chain 1,000,000 deep costs O(spans) and no recursion (a walk up per span was
    /// O(depth²)).
    struct SpanAncestry {
        var root: [Int]
        var parentSpan: [Int]

        init(spans: [Span], index: [Int: Int]) {
            let unresolved = -2
            let onPath = -3 // a parent link back to it is a cycle (a hostile log): cut there
            var idAt = [Int](repeating: 0, count: spans.count)
            for (id, k) in index { idAt[k] = id }
            root = [Int](repeating: unresolved, count: spans.count)
            parentSpan = [Int](repeating: -1, count: spans.count)
            var path: [Int] = []
            for start in spans.indices where root[start] == unresolved {
                var k = start
                while true { // up to a resolved ancestor or the top
                    path.append(k)
                    root[k] = onPath
                    guard let up = index[spans[k].parent], root[up] == unresolved else { break }
                    k = up
                }
                while let k = path.popLast() {
                    let p = spans[k].parent
                    if let up = index[p], root[up] >= 0 {
                        root[k] = root[up]
                        parentSpan[k] = spans[up].start != nil ? p : parentSpan[up]
                    } else {
                        root[k] = idAt[k]
                    }
                }
            }
        }
    }
}
