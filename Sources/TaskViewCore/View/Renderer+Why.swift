import TaskGraph
import TaskGraphProcess

extension Renderer {
    /// The row's why-line (`WhyLine`) for its info column: only when the node has no
    /// progress info of its own (a waiting `after` node's `waiting for` and a command's
    /// `queued` are whys, not progress). A skipped row keeps its reason as it was
    /// (`needs core, which failed`): its glyph says skipped.
    func rowWhy(
        _ tree: TreeModel, shown: Int, node: TreeModel.Node, state: DisplayState, now: Double, history: RunHistory?
    ) -> String? {
        // A leaf doing work of its own (most rows of a big graph): nothing to look up.
        if state == .executing, node.info == nil, node.children.isEmpty, node.kind != NodeKind.scope,
            node.kind != NodeKind.service, node.kind != NodeKind.span, node.kind != NodeKind.ref
        {
            return nil
        }
        switch state {
        case .executing, .notExecuted:
            if let info = node.info, info != CommandSlots.queuedInfo,
                !(node.kind == NodeKind.after && info.hasPrefix("waiting for "))
            {
                return nil
            }
        default:
            return nil
        }
        return WhyLine.of(shown, in: tree, now: now, history: history)?.text
    }

    /// The detail pane's `Why: waiting for test ← waiting for core ← core is running ...`
    /// for node `n` (none when it waits for nothing).
    func whyLines(_ tree: TreeModel, node n: Int, now: Double, history: RunHistory?) -> [String] {
        let steps = WhyLine.chain(n, in: tree, now: now, history: history)
        guard !steps.isEmpty else { return [] }
        return ["Why: " + clean(steps.joined(separator: glyphs.isASCII ? " <- " : " ← "))]
    }
}
