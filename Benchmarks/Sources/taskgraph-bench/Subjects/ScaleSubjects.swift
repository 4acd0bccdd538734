import Synchronization

/// The scaling workload's peers: per thread, `perThread` W1 tasks; seconds per task over all
/// threads (so 1 / value is the total throughput).
enum ScaleSubjects {
    static func mini(threads: Int, perThread n: Int) -> Double {
        let total = Atomic<Int>(0)
        let t = timeOnThreads(threads) { _ in
            let sink = Sink()
            for i in 0..<n { MiniFuture<Int> { $0(i) }.onValue { sink.add($0) }.execute() }
            total.add(sink.count, ordering: .relaxed)
        }
        check(total.load(ordering: .relaxed) == n * threads, "MiniFuture scale count")
        return t / Double(n * threads)
    }

    static func swift(threads: Int, perThread n: Int) -> Double {
        blockingAwait {
            let start = now()
            let sum = await withTaskGroup(of: Int.self) { group in
                for _ in 0..<threads {
                    group.addTask {
                        var sum = 0
                        for i in 0..<n { sum &+= await Task { i }.value }
                        return sum
                    }
                }
                return await group.reduce(0, +)
            }
            let t = now() - start
            check(sum == threads * (n * (n - 1) / 2), "Swift scale sum")
            return t / Double(n * threads)
        }
    }
}

#if !NO_GRAPHTASK
    import TaskGraph

    /// GraphTask's scaling subjects.
    enum GTScale {
        static func cases(threads: Int) -> [Case] {
            [
                Case(subject: "GraphTask, one graph", kind: .graphTask) {
                    run(threads, $0, shared: true, recorded: false)
                },
                Case(subject: "GraphTask, one graph + recorder", kind: .graphTaskRecorded) {
                    run(threads, $0, shared: true, recorded: true)
                },
                Case(subject: "GraphTask, graph per thread", kind: .peer) {
                    run(threads, $0, shared: false, recorded: false)
                },
                Case(subject: "GraphTask, graph per thread + recorder", kind: .peer) {
                    run(threads, $0, shared: false, recorded: true)
                },
            ]
        }

        /// Seconds per task over all threads; the graphs (and recorders) are made and stopped
        /// outside the timed part.
        static func run(_ threads: Int, _ n: Int, shared: Bool, recorded: Bool) -> Double {
            let graphs = shared ? [Graph()] : (0..<threads).map { _ in Graph() }
            let recorders = recorded ? graphs.map { Recorder.attach(to: $0) } : []
            defer { for r in recorders { r.stop() } }
            let total = Atomic<Int>(0)
            let t = timeOnThreads(threads) { k in
                let graph = graphs[shared ? 0 : k]
                let sink = Sink()
                for i in 0..<n {
                    GraphTask<Int, Never>(graph: graph) { succeed, _ in succeed(i) }
                        .success { sink.add($0) }
                        .execute()
                }
                total.add(sink.count, ordering: .relaxed)
            }
            check(total.load(ordering: .relaxed) == n * threads, "GraphTask scale count")
            return t / Double(n * threads)
        }
    }
#else
    enum GTScale {
        static func cases(threads: Int) -> [Case] { [] }
    }
#endif
