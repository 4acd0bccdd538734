import TaskGraph
import TaskGraphProcess

/// Why a node is not running work of its own (docs/taskview.md, "Why a node waits"): what it
/// waits for, and the node it waits for first, so views can follow the chain to the first
/// blocker. The one place that decides it: rows, the detail pane's `Why:` and the report's
/// waits (`WhyLine.waits`) all ask here.
///
/// Computed for one node on demand from what the tree holds (looking at its children at
/// most), never by a walk of the whole tree: a frame asks only for its visible rows.
package struct WhyLine: Sendable, Equatable {
    /// What a row and the detail pane say: `waiting for core (running 42s, usually 30s)`.
    package var text: String
    /// The same as a step of a chain, without the details the next step gives
    /// (`waiting for core`).
    package var step: String
    /// The node waited for first, where the chain goes on (nil: the chain ends here).
    package var blocker: Int?

    /// A line whose step is its text.
    package init(_ text: String, step: String? = nil, blocker: Int? = nil) {
        self.text = text
        self.step = step ?? text
        self.blocker = blocker
    }

    /// The attribute a scenario run puts on its root with its `--jobs` (so a replay knows it).
    package static let jobsKey = "taskview.jobs"
    /// Children named by `waiting on N children: a, b, c`.
    static let namedChildren = 3
    /// Steps a chain follows at most.
    static let maxSteps = 16

    /// What node `id` waits for (a row's shown node, adapters included); nil when it runs
    /// work of its own, has settled, or nothing is known.
    package static func of(_ id: Int, in tree: TreeModel, now: Double, history: RunHistory? = nil) -> WhyLine? {
        // An attached program's row is no task: its program's roots say why.
        guard tree.contains(id) else { return nil }
        let n = tree[id]
        guard n.kind != TreeModel.programKind else { return nil }
        switch n.display {
        case .skipped:
            return n.skippedByNeeds ? WhyLine("skipped: " + (n.info ?? "needs a step that did not succeed")) : nil
        case .notExecuted:
            return upstream(id, in: tree)
        case .executing:
            if n.kind == NodeKind.after, let needs = needsWait(id, in: tree, now: now, history: history) {
                return needs
            }
            let c = content(id, in: tree)
            let cn = tree[c]
            if cn.info == CommandSlots.queuedInfo {
                return WhyLine(slotText(c, in: tree))
            }
            if cn.kind == NodeKind.ref, cn.refOf >= 0, tree.contains(Int(cn.refOf)) {
                let of = Int(cn.refOf)
                if !tree[of].state.isSettled { return WhyLine("waiting for " + tree[of].name, blocker: of) }
            }
            if let children = runningChildren(c, in: tree) { return children }
            // Code of its own: a scope's body, a service, a span, a task with subtasks (a group
            // between its children has none: it says nothing).
            if cn.kind == NodeKind.scope || cn.kind == NodeKind.service || cn.kind == NodeKind.span
                || (cn.kind == NodeKind.task && !cn.children.isEmpty)
            {
                return WhyLine("running its own code")
            }
            return nil
        default:
            return nil
        }
    }

    /// The chain from node `id` to the first blocker, one step per node:
    /// `waiting for test`, `waiting for core`, `core is running "make -C core" (pid 4121)`.
    /// Empty when the node waits for nothing.
    package static func chain(_ id: Int, in tree: TreeModel, now: Double, history: RunHistory? = nil) -> [String] {
        guard let first = of(id, in: tree, now: now, history: history) else { return [] }
        guard let next = first.blocker else { return [first.text] }
        var steps = [first.step]
        var seen: Set<Int> = [id]
        var current = next
        while steps.count < maxSteps, seen.insert(current).inserted {
            let name = label(current, in: tree)
            guard let why = of(current, in: tree, now: now, history: history) else {
                steps.append(name + " " + state(current, in: tree, now: now, history: history))
                return steps
            }
            guard let blocker = why.blocker else {
                steps.append(name + " is " + why.text)
                return steps
            }
            steps.append(why.step)
            current = blocker
        }
        return steps
    }

    /// The nodes `chain` passes after `id`, each with the node its row draws (a live source
    /// fetches their commands' details, which the end of the chain names).
    package static func chainNodes(_ id: Int, in tree: TreeModel, now: Double) -> [Int] {
        var out: [Int] = []
        var seen: Set<Int> = [id]
        var next = of(id, in: tree, now: now)?.blocker
        while let current = next, out.count < 2 * maxSteps, seen.insert(current).inserted {
            out.append(current)
            let c = content(current, in: tree)
            if c != current { out.append(c) }
            next = of(current, in: tree, now: now)?.blocker
        }
        return out
    }

    /// How a chain names a node: its scenario `id`, else its name.
    static func label(_ id: Int, in tree: TreeModel) -> String {
        tree.needsMap.ids[id] ?? tree[id].name
    }

    /// The node drawn in `id`'s row: below `map` and `after` adapters with one child.
    static func content(_ id: Int, in tree: TreeModel) -> Int {
        var c = id
        var steps = 0
        while steps < 10_000 {
            let n = tree[c]
            guard n.children.count == 1, n.kind == NodeKind.map || n.kind == NodeKind.after else { break }
            let child = Int(n.children[0])
            guard tree.contains(child) else { break }
            c = child
            steps += 1
        }
        return c
    }

    /// `42s`, `1m05s`: whole seconds, as a why-line says them.
    static func seconds(_ t: Double) -> String {
        let t = t.isFinite ? max(0, t) : 0
        return t < 60 ? String(Int(t)) + "s" : Format.duration(t)
    }

    /// `running 42s, usually 30s`: how long node `id` (a row's node) has run its work.
    static func running(_ id: Int, in tree: TreeModel, now: Double, history: RunHistory?) -> String {
        let c = content(id, in: tree)
        let start = tree.workStart(c) ?? tree[c].startedAt
        var text = "running " + seconds(start.isNaN ? 0 : now - start)
        if let usual = history?.expected(id, in: tree) ?? history?.expected(c, in: tree) {
            text += ", usually " + seconds(usual)
        }
        return text
    }

    /// The end of a chain: what node `id`, waiting for nothing, is doing.
    static func state(_ id: Int, in tree: TreeModel, now: Double, history: RunHistory?) -> String {
        let n = tree[id]
        switch n.display {
        case .executing:
            let c = content(id, in: tree)
            if let cmd = tree.commands[c] {
                return "is running \"" + cmd.commandLine + "\"" + (cmd.pid.map { " (pid \($0))" } ?? "")
            }
            return "is " + running(id, in: tree, now: now, history: history)
        case .notExecuted: return "has not started"
        default: return n.display.word
        }
    }

    /// An `after` node whose task has not started: the needs still to come, the first named
    /// with how long it has run (nil once its task started).
    static func needsWait(_ id: Int, in tree: TreeModel, now: Double, history: RunHistory?) -> WhyLine? {
        let n = tree[id]
        guard let r = n.children.first, tree.contains(Int(r)), tree[Int(r)].state == .notExecuted else { return nil }
        guard let needs = tree.needsMap.needs[id] else {
            // A library graph's `after` (or a replay): its info names what it waits for.
            return n.info.map { WhyLine($0) }
        }
        let pending = needs.filter { p in
            guard tree.contains(p) else { return false }
            let shown = tree[tree.newestAttempt(p)]
            return !(shown.display == .succeeded || (shown.state.isSettled && tree.allowsFailure(p)))
        }
        guard let first = pending.first else { return n.info.map { WhyLine($0) } }
        let shown = tree.newestAttempt(first)
        let name = label(first, in: tree)
        let more = pending.count > 1 ? " and \(pending.count - 1) more" : ""
        let step = "waiting for " + name + more
        // Running its work (not itself waiting for needs or a slot): how long, and how long usually.
        let c = content(shown, in: tree)
        guard tree[c].state == .executing, tree.workStart(c) != nil else { return WhyLine(step, blocker: shown) }
        let detail = " (" + running(shown, in: tree, now: now, history: history) + ")"
        return WhyLine("waiting for " + name + detail + more, step: step, blocker: shown)
    }

    /// `waiting for a slot (-j 8, 8 running)`: a command waits only while every slot is
    /// taken (`CommandSlots`), so as many run as `--jobs` allows; the `--jobs` of the run is
    /// the root's `jobsKey` attribute.
    static func slotText(_ id: Int, in tree: TreeModel) -> String {
        func jobs(_ r: Int) -> Int? {
            tree.attributes[r]?.first(where: { $0.key == jobsKey }).flatMap { Int($0.value) }
        }
        // The run's root, else (a restart's attempts hang under a root of their own, an
        // attach session has a root per program) the root above the command.
        var first: Int?
        tree.forEachRoot {
            first = $0
            return false
        }
        var found = first.flatMap(jobs)
        if found == nil {
            var root = id
            var steps = 0
            while tree[root].parent >= 0, tree.contains(Int(tree[root].parent)), steps < 1_000_000 {
                root = Int(tree[root].parent)
                steps += 1
            }
            found = jobs(root)
        }
        guard let found else { return "waiting for a slot" }
        return "waiting for a slot (-j \(found), \(found) running)"
    }

    /// A node not started in a `sequential` or a link (`then`, `recover`, `chain`) whose
    /// node before it has not ended: `waiting for NAME`.
    static func upstream(_ id: Int, in tree: TreeModel) -> WhyLine? {
        let n = tree[id]
        let p = Int(n.parent)
        guard p >= 0, tree.contains(p), n.index > 0 else { return nil }
        let parent = tree[p]
        guard
            parent.kind == NodeKind.sequential || parent.kind == NodeKind.then || parent.kind == NodeKind.recover
                || parent.kind == NodeKind.chain
        else { return nil }
        let k = Int(n.index)
        guard k < parent.children.count, parent.children[k] == Int32(id) else { return nil }
        let before = Int(parent.children[k - 1])
        guard tree.contains(before), !tree[tree.newestAttempt(before)].state.isSettled else { return nil }
        return WhyLine("waiting for " + tree[before].name, blocker: before)
    }

    /// `waiting on 3 children: a, b, c`: the executing children of `id`, the longest-running
    /// first (those whose own work has not started yet last); nil when none executes.
    /// One pass over the children, keeping the first few: no sort of them all.
    static func runningChildren(_ id: Int, in tree: TreeModel) -> WhyLine? {
        typealias Entry = (start: Double, added: Double, id: Int)
        func earlier(_ a: Entry, _ b: Entry) -> Bool { (a.start, a.added, a.id) < (b.start, b.added, b.id) }
        var count = 0
        var first: [Entry] = []
        // Read in place (`TreeNodeStore.read`): a group of a thousand running children is
        // looked at on every frame that shows it.
        for child in tree.nodes.read(id, { $0.children }) {
            let i = Int(child)
            // One read per child (profiled: a group of 100 running children cost 950
            // instructions a child with a read for each question).
            var (executing, since, queued, single) = tree.nodes.read(i) {
                (
                    $0.exists && $0.state == .executing, $0.startedAt, $0.info == CommandSlots.queuedInfo,
                    $0.children.count == 1
                )
            }
            guard executing else { continue }
            count += 1
            let added = since
            var c = i
            if single, tree.nodes.read(i, { $0.foldsIntoChild }) {
                c = content(i, in: tree)
                (executing, since, queued) = tree.nodes.read(c) {
                    ($0.state == .executing, $0.startedAt, $0.info == CommandSlots.queuedInfo)
                }
            }
            // As `TreeModel.workStart`; not started yet: last.
            let started =
                !executing || queued ? .infinity : tree.runningSince.isEmpty ? since : tree.runningSince[c] ?? since
            let entry: Entry = (started, added, i)
            if first.count < namedChildren || earlier(entry, first[first.count - 1]) {
                let at = first.firstIndex { earlier(entry, $0) } ?? first.count
                first.insert(entry, at: at)
                if first.count > namedChildren { first.removeLast() }
            }
        }
        guard count > 0 else { return nil }
        var names = first.map { tree[$0.id].name }.joined(separator: ", ")
        if count > first.count { names += ", ..." }
        let noun = count == 1 ? "child" : "children"
        return WhyLine("waiting on \(count) \(noun): " + names, blocker: first[0].id)
    }
}
