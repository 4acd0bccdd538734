import OpenCombine

/// OpenCombine 0.14.0: `Future`, `map`/`flatMap`, `AnyCancellable`. A `Future` runs its body
/// when created; `sink` is the one handler. OpenCombine has no `MergeMany`, so fan-in is the
/// idiomatic `futures.publisher.flatMap { $0 }.collect()`.
enum OpenCombineSubject {
    /// W1: a `Future` fulfilled at once, and a `sink`.
    static func w1(n: Int) -> Double {
        let sink = Sink()
        let t = seconds {
            for i in 0..<n {
                _ = Future<Int, Never> { $0(.success(i)) }.sink { sink.add($0) }
            }
        }
        check(sink.count == n && sink.total == n * (n - 1) / 2, "OpenCombine W1 sum")
        return t / Double(n)
    }

    /// W2: a chain of `n` operators alternating `map` and `flatMap { Just }`, subscribed and
    /// released (release is timed, as for every subject).
    static func w2(n: Int) -> Double {
        var value = -1
        let t = seconds { value = chain(depth: n) }
        check(value == n, "OpenCombine W2 chain value")
        return t / Double(n)
    }

    static func chain(depth: Int) -> Int {
        let sink = Sink()
        var publisher = Future<Int, Never> { $0(.success(0)) }.eraseToAnyPublisher()
        for i in 0..<depth {
            if i % 2 == 0 {
                publisher = publisher.map { $0 + 1 }.eraseToAnyPublisher()
            } else {
                publisher = publisher.flatMap { Just($0 + 1) }.eraseToAnyPublisher()
            }
        }
        let cancellable = publisher.sink { sink.add($0) }
        cancellable.cancel()
        return sink.count == 1 ? sink.total : -1
    }

    /// W3: `n` futures merged by `flatMap` and `collect()`ed.
    static func w3(n: Int) -> Double {
        let sink = Sink()
        let t = seconds {
            let futures = (0..<n).map { i in Future<Int, Never> { $0(.success(i)) } }
            let c = futures.publisher.flatMap { $0 }.collect().sink { sink.add($0.count) }
            c.cancel()
        }
        check(sink.total == n, "OpenCombine W3 count")
        return t / Double(n)
    }

    /// W4: heap bytes per never-fulfilled `Future` with one `sink` (its cancellable kept).
    static func w4(n: Int) -> Double {
        var keep: [AnyCancellable] = []
        keep.reserveCapacity(n)
        let before = mallocedBytes()
        for _ in 0..<n {
            keep.append(Future<Int, Never> { _ in }.sink { _ in })
        }
        let after = mallocedBytes()
        keep.removeAll()
        return Double(after - before) / Double(n)
    }

    /// W5: a merge (`flatMap`) of `width` merges of `width` never-fulfilled futures,
    /// subscribed; seconds for cancelling the subscription tree.
    static func w5(width: Int) -> Double {
        let groups = (0..<width).map { _ in
            (0..<width).map { _ in Future<Int, Never> { _ in } }.publisher.flatMap { $0 }
        }
        let cancellable = groups.publisher.flatMap { $0 }.sink { _ in }
        return seconds { cancellable.cancel() }
    }
}
