#if !NO_GRAPHTASK
    import TaskGraph

    /// The library under test. Each run uses a fresh `Graph()` (which keeps every node, so runs
    /// share no state), watched as the row says (`Watch`); the graph is freed after the timed part.
    enum GraphTaskSubject {
        static func withGraph<T>(_ watch: Watch, _ body: (Graph) -> T) -> T {
            let graph = Graph()
            switch watch {
            case .none:
                return body(graph)
            case .recorder:
                let recorder = Recorder.attach(to: graph)
                defer { recorder.stop() }
                return body(graph)
            case .tracer, .noOpTracer:
                return TracedSubject.withTrace(graph, counting: watch == .tracer) { body(graph) }
            }
        }

        /// W1: create + execute + complete + one handler; seconds per task.
        static func w1(n: Int, _ watch: Watch) -> Double {
            withGraph(watch) { graph in w1Loop(graph: graph, n: n, label: "GraphTask W1 sum") }
        }

        /// W1 with a no-op observer attached: what delivering events costs by itself.
        static func w1Observed(n: Int) -> Double {
            let graph = Graph()
            let observation = graph.observe { _ in }
            defer { observation.cancel() }
            return w1Loop(graph: graph, n: n, label: "GraphTask W1 observed sum")
        }

        /// W1's timed loop on `graph` (whatever watches it); seconds per task.
        static func w1Loop(graph: Graph, n: Int, label: String) -> Double {
            let sink = Sink()
            let t = seconds {
                for i in 0..<n {
                    GraphTask<Int, Never>(graph: graph) { succeed, _ in succeed(i) }
                        .success { sink.add($0) }
                        .execute()
                }
            }
            check(sink.count == n && sink.total == n * (n - 1) / 2, label)
            return t / Double(n)
        }

        /// W1 with an async body: `GraphTask.async { _ in i }`, executed by `await value` (the
        /// awaiter is the one handler), as Swift's W1 does with `Task { i }`.
        static func w1Async(n: Int) -> Double {
            withGraph(.none) { graph in
                blockingAwait {
                    var sum = 0
                    let start = now()
                    for i in 0..<n {
                        sum &+= (try? await GraphTask<Int, Never>.async(graph: graph) { _ in i }.value) ?? 0
                    }
                    let t = now() - start
                    check(sum == n * (n - 1) / 2, "GraphTask.async W1 sum")
                    return t / Double(n)
                }
            }
        }

        /// W2: build, run and release a chain of `n` links alternating `mapResult` and
        /// `then { .succeed }`; seconds per link.
        static func w2(n: Int, _ watch: Watch) -> Double {
            withGraph(watch) { graph in
                var value = -1
                let t = seconds { value = chain(depth: n, graph: graph) }
                check(value == n, "GraphTask W2 chain value \(value) != \(n)")
                return t / Double(n)
            }
        }

        /// The W2 chain, also used by the survivability probe. Returns the chain's value.
        static func chain(depth: Int, graph: Graph = Graph()) -> Int {
            let sink = Sink()
            var task = GraphTask<Int, Never>.succeed(0, graph: graph)
            for i in 0..<depth {
                if i % 2 == 0 {
                    task = task.mapResult { $0 + 1 }
                } else {
                    task = task.then { GraphTask<Int, Never>.succeed($0 + 1, graph: graph) }
                }
            }
            task.success { sink.add($0) }.execute()
            return sink.count == 1 ? sink.total : -1
        }

        /// W3: `concurrent` of `n` leaves (creation included); seconds per subtask.
        static func w3(n: Int, _ watch: Watch) -> Double {
            withGraph(watch) { graph in
                let sink = Sink()
                let t = seconds {
                    let leaves = (0..<n).map { i in GraphTask<Int, Never>(graph: graph) { succeed, _ in succeed(i) } }
                    GraphTask<Int, Never>.concurrent(leaves).success { sink.add($0.count) }.execute()
                }
                check(sink.total == n, "GraphTask W3 count")
                return t / Double(n)
            }
        }

        /// W4: heap bytes per executing, never-settling task with one success handler.
        static func w4(n: Int, _ watch: Watch) -> Double {
            withGraph(watch) { graph in
                var keep: [GraphTask<Int, Never>] = []
                keep.reserveCapacity(n)
                let before = mallocedBytes()
                for _ in 0..<n {
                    keep.append(GraphTask<Int, Never>(graph: graph) { _, _ in }.success { _ in }.execute())
                }
                let after = mallocedBytes()
                for task in keep { task.cancel() }
                return Double(after - before) / Double(n)
            }
        }

        /// W5: a `concurrent` of `width` `concurrent`s of `width` never-finishing executing
        /// leaves; seconds for `root.cancel()`.
        static func w5(width: Int, _ watch: Watch) -> Double {
            withGraph(watch) { graph in
                let groups = (0..<width).map { _ in
                    GraphTask<Int, Never>.concurrent(
                        (0..<width).map { _ in
                            GraphTask<Int, Never>(graph: graph) { _, _ in }
                        })
                }
                let root = GraphTask<[Int], Never>.concurrent(groups).execute()
                let t = seconds { root.cancel() }
                check(
                    root.state == .cancelled && groups.allSatisfy { $0.state == .cancelled },
                    "GraphTask W5 tree not cancelled")
                return t
            }
        }
    }
#endif
