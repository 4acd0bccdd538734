import Dispatch
import Foundation
import Testing

@testable import TaskGraph

/// The Promises/A+ cases of PromiseKit's Swift port (Tests/A+: 2.2.2, 2.2.3, 2.2.6, 2.2.7,
/// 2.3.2) translated onto `GraphTask`: `done` is `success`, `catch` is `failure`, `map` is
/// `mapResult`, a throwing `done` is `mapOutcome` to a failure, `then` is `then` (a derived
/// task, executed as PromiseKit's are at once). Each case runs on a task already settled,
/// one settled right after its handlers are added, and one settled later from another
/// thread, and every case runs twice: handlers and derived tasks' closures without a queue,
/// and on one serial queue (`success(on:)`, `mapResult(on:)`, `then(on:)`, ...).
/// Not here, because the library decides otherwise: 2.2.4 (handlers of a settled task run at
/// once, not on a later turn) and 2.3.1 (a `then` closure returning its own task traps).
@Suite struct PromisesAPlusTests {
    enum E: Error, Equatable {
        case dummy
        case sentinel(UInt32)
    }
    typealias P = GraphTask<UInt32, E>

    /// How handlers are added: directly, or on one serial queue (order holds per queue).
    struct Mode: Sendable, CustomStringConvertible {
        let queue: DispatchQueue?
        var description: String { queue == nil ? "no queue" : "on a queue" }
        @discardableResult
        func done<S, F>(_ p: GraphTask<S, F>, _ h: @escaping @Sendable (S) -> Void) -> GraphTask<S, F> {
            queue.map { p.success(on: $0, h) } ?? p.success(h)
        }
        @discardableResult
        func caught<S, F>(_ p: GraphTask<S, F>, _ h: @escaping @Sendable (F) -> Void) -> GraphTask<S, F> {
            queue.map { p.failure(on: $0, h) } ?? p.failure(h)
        }
        // Derived tasks, their closures on the mode's queue (if any).
        func map<S, F, S2>(_ p: GraphTask<S, F>, _ f: @escaping @Sendable (S) -> S2) -> GraphTask<S2, F> {
            p.mapResult(on: queue, f)
        }
        func outcome<S, F, S2, F2>(
            _ p: GraphTask<S, F>, _ f: @escaping @Sendable (Result<S, F>) -> Result<S2, F2>
        ) -> GraphTask<S2, F2> {
            p.mapOutcome(on: queue, f)
        }
        func then<S, F, S2>(
            _ p: GraphTask<S, F>, _ f: @escaping @Sendable (S) -> GraphTask<S2, F>
        ) -> GraphTask<S2, F> {
            p.then(on: queue, f)
        }
        func recover<S, F, F2>(
            _ p: GraphTask<S, F>, _ f: @escaping @Sendable (F) -> GraphTask<S, F2>
        ) -> GraphTask<S, F2> {
            p.recover(on: queue, f)
        }
    }
    static let modes = [Mode(queue: nil), Mode(queue: DispatchQueue(label: "a+ handlers"))]

    /// Counts fulfilled expectations and remembers failed checks from any thread.
    final class Expect: @unchecked Sendable { // behind `lock`
        private let lock = NSLock()
        private var met = 0
        private var problems: [String] = []
        private var order = 0
        func fulfill() {
            lock.lock()
            met += 1
            lock.unlock()
        }
        func check(_ ok: Bool, _ what: String) {
            guard !ok else { return }
            lock.lock()
            problems.append(what)
            lock.unlock()
        }
        /// The next number in call order (1, 2, ...).
        func next() -> Int {
            lock.lock()
            defer { lock.unlock() }
            order += 1
            return order
        }
        func wait(for count: Int, _ label: String) {
            let deadline = Date().addingTimeInterval(10)
            while Date() < deadline {
                lock.lock()
                let n = met
                lock.unlock()
                if n >= count { break }
                usleep(1000)
            }
            usleep(5000) // a handler that must not run gets its chance to
            lock.lock()
            defer { lock.unlock() }
            #expect(met == count, "\(label): \(met) of \(count) expectations met")
            #expect(problems.isEmpty, "\(label): \(problems)")
        }
    }

    /// Runs `body` on a fulfilled task of each kind; `body` adds handlers and returns how many
    /// expectations must be met.
    /// `already: false` leaves out the task settled before its handlers are added (see the
    /// cases that use it).
    func fulfilled(_ name: String, already: Bool = true, _ body: (Mode, P, UInt32, Expect) -> Int) {
        eachKind(name, "fulfilled", already: already, settleAfter: 0.01, { .success($0) }, body)
    }

    func rejected(_ name: String, already: Bool = true, _ body: (Mode, P, UInt32, Expect) -> Int) {
        eachKind(name, "rejected", already: already, settleAfter: 0.05, { .failure(.sentinel($0)) }, body)
    }

