extension Graph {
    /// Records what node `id` has cost so far (a `usage` event): CPU seconds and peak RSS
    /// bytes. `TaskGraphProcess` reports each command's process tree this way, at most once
    /// a second while it runs and once at its end; a program may report its own nodes'.
    /// Unknown or dropped nodes are ignored.
    public func reportUsage(_ id: NodeID, _ usage: NodeUsage) {
        let raw = id.rawValue
        guard raw >= 0 else { return }
        withAllStripes {
            guard let (s, _) = locateLocked(raw) else { return }
            emit(s, .usage(id: id, usage: usage))
        }
    }
}
