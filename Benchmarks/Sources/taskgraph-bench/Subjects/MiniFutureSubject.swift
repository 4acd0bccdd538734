/// The floor: the same workloads on `MiniFuture`.
enum MiniFutureSubject {
    static func w1(n: Int) -> Double {
        let sink = Sink()
        let t = seconds {
            for i in 0..<n {
                MiniFuture<Int> { $0(i) }.onValue { sink.add($0) }.execute()
            }
        }
        check(sink.count == n && sink.total == n * (n - 1) / 2, "MiniFuture W1 sum")
        return t / Double(n)
    }

    static func w2(n: Int) -> Double {
        var value = -1
        let t = seconds { value = chain(depth: n) }
        check(value == n, "MiniFuture W2 chain value")
        return t / Double(n)
    }

    /// Links alternate `map` and `flatMap`, like the other subjects' chains.
    static func chain(depth: Int) -> Int {
        let sink = Sink()
        var future = MiniFuture<Int> { $0(0) }
        for i in 0..<depth {
            if i % 2 == 0 {
                future = future.map { $0 + 1 }
            } else {
                future = future.flatMap { v in MiniFuture<Int> { $0(v + 1) } }
            }
        }
        future.onValue { sink.add($0) }.execute()
        return sink.count == 1 ? sink.total : -1
    }

    static func w3(n: Int) -> Double {
        let sink = Sink()
        let t = seconds {
            let leaves = (0..<n).map { i in MiniFuture<Int> { $0(i) } }
            MiniFuture.all(leaves).onValue { sink.add($0.count) }.execute()
        }
        check(sink.total == n, "MiniFuture W3 count")
        return t / Double(n)
    }

    static func w4(n: Int) -> Double {
        var keep: [MiniFuture<Int>] = []
        keep.reserveCapacity(n)
        let before = mallocedBytes()
        for _ in 0..<n {
            keep.append(MiniFuture<Int> { _ in }.onValue { _ in }.execute())
        }
        let after = mallocedBytes()
        keep.removeAll()
        return Double(after - before) / Double(n)
    }

    static func w5(width: Int) -> Double {
        let groups = (0..<width).map { _ in
            MiniFuture.all((0..<width).map { _ in MiniFuture<Int> { _ in } })
        }
        let root = MiniFuture.all(groups).execute()
        return seconds { root.cancel() }
    }
}
