import TaskGraph

@testable import TaskViewCore

/// Builds event sequences by hand, in the shapes the library emits.
struct EventScript {
    var events: [GraphEvent] = []
    var time: Double = 0

    mutating func at(_ t: Double) -> EventScript {
        time = t
        return self
    }

    mutating func emit(_ change: GraphChange) {
        events.append(GraphEvent(sequence: UInt64(events.count + 1), time: time, change: change))
    }

    mutating func add(_ id: Int, _ name: String, kind: String = "task", parent: Int? = nil, weight: Double = 1) {
        let index: Int? = parent.map { _ in Int.max }
        emit(
            .added(
                id: NodeID(id), kind: kind, name: name, weight: weight,
                parent: parent.map(NodeID.init(rawValue:)), index: index))
    }

    mutating func adopt(_ id: Int, by parent: Int, at index: Int) {
        emit(.parentSet(id: NodeID(id), parent: NodeID(parent), index: index))
    }

    mutating func start(_ id: Int) {
        emit(.stateChanged(id: NodeID(id), state: .executing, failed: false, message: nil))
    }

    mutating func succeed(_ id: Int) {
        emit(.stateChanged(id: NodeID(id), state: .completed, failed: false, message: nil))
    }

    mutating func fail(_ id: Int, _ message: String) {
        emit(.stateChanged(id: NodeID(id), state: .completed, failed: true, message: message))
    }

    mutating func cancel(_ id: Int, source: String) {
        emit(.cancelRequested(id: NodeID(id), source: source))
        emit(.stateChanged(id: NodeID(id), state: .cancelled, failed: false, message: nil))
    }

    mutating func progress(_ id: Int, _ f: Double, _ info: String? = nil) {
        emit(.progress(id: NodeID(id), progress: TaskProgress(f, info: info)))
    }
}

/// A small build: build(sequential) > compile(allSettled) > a.c, b.c ; link.
/// At t=4: a.c succeeded, b.c failed, compile done, link executing at 50%.
func smallBuild() -> EventScript {
    var s = EventScript()
    s.add(0, "build", kind: "sequential")
    s.add(1, "compile", kind: "allSettled", parent: 0)
    s.add(2, "a.c", parent: 1)
    s.add(3, "b.c", parent: 1)
    s.add(4, "link", parent: 0, weight: 3)
    s.start(0)
    s.start(1)
    s.start(2)
    s.start(3)
    _ = s.at(1)
    s.progress(2, 0.5, "Parsing")
    _ = s.at(2)
    s.succeed(2)
    _ = s.at(3)
    s.fail(3, "syntax error")
    s.succeed(1)
    s.progress(0, 0.25)
    _ = s.at(3.5)
    s.start(4)
    _ = s.at(4)
    s.progress(4, 0.5, "Writing binary")
    return s
}

func model(_ script: EventScript, title: String = "demo", now: Double? = nil) -> DashboardModel {
    var m = DashboardModel(title: title)
    m.tree.absorb(script.events)
    m.clockNow = now ?? script.time
    m.fixSelection()
    return m
}

func frame(_ m: inout DashboardModel, _ w: Int, _ h: Int, ascii: Bool = true) -> [String] {
    m.refreshDerived()
    let f = Renderer(ascii: ascii).render(m, width: w, height: h)
    m.view.top = f.top
    return f.grid.lines
}

@discardableResult
func press(_ m: inout DashboardModel, _ keys: Key..., rows: Int = 10) -> [DashboardEffect] {
    var all: [DashboardEffect] = []
    for k in keys { all += Reducer.reduce(&m, key: k, rows: rows) }
    return all
}