    /// The three kinds of settled task (already, immediately, eventually) in each mode, each
    /// settled with `outcome(value)` for a random value.
    private func eachKind(
        _ name: String, _ word: String, already: Bool, settleAfter delay: Double,
        _ outcome: @escaping @Sendable (UInt32) -> Result<UInt32, E>,
        _ body: (Mode, P, UInt32, Expect) -> Int
    ) {
        for mode in Self.modes {
            let value = UInt32.random(in: 1...UInt32.max)
            if already {
                let (settled, r) = P.pending(graph: Graph())
                r.fill(outcome(value))
                run("\(name), already \(word), \(mode)") { e in body(mode, settled, value, e) }
            }
            let (now, nowResolver) = P.pending(graph: Graph())
            run("\(name), immediately \(word), \(mode)", then: { nowResolver.fill(outcome(value)) }) { e in
                body(mode, now, value, e)
            }
            let (later, laterResolver) = P.pending(graph: Graph())
            run(
                "\(name), eventually \(word), \(mode)",
                then: {
                    DispatchQueue.global().asyncAfter(deadline: .now() + delay) { laterResolver.fill(outcome(value)) }
                }
            ) { e in body(mode, later, value, e) }
        }
    }

    private func run(_ label: String, then settle: () -> Void = {}, _ body: (Expect) -> Int) {
        let e = Expect()
        let count = body(e)
        settle()
        e.wait(for: count, label)
    }

    // MARK: 2.1.2 / 2.1.3: a settled task keeps its state

    @Test func aSettledTaskNeverChangesState() {
        for mode in Self.modes {
            for delayed in [false, true] {
                let (p, r) = P.pending(graph: Graph())
                let e = Expect()
                mode.done(p) { _ in e.fulfill() }
                mode.caught(p) { _ in e.check(false, "rejected after fulfilled") }
                let settle: @Sendable () -> Void = {
                    r.succeed(1)
                    r.fail(.dummy)
                }
                if delayed { DispatchQueue.global().async(execute: settle) } else { settle() }
                e.wait(for: 1, "2.1.2.1 fulfill then reject, \(delayed ? "delayed" : "at once"), \(mode)")
                let (q, s) = P.pending(graph: Graph())
                let f = Expect()
                mode.caught(q) { _ in f.fulfill() }
                mode.done(q) { _ in f.check(false, "fulfilled after rejected") }
                let settle2: @Sendable () -> Void = {
                    s.fail(.dummy)
                    s.succeed(1)
                }
                if delayed { DispatchQueue.global().async(execute: settle2) } else { settle2() }
                f.wait(for: 1, "2.1.3.1 reject then fulfill, \(delayed ? "delayed" : "at once"), \(mode)")
            }
        }
    }

    // MARK: 2.2.2 / 2.2.3: called with the value or reason, once, not before settling

    @Test func fulfillmentHandlerGetsTheValueOnce() {
        fulfilled("2.2.2.1/2.2.2.3") { mode, p, value, e in
            mode.done(p) { v in
                e.check(v == value, "value")
                e.fulfill()
            }
            mode.caught(p) { _ in e.check(false, "catch of a fulfilled task") }
            return 1
        }
    }

    @Test func rejectionHandlerGetsTheReasonOnce() {
        rejected("2.2.3.1/2.2.3.3") { mode, p, sentinel, e in
            mode.caught(p) { err in
                e.check(err == .sentinel(sentinel), "reason")
                e.fulfill()
            }
            mode.done(p) { _ in e.check(false, "done of a rejected task") }
            return 1
        }
    }

    @Test func notCalledBeforeThePromiseSettles() {
        let (p, r) = P.pending(graph: Graph())
        let e = Expect()
        let settled = Locked(false)
        p.success { _ in
            e.check(settled.get, "called before fulfilled")
            e.fulfill()
        }
        usleep(20_000)
        settled.withLock { $0 = true }
        r.succeed(1)
        r.succeed(2) // 2.2.2.3: not twice
        e.wait(for: 1, "2.2.2.2")
    }

    // MARK: 2.2.6: handlers of one task run in the order of their calls, also across chains

    @Test func fulfillmentHandlersRunInRegistrationOrder() {
        fulfilled("2.2.6.1 multiple boring fulfillment handlers") { mode, p, value, e in
            for k in 1...4 {
                mode.done(p) { v in
                    e.check(v == value, "value")
                    e.check(e.next() == k, "handler \(k) out of order")
                    e.fulfill()
                }
                mode.caught(p) { _ in e.check(false, "catch") }
            }
            return 4
        }
    }

