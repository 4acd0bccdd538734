/// One observation of a graph (`Graph.observe`, `snapshotAndKeep`): what each delivery calls.
final class GraphObserver: GraphObservation, @unchecked Sendable { // immutable after init
    private let anchor: GraphAnchor
    /// What the observation keeps alive besides its closures (a recorder whose sinks capture
    /// only its spool).
    private let owner: (AnyObject & Sendable)?
    let handler: @Sendable (GraphEvent) -> Void
    /// True for the library's own observers (recorder, server), which keep each event: the
    /// last observer then gets the event itself through `keep` instead of a copy (see
    /// `emitObserved`).
    let keeps: Bool
    private let sink: @Sendable (consuming GraphEvent) -> Void
    /// Not optional: a closure kept in an `Optional` is called through reabstraction thunks,
    /// and unwrapping it retains its context, on every event.
    private let pairSink: @Sendable (consuming GraphEvent, consuming GraphEvent) -> Void
    private let hasPairSink: Bool
    /// Called by `Graph.flushObservers()`.
    let flush: (@Sendable () -> Void)?

    init(graph: Graph, handler: @escaping @Sendable (GraphEvent) -> Void) {
        self.owner = nil
        self.anchor = graph.anchor
        self.handler = handler
        self.keeps = false
        self.sink = { _ in }
        self.pairSink = { _, _ in }
        self.hasPairSink = false
        self.flush = nil
    }

    init(graph: Graph, sink: @escaping @Sendable (consuming GraphEvent) -> Void) {
        self.owner = nil
        self.anchor = graph.anchor
        self.handler = { sink($0) }
        self.keeps = true
        self.sink = sink
        self.pairSink = { _, _ in }
        self.hasPairSink = false
        self.flush = nil
    }

    init(
        graph: Graph, owner: AnyObject & Sendable, sink: @escaping @Sendable (consuming GraphEvent) -> Void,
        pair: @escaping @Sendable (consuming GraphEvent, consuming GraphEvent) -> Void,
        flush: (@Sendable () -> Void)? = nil
    ) {
        self.owner = owner
        self.flush = flush
        self.anchor = graph.anchor
        self.handler = { sink($0) }
        self.keeps = true
        self.sink = sink
        self.pairSink = pair
        self.hasPairSink = true
    }

    /// Hands the event itself to a keeping observer.
    func keep(_ event: consuming GraphEvent) { sink(event) }

    /// Hands two events of one step, in order, to a keeping observer.
    func keep(_ first: consuming GraphEvent, _ second: consuming GraphEvent) {
        if hasPairSink {
            pairSink(first, second)
        } else {
            sink(first)
            sink(second)
        }
    }

    func cancel() { anchor.withGraph { $0.removeObserver(self) } }
}
