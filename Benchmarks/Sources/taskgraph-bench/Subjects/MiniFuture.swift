import Synchronization

/// Something whose cancellation a parent future forwards.
protocol MiniCancellable: AnyObject, Sendable {
    func cancel()
}

/// The floor: the least a lazily executed, mutex-protected, cancellable future can do.
/// No graph, no progress, no names, one inline handler, naive recursion per link (so it is
/// fast and shallow: deep chains overflow the stack, which the survivability check shows).
final class MiniFuture<Value: Sendable>: MiniCancellable, @unchecked Sendable { // state behind `lock`
    typealias Body = @Sendable (_ resolve: @escaping @Sendable (Value) -> Void) -> Void

    private let lock = Mutex(())
    private var body: Body?
    private var value: Value?
    private var cancelled = false
    private var handler: (@Sendable (Value) -> Void)?
    private var moreHandlers: [@Sendable (Value) -> Void] = []
    /// Futures this one waits for, cancelled with it (set by `all`).
    private var children: [any MiniCancellable] = []

    init(_ body: @escaping Body) { self.body = body }

    /// Runs the body once; later calls do nothing.
    @discardableResult
    func execute() -> Self {
        let body = lock.withLock { _ -> Body? in
            defer { self.body = nil }
            return cancelled ? nil : self.body
        }
        body?({ [self] in resolve($0) })
        return self
    }

    func resolve(_ v: Value) {
        let (first, more) = lock.withLock { _ -> ((@Sendable (Value) -> Void)?, [@Sendable (Value) -> Void]) in
            guard value == nil, !cancelled else { return (nil, []) }
            value = v
            defer {
                handler = nil
                moreHandlers = []
                children = []
            }
            return (handler, moreHandlers)
        }
        first?(v)
        for h in more { h(v) }
    }

    /// Calls `h` with the value once there is one (at once if there already is).
    @discardableResult
    func onValue(_ h: @escaping @Sendable (Value) -> Void) -> Self {
        let ready = lock.withLock { _ -> Value? in
            if let value { return value }
            if handler == nil { handler = h } else { moreHandlers.append(h) }
            return nil
        }
        if let ready { h(ready) }
        return self
    }

    func cancel() {
        let children = lock.withLock { _ -> [any MiniCancellable] in
            guard value == nil, !cancelled else { return [] }
            cancelled = true
            body = nil
            handler = nil
            moreHandlers = []
            defer { self.children = [] }
            return self.children
        }
        for c in children { c.cancel() }
    }

    /// A future of `f(value)`; executing it executes this one.
    func map<U: Sendable>(_ f: @escaping @Sendable (Value) -> U) -> MiniFuture<U> {
        MiniFuture<U> { resolve in self.onValue { resolve(f($0)) }.execute() }
    }

    /// A future of the future `f` makes from the value.
    func flatMap<U: Sendable>(_ f: @escaping @Sendable (Value) -> MiniFuture<U>) -> MiniFuture<U> {
        MiniFuture<U> { resolve in self.onValue { f($0).onValue(resolve).execute() }.execute() }
    }

    /// All values, in order, once every future has one; executing it executes them all.
    static func all(_ futures: [MiniFuture<Value>]) -> MiniFuture<[Value]> {
        let collector = Collector<Value>(count: futures.count)
        let result = MiniFuture<[Value]> { resolve in
            if futures.isEmpty {
                resolve([])
                return
            }
            for (i, f) in futures.enumerated() {
                f.onValue { v in if let all = collector.put(v, at: i) { resolve(all) } }.execute()
            }
        }
        result.lock.withLock { _ in result.children = futures }
        return result
    }
}

/// Gathers `all`'s values.
private final class Collector<Value: Sendable>: @unchecked Sendable { // state behind `lock`
    private let lock = Mutex(())
    private var values: [Value?]
    private var missing: Int

    init(count: Int) {
        values = Array(repeating: nil, count: count)
        missing = count
    }

    /// Stores one value; returns all of them when it was the last one missing.
    func put(_ v: Value, at i: Int) -> [Value]? {
        lock.withLock { _ in
            values[i] = v
            missing -= 1
            return missing == 0 ? values.map { $0! } : nil
        }
    }
}