    @Test func branchingChainsHaveTheirOwnValues() {
        fulfilled("2.2.6.1 multiple branching chains with their own fulfillment values") { mode, p, _, e in
            mode.done(mode.map(p) { _ in UInt32(671) }) { v in
                e.check(v == 671, "branch 1")
                e.fulfill()
            }.execute()
            mode.caught(mode.outcome(p) { _ -> Result<UInt32, E> in .failure(.sentinel(672)) }) { err in
                e.check(err == .sentinel(672), "branch 2")
                e.fulfill()
            }.execute()
            mode.done(mode.map(p) { _ in UInt32(673) }) { v in
                e.check(v == 673, "branch 3")
                e.fulfill()
            }.execute()
            return 3
        }
        rejected("2.2.6.2 multiple branching chains with their own fulfillment values") { mode, p, _, e in
            mode.done(mode.recover(p) { _ in P.succeed(671, graph: p.graph) }) { v in
                e.check(v == 671, "branch 1")
                e.fulfill()
            }.execute()
            mode.caught(mode.recover(p) { _ in P.fail(.sentinel(672), graph: p.graph) }) { err in
                e.check(err == .sentinel(672), "branch 2")
                e.fulfill()
            }.execute()
            mode.done(mode.recover(p) { _ in P.succeed(673, graph: p.graph) }) { v in
                e.check(v == 673, "branch 3")
                e.fulfill()
            }.execute()
            return 3
        }
    }

    /// Not on an already settled task: the library calls a handler added to a settled task at
    /// once, so the inner handler is added (and called) before the second one is added.
    @Test func handlerAddedInsideAnotherRunsAfterTheEarlierOnes() {
        fulfilled("2.2.6.1 even when one handler is added inside another handler", already: false) { mode, p, _, e in
            mode.done(p) { _ in
                e.check(e.next() == 1, "first")
                e.fulfill()
                mode.done(p) { _ in
                    e.check(e.next() == 3, "inner after second")
                    e.fulfill()
                }
            }
            mode.done(p) { _ in
                e.check(e.next() == 2, "second before inner")
                e.fulfill()
            }
            return 3
        }
        rejected("2.2.6.2 even when one handler is added inside another handler", already: false) { mode, p, _, e in
            mode.caught(p) { _ in
                e.check(e.next() == 1, "first")
                e.fulfill()
                mode.caught(p) { _ in
                    e.check(e.next() == 3, "inner after second")
                    e.fulfill()
                }
            }
            mode.caught(p) { _ in
                e.check(e.next() == 2, "second before inner")
                e.fulfill()
            }
            return 3
        }
    }

    /// On a queue, the derived tasks' closures are given that queue (`mapResult(on:)`, ...):
    /// order holds per queue.
    @Test func derivedTasksTakeTheirTurnAmongHandlers() {
        fulfilled("2.2.6.1 onFulfilled handlers are called in the original order, with chains") {
            mode, p, _, e in
            mode.done(p) { _ in
                e.check(e.next() == 1, "handler 1")
                e.fulfill()
            }
            mode.map(p) { v -> UInt32 in
                e.check(e.next() == 2, "map 2")
                e.fulfill()
                return v
            }.execute()
            mode.done(p) { _ in
                e.check(e.next() == 3, "handler 3")
                e.fulfill()
            }
            return 3
        }
        rejected("2.2.6.2 onRejected handlers are called in the original order, with chains") {
            mode, p, _, e in
            mode.caught(p) { _ in
                e.check(e.next() == 1, "handler 1")
                e.fulfill()
            }
            mode.recover(p) { err -> P in
                e.check(e.next() == 2, "recover 2")
                e.fulfill()
                return P.succeed(0, graph: p.graph)
            }.execute()
            mode.caught(p) { _ in
                e.check(e.next() == 3, "handler 3")
                e.fulfill()
            }
            return 3
        }
    }

    /// A throwing handler is a derived task whose closure fails it (`mapOutcome` to a
    /// failure): the handlers after it still run, in order, and its failure reaches its own
    /// handler.
    @Test func multipleHandlersOneOfWhichThrows() {
        fulfilled("2.2.6.1 multiple fulfillment handlers, one of which throws") { mode, p, value, e in
            mode.done(p) { v in
                e.check(v == value, "value 1")
                e.check(e.next() == 1, "handler 1")
                e.fulfill()
            }
            let thrower = mode.outcome(p) { r -> Result<Void, E> in
                e.check((try? r.get()) == value, "value 2")
                e.check(e.next() == 2, "throwing handler 2")
                e.fulfill()
                return .failure(.dummy)
            }
            mode.caught(thrower) { err in
                e.check(err == .dummy, "the thrown error")
                e.fulfill()
            }.execute()
            mode.done(p) { v in
                e.check(v == value, "value 3")
                e.check(e.next() == 3, "handler 3")
                e.fulfill()
            }
            return 4
        }
        rejected("2.2.6.2 multiple rejection handlers, one of which throws") { mode, p, sentinel, e in
            mode.caught(p) { err in
                e.check(err == .sentinel(sentinel), "reason 1")
                e.check(e.next() == 1, "handler 1")
                e.fulfill()
            }
            let thrower = mode.outcome(p) { r -> Result<UInt32, E> in
                if case .failure(let err) = r { e.check(err == .sentinel(sentinel), "reason 2") }
                e.check(e.next() == 2, "throwing handler 2")
                e.fulfill()
                return .failure(.dummy)
            }
            mode.caught(thrower) { err in
                e.check(err == .dummy, "the thrown error")
                e.fulfill()
            }.execute()
            mode.caught(p) { err in
                e.check(err == .sentinel(sentinel), "reason 3")
                e.check(e.next() == 3, "handler 3")
                e.fulfill()
            }
            return 4
        }
    }

