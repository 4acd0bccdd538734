extension RecorderModel {
    /// What is wrong with the model's chunks, or nil: the window starts and ends with a chunk
    /// (freed chunks inside it are nil), each chunk's live count matches its live flags and
    /// they add up to `liveCount`, and each name slot points into the chunk's names.
    /// O(window): debug builds check it when a chunk is freed and before each periodic
    /// snapshot of a recorder (`assertInvariants`), never per event.
    func verifyInvariants() -> String? {
        if let first = chunks.first, first == nil { return "the window starts with a freed chunk" }
        if let last = chunks.last, last == nil { return "the window ends with a freed chunk" }
        var total = 0
        for (i, slot) in chunks.enumerated() {
            guard let c = slot else { continue }
            let ci = base + i
            var live = 0
            for k in 0..<RecorderModel.chunkSize {
                if c.flags[k] & RecorderModel.liveBit != 0 { live += 1 }
                let name = c.nameSlots[k]
                if name != RecorderModel.noName && Int(name) >= c.names.count {
                    return "chunk \(ci): node \(k) names slot \(name) of \(c.names.count)"
                }
            }
            if live != c.live { return "chunk \(ci) counts \(c.live) live nodes, flags say \(live)" }
            total += live
        }
        if total != liveCount { return "\(total) live nodes in the chunks, liveCount \(liveCount)" }
        return nil
    }

    /// Asserts `verifyInvariants()` (debug builds; nothing in release).
    @inline(__always)
    func assertInvariants(file: StaticString = #file, line: UInt = #line) {
        debugOnly {
            if let problem = verifyInvariants() {
                assertionFailure("RecorderModel: \(problem)", file: file, line: line)
            }
        }
    }
}
