/// Which never-executed nodes count as skipped (their parent settled, or is itself
/// skipped), for a summary over every node: each answer is kept for the nodes walked to
/// find it, so a never-executed chain 1,000,000 deep costs O(nodes), not a walk to the top
/// per node.
struct SkippedNodes {
    private var known: [Int: Bool] = [:]

    /// Whether the never-executed node `id` is skipped; `state` is nil for an absent node,
    /// `parent` -1 for a root. At most `limit` steps up (the model's node count: a stale
    /// parent link of a dropped node can loop).
    mutating func isSkipped(_ id: Int, limit: Int, state: (Int) -> TaskState?, parent: (Int) -> Int) -> Bool {
        var path: [Int] = []
        var x = id
        var answer = false
        while path.count <= limit {
            if let k = known[x] {
                answer = k
                break
            }
            path.append(x)
            let p = parent(x)
            guard p >= 0, let ps = state(p), ps == .notExecuted else {
                answer = p >= 0 && state(p)?.isSettled == true
                break
            }
            x = p
        }
        for n in path { known[n] = answer }
        return answer
    }
}