    @Test func rejectionHandlersRunInRegistrationOrder() {
        rejected("2.2.6.2 multiple boring rejection handlers") { mode, p, sentinel, e in
            for k in 1...4 {
                mode.caught(p) { err in
                    e.check(err == .sentinel(sentinel), "reason")
                    e.check(e.next() == k, "handler \(k) out of order")
                    e.fulfill()
                }
                mode.done(p) { _ in e.check(false, "done") }
            }
            return 4
        }
    }

    // MARK: 2.2.7: `then` returns a task whose outcome follows the handlers'

    @Test func thenReturnsATaskThatFollowsTheHandler() {
        fulfilled("2.2.7.1 then's task succeeds with the handler's value") { mode, p, value, e in
            mode.done(mode.then(p) { v in P.succeed(v &+ 1, graph: p.graph) }) { v in
                e.check(v == value &+ 1, "value")
                e.fulfill()
            }.execute()
            return 1
        }
        fulfilled("2.2.7.2 a failing handler rejects then's task") { mode, p, _, e in
            mode.caught(mode.then(p) { _ in P.fail(.sentinel(7), graph: p.graph) }) { err in
                e.check(err == .sentinel(7), "reason")
                e.fulfill()
            }.execute()
            return 1
        }
        rejected("2.2.7.4 then's task is rejected with the same reason when there is no recovery") {
            mode, p, sentinel, e in
            mode.caught(mode.then(p) { v in P.succeed(v, graph: p.graph) }) { err in
                e.check(err == .sentinel(sentinel), "reason")
                e.fulfill()
            }.execute()
            return 1
        }
        fulfilled("2.2.7.3 then's task is fulfilled with the same value when there is no then") { mode, p, value, e in
            mode.done(mode.recover(p) { _ in P.succeed(0, graph: p.graph) }) { v in
                e.check(v == value, "value")
                e.fulfill()
            }.execute()
            return 1
        }
    }

    // MARK: 2.3.2: a task returned by a handler is adopted: its state becomes the derived one's

    @Test func aReturnedTaskIsAdopted() {
        fulfilled("2.3.2.1 a pending returned task keeps then's task pending, then it fulfils") { mode, p, _, e in
            let (inner, r) = P.pending(graph: p.graph)
            let derived = mode.then(p) { _ in inner }
            mode.done(derived) { v in
                e.check(v == 99, "adopted value")
                e.fulfill()
            }.execute()
            DispatchQueue.global().asyncAfter(deadline: .now() + 0.02) {
                e.check(derived.state == .executing, "then's task stays pending while the returned one is")
                r.succeed(99)
            }
            return 1
        }
        fulfilled("2.3.2.2 a returned task that fulfils later") { mode, p, _, e in
            let derived = mode.then(p) { _ -> P in
                let (inner, r) = P.pending(graph: p.graph)
                DispatchQueue.global().asyncAfter(deadline: .now() + 0.01) { r.succeed(5) }
                return inner
            }
            mode.done(derived) { v in
                e.check(v == 5, "value")
                e.fulfill()
            }.execute()
            return 1
        }
        fulfilled("2.3.2.3 a returned task that is rejected") { mode, p, _, e in
            let derived = mode.then(p) { _ in P.fail(.sentinel(3), graph: p.graph) }
            mode.caught(derived) { err in
                e.check(err == .sentinel(3), "reason")
                e.fulfill()
            }.execute()
            return 1
        }
        fulfilled("2.3.2 one returned task adopted by two derived tasks") { mode, p, _, e in
            let shared = P.succeed(11, graph: p.graph)
            mode.done(mode.then(p) { _ in shared }) { v in
                e.check(v == 11, "first")
                e.fulfill()
            }.execute()
            mode.done(mode.then(p) { _ in shared }) { v in
                e.check(v == 11, "second")
                e.fulfill()
            }.execute()
            return 2
        }
    }
}
