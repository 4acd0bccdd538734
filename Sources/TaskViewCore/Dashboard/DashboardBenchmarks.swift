import TaskGraph
#if canImport(Glibc)
import Glibc
#endif

/// Public entry points for the benchmarks: a large model, a frame, a stream of events.
public enum DashboardBenchmarks {
    /// Events of a graph with `nodes` nodes: one root, groups of up to 1,000 leaves under
    /// it; the root, every group and every other leaf executing.
    public static func buildEvents(nodes: Int) -> [GraphEvent] {
        var events: [GraphEvent] = []
        events.reserveCapacity(nodes * 2)
        var seq: UInt64 = 0
        func emit(_ c: GraphChange) {
            seq += 1
            events.append(GraphEvent(sequence: seq, time: 0, change: c))
        }
        guard nodes > 0 else { return [] }
        emit(.added(id: NodeID(0), kind: NodeKind.concurrent, name: "root", weight: 1, parent: nil, index: nil))
        emit(.stateChanged(id: NodeID(0), state: .executing, failed: false, message: nil))
        var id = 1
        var group = -1
        var inGroup = 0
        while id < nodes {
            if group < 0 || inGroup == 999 {
                group = id
                inGroup = 0
                emit(.added(id: NodeID(id), kind: NodeKind.allSettled, name: "group \(id)", weight: 1,
                            parent: NodeID(0), index: Int.max))
                emit(.stateChanged(id: NodeID(id), state: .executing, failed: false, message: nil))
            } else {
                emit(.added(id: NodeID(id), kind: NodeKind.task, name: "task \(id)", weight: 1,
                            parent: NodeID(group), index: Int.max))
                if id % 2 == 0 {
                    emit(.stateChanged(id: NodeID(id), state: .executing, failed: false, message: nil))
                }
                inGroup += 1
            }
            id += 1
        }
        return events
    }

    /// The tree of `buildEvents(nodes:)`.
    public static func makeTree(nodes: Int) -> TreeModel {
        var tree = TreeModel()
        tree.absorb(buildEvents(nodes: nodes))
        return tree
    }

    /// A dashboard model over that tree, selection on the first row.
    public static func makeModel(nodes: Int) -> DashboardModel {
        var m = DashboardModel(title: "benchmark")
        m.tree = makeTree(nodes: nodes)
        m.fixSelection()
        return m
    }

    /// `count` progress events spread over the executing leaves of a `nodes` graph.
    public static func progressEvents(nodes: Int, count: Int) -> [GraphEvent] {
        var out: [GraphEvent] = []
        out.reserveCapacity(count)
        let n = max(2, nodes)
        for k in 0..<count {
            let id = 2 + (k * 2) % max(1, n - 2)
            out.append(GraphEvent(sequence: UInt64(k + 1), time: Double(k) / 1000,
                                  change: .progress(id: NodeID(id), progress: TaskProgress(Double(k % 100) / 100))))
        }
        return out
    }

    /// One frame of `model` at the given size (the work of the dashboard per redraw,
    /// without the terminal).
    public static func renderFrame(_ model: inout DashboardModel, width: Int, height: Int, ascii: Bool = false) -> CellGrid {
        model.refreshDerived()
        let f = Renderer(ascii: ascii).render(model, width: width, height: height)
        model.view.top = f.top
        return f.grid
    }

    /// Figures for a report: median milliseconds per frame (100,000 nodes, 200x60, moving
    /// the selection between frames) and events absorbed per second.
    public static func measure(nodes: Int = 100_000, frames: Int = 200, events: Int = 2_000_000)
        -> (renderMedianMs: Double, eventsPerSecond: Double) {
        var model = makeModel(nodes: nodes)
        var times: [Double] = []
        for k in 0..<frames {
            _ = Reducer.reduce(&model, key: k % 50 == 49 ? .pageDown : .down, rows: 58)
            let t0 = now()
            _ = renderFrame(&model, width: 200, height: 60)
            times.append(now() - t0)
        }
        times.sort()
        let stream = progressEvents(nodes: nodes, count: events)
        var tree = model.tree
        let t0 = now()
        tree.absorb(stream)
        let dt = now() - t0
        return (times[times.count / 2] * 1000, Double(events) / max(dt, 1e-9))
    }

    static func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}
