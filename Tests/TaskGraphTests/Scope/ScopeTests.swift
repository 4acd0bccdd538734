import Foundation
import Testing

@testable import TaskGraph

/// `withGraphTask` and `GraphScope` (the AsyncScopes article).
@Suite struct ScopeTests {
    // MARK: - The tree comes from the code

    @Test func aScopeOutsideAnyScopeIsARootAndNestedOnesAreItsChildren() async throws {
        let (g, _) = virtualGraph()
        #expect(GraphScope.current == nil)
        let (outer, inner) = await withGraphTask("outer", graph: g) { outer in
            await withGraphTask("inner") { inner in
                #expect(GraphScope.current?.id == inner.id)
                return (outer.id, inner.id)
            }
        }
        let s = g.snapshot()
        #expect(s[outer]?.kind == "scope")
        #expect(s[outer]?.parent == nil)
        #expect(s[inner]?.parent == outer)
        #expect(s[inner]?.name == "inner")
        #expect(s[outer]?.children == [inner])
        #expect(s[outer]?.state == .completed)
        #expect(s[inner]?.state == .completed)
        #expect(GraphScope.current == nil)
    }

    @Test func asyncLetGroupChildrenAndTaskInheritTheScopeButDetachedMakesARoot() async throws {
        let (g, _) = virtualGraph()
        let ids = await withGraphTask("parent", graph: g) { parent -> [String: NodeID] in
            async let a = withGraphTask("async let") { $0.id }
            let group = await withTaskGroup(of: NodeID.self) { group in
                for i in 0..<2 { group.addTask { await withGraphTask("child \(i)") { $0.id } } }
                var ids: [NodeID] = []
                for await id in group { ids.append(id) }
                return ids
            }
            let unstructured = await Task { await withGraphTask("Task {}") { $0.id } }.value
            let detached = await Task.detached { await withGraphTask("detached", graph: g) { $0.id } }.value
            return [
                "parent": parent.id, "a": await a, "g0": group[0], "g1": group[1],
                "task": unstructured, "detached": detached,
            ]
        }
        let s = g.snapshot()
        let parent = ids["parent"]!
        for key in ["a", "g0", "g1", "task"] { #expect(s[ids[key]!]?.parent == parent, "\(key)") }
        #expect(s[ids["detached"]!]?.parent == nil)
        #expect(s[parent]?.children.count == 4)
    }

    @Test func theBodyOfAGraphTaskAsyncIsTheCurrentScope() async throws {
        let (g, _) = virtualGraph()
        let outer = GraphTask<NodeID, any Error>.async(name: "async", graph: g) { _ in
            await withGraphTask("inside") { $0.id }
        }
        let inner = try await outer.value
        let s = g.snapshot()
        #expect(s[inner]?.parent == outer.id)
        #expect(s[inner]?.kind == "scope")
    }

    // MARK: - GraphTasks inside a scope

    @Test func graphTaskRootsExecutedOrAwaitedInAScopeBecomeItsChildren() async throws {
        let (g, _) = virtualGraph()
        let executed = GraphTask<Int, TestError>.succeed(1, name: "executed", graph: g)
        let awaited = GraphTask<Int, TestError>.succeed(2, name: "awaited", graph: g)
        let outside = GraphTask<Int, TestError>.succeed(3, name: "outside", graph: g)
        let scope = try await withGraphTask("scope", graph: g) { scope in
            executed.execute()
            let v = try await awaited.value
            #expect(v == 2)
            return scope.id
        }
        outside.execute()
        let s = g.snapshot()
        #expect(s[executed.id]?.parent == scope)
        #expect(s[awaited.id]?.parent == scope)
        #expect(s[outside.id]?.parent == nil)
        #expect(s[scope]?.children == [executed.id, awaited.id])
    }

    @Test func aSubtaskOfAComposeIsNotTakenFromItsComposite() async throws {
        let (g, _) = virtualGraph()
        let a = GraphTask<Int, TestError>.succeed(1, name: "a", graph: g)
        let all = GraphTask.sequential([a], name: "all", graph: g)
        let scope = try await withGraphTask("scope", graph: g) { scope in
            _ = try await all.value
            return scope.id
        }
        let s = g.snapshot()
        #expect(s[all.id]?.parent == scope)
        #expect(s[a.id]?.parent == all.id)
    }

    @Test func aProgramThatNeverMakesAScopeNeverLooksForOne() async throws {
        let (g, _) = virtualGraph()
        let t = GraphTask<Int, TestError>.succeed(1, graph: g).execute()
        #expect(val(t) == 1)
        let before = g.scopesMade.load(ordering: .relaxed)
        await withGraphTask("one", graph: g) { _ in }
        let after = g.scopesMade.load(ordering: .relaxed)
        #expect(!before && after)
    }

    // MARK: - Isolation

    @MainActor @Test func theBodyRunsOnTheMainActorWhenCalledFromIt() async {
        let (g, _) = virtualGraph()
        final class NotSendable { var n = 0 }
        let box = NotSendable()
        await withGraphTask("main", graph: g) { _ in
            MainActor.assertIsolated()
            box.n += 1
        }
        #expect(box.n == 1)
    }

    actor Counting {
        var count = 0
        let graph: Graph
        init(graph: Graph) { self.graph = graph }

        func bump() async -> Int {
            await withGraphTask("bump", graph: graph) { _ in
                self.assertIsolated()
                count += 1 // synchronous access: the body is isolated to this actor
                return count
            }
        }
    }

    @Test func theBodyRunsOnTheCallersActor() async {
        let (g, _) = virtualGraph()
        let c = Counting(graph: g)
        #expect(await c.bump() == 1)
        #expect(await c.bump() == 2)
    }

    // MARK: - Outcome

    @Test func aReturnCompletesTheNode() async {
        let (g, _) = virtualGraph()
        let log = EventLog(g)
        var id: NodeID?
        let v = await withGraphTask("ok", graph: g) { s in
            id = s.id
            return 42
        }
        #expect(v == 42)
        #expect(log.states(id!) == [.executing, .completed])
        #expect(g.snapshot()[id!]?.failed == false)
        #expect(g.snapshot()[id!]?.progress.fraction == 1)
    }

    @Test func aThrowFailsTheNodeAndIsRethrownUnchangedAndTyped() async {
        let (g, _) = virtualGraph()
        var id: NodeID?
        do throws(TestError) {
            try await withGraphTask("bad", graph: g) { (s) throws(TestError) in
                id = s.id
                throw TestError(code: 7)
            }
            Issue.record("no error")
        } catch {
            #expect(error == TestError(code: 7)) // `error` is a TestError: typed throws kept
        }
        let n = g.snapshot()[id!]
        #expect(n?.state == .completed)
        #expect(n?.failed == true)
        #expect(n?.message == "test error 7")
    }

    @Test func throwingCancellationErrorCancelsTheNodeWithSourceTask() async {
        let (g, _) = virtualGraph()
        let log = EventLog(g)
        var id: NodeID?
        do {
            try await withGraphTask("stop", graph: g) { s in
                id = s.id
                throw CancellationError()
            }
        } catch {
            #expect(error is CancellationError)
        }
        #expect(g.snapshot()[id!]?.state == .cancelled)
        #expect(log.cancelSources(id!) == ["task"])
    }

    @Test func throwingWhileTheCallersTaskIsCancelledCancelsTheNodeWithSourceTask() async {
        let (g, _) = virtualGraph()
        let log = EventLog(g)
        let ids = Locked<[NodeID]>([])
        let caller = Task {
            try await withGraphTask("waits", graph: g) { s in
                ids.withLock { $0.append(s.id) }
                try await Task.sleep(for: .seconds(1000))
            }
        }
        #expect(await eventuallyAsync { !ids.get.isEmpty })
        caller.cancel()
        let r = await caller.result
        #expect(throws: CancellationError.self) { try r.get() }
        let id = ids.get[0]
        #expect(g.snapshot()[id]?.state == .cancelled)
        #expect(log.cancelSources(id) == ["task"])
    }

    @Test func anErrorThrownWhileCancelledCancelsTheNodeButIsRethrownUnchanged() async {
        let (g, _) = virtualGraph()
        let log = EventLog(g)
        await withTaskGroup(of: Void.self) { group in
            group.cancelAll()
            group.addTask {
                do throws(TestError) {
                    try await withGraphTask("late", graph: g) { (s) throws(TestError) in
                        throw TestError(code: 3)
                    }
                } catch {
                    #expect(error == TestError(code: 3))
                }
            }
        }
        let scopes = g.snapshot().nodes.values.filter { $0.kind == "scope" }
        #expect(scopes.count == 1)
        #expect(scopes.first?.state == .cancelled)
        #expect(log.cancelSources(scopes.first!.id) == ["task"])
    }

    // MARK: - Cancel from the graph

    @Test func cancelFromTheGraphReachesTheBodyItsStructuredChildrenAndTheirHandlersNotTheCaller() async throws {
        let (g, _) = virtualGraph()
        let log = EventLog(g)
        let seen = Recorder<String>()
        let started = Counter()
        let scopeID = Locked<NodeID?>(nil)
        let childID = Locked<NodeID?>(nil)
        let atOnce = Locked<[TaskState?]>([])
        let canceller = Task {
            _ = await eventuallyAsync { started.value == 1 }
            g.cancel(scopeID.get!)
            // At once: the node and its running child nodes, before the body ends.
            let s = g.snapshot()
            atOnce.withLock { $0 = [s[scopeID.get!]?.state, s[childID.get!]?.state] }
        }
        let result: String = await withGraphTask("top", graph: g) { _ in
            do {
                try await withGraphTask("target") { target in
                    scopeID.withLock { $0 = target.id }
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        group.addTask {
                            // A grandchild task of the body, with its own scope.
                            try await withGraphTask("grandchild") { gc in
                                childID.withLock { $0 = gc.id }
                                async let inner: Void = withTaskCancellationHandler {
                                    started.bump()
                                    while !Task.isCancelled { await Task.yield() }
                                    seen.add("inner sees cancel")
                                } onCancel: {
                                    seen.add("handler ran")
                                }
                                await inner
                                throw CancellationError()
                            }
                        }
                        try await group.waitForAll()
                    }
                }
                return "no error"
            } catch {
                // The caller's own task is not cancelled.
                return "\(type(of: error)) caller cancelled: \(Task.isCancelled)"
            }
        }
        await canceller.value
        #expect(atOnce.get == [.cancelled, .cancelled])
        #expect(result == "CancellationError caller cancelled: false")
        let target = scopeID.get!
        let grandchild = childID.get!
        #expect(log.cancelSources(target) == ["graph"])
        #expect(log.cancelSources(grandchild) == ["parent"])
        #expect(Set(seen.all) == ["handler ran", "inner sees cancel"])
        #expect(started.value == 1)
        #expect(g.snapshot()[target]?.state == .cancelled)
    }

    @Test func aBodyThatReturnsAfterTheGraphCancelledItReturnsItsValueAndTheNodeStaysCancelled() async {
        let (g, _) = virtualGraph()
        let log = EventLog(g)
        let id = Locked<NodeID?>(nil)
        let canceller = Task {
            _ = await eventuallyAsync { id.get != nil }
            g.cancel(id.get!, source: "keyboard")
        }
        let v = await withGraphTask("ignores", graph: g) { s in
            id.withLock { $0 = s.id }
            while !Task.isCancelled { await Task.yield() }
            return "finished anyway"
        }
        await canceller.value
        #expect(v == "finished anyway")
        #expect(log.states(id.get!) == [.executing, .cancelled])
        #expect(log.cancelSources(id.get!) == ["keyboard"])
    }

    @Test func aCancelledChildScopeDoesNotCancelItsParent() async {
        let (g, _) = virtualGraph()
        let log = EventLog(g)
        let child = Locked<NodeID?>(nil)
        let canceller = Task {
            _ = await eventuallyAsync { child.get != nil }
            g.cancel(child.get!)
        }
        let (parent, caught) = await withGraphTask("parent", graph: g) { p in
            do {
                try await withGraphTask("child") { c in
                    child.withLock { $0 = c.id }
                    try await Task.sleep(for: .seconds(1000))
                }
                return (p.id, "none")
            } catch {
                return (p.id, "\(type(of: error))")
            }
        }
        await canceller.value
        #expect(caught == "CancellationError")
        #expect(log.cancelSources(child.get!) == ["graph"])
        #expect(log.cancelSources(parent) == [])
        #expect(log.states(parent) == [.executing, .completed])
    }

    // MARK: - Progress

    @Test func ownProgressIsRecordedOnChangeClampedWithInfo() async {
        let (g, _) = virtualGraph()
        let log = EventLog(g)
        let id = await withGraphTask("p", graph: g) { s in
            s.progress(0.25, info: "reading")
            s.progress(0.25, info: "reading") // no change: not recorded
            s.progress(2)
            return s.id
        }
        let reports = log.changes.compactMap { c -> TaskProgress? in
            if case .progress(let i, let p) = c, i == id { return p } else { return nil }
        }
        #expect(reports == [TaskProgress(0.25, info: "reading"), TaskProgress(1)])
    }

    @Test func aScopeWithoutOwnProgressShowsItsChildrensAsNOfM() async {
        let (g, _) = virtualGraph()
        let log = EventLog(g)
        let gate = Locked(0)
        let id = await withGraphTask("parent", graph: g) { s in
            async let a: Void = withGraphTask("a", weight: 1) { _ in
                while gate.get < 2 { await Task.yield() }
            }
            _ = await eventuallyAsync { g.snapshot()[s.id]?.children.count == 1 }
            async let b: Void = withGraphTask("b", weight: 3) { c in
                c.progress(0.5)
                gate.withLock { $0 = 1 }
                while gate.get < 3 { await Task.yield() }
            }
            _ = await eventuallyAsync { gate.get == 1 && g.snapshot()[s.id]?.progress.fraction == 0.375 }
            gate.withLock { $0 = 2 }
            await a
            gate.withLock { $0 = 3 }
            await b
            return s.id
        }
        let reports = log.changes.compactMap { c -> TaskProgress? in
            if case .progress(let i, let p) = c, i == id { return p } else { return nil }
        }
        // a made; b made (weights 1 + 3); b at 0.5 (1.5 of 4); a done (2.5 of 4); b done.
        #expect(
            reports == [
                TaskProgress(0, info: "0/1"), TaskProgress(0, info: "0/2"), TaskProgress(0.375, info: "0/2"),
                TaskProgress(0.625, info: "1/2"), TaskProgress(1, info: "2/2"),
            ])
    }

    @Test func progressNeverShowsMoreThanTheWorkDoneAsChildrenAreAdded() async {
        let (g, _) = virtualGraph()
        let log = EventLog(g)
        let id = await withGraphTask("parent", graph: g) { s in
            await withGraphTask("a") { _ in }
            await withGraphTask("b") { _ in }
            return s.id
        }
        // a made (0/1), a done (1/1), b made (1/2: half the work done), b done (2/2).
        let reports = log.changes.compactMap { c -> TaskProgress? in
            if case .progress(let i, let p) = c, i == id { return p } else { return nil }
        }
        #expect(
            reports == [
                TaskProgress(0, info: "0/1"), TaskProgress(1, info: "1/1"), TaskProgress(0.5, info: "1/2"),
                TaskProgress(1, info: "2/2"),
            ])
        #expect(g.snapshot()[id]?.progress == TaskProgress(1, info: "2/2"))
    }

    @Test func aScopeShowsTheWeightedMeanOfItsChildrensFractionsAndNOfMFinished() async {
        let (g, _) = virtualGraph()
        _ = EventLog(g) // observed: every change is recorded at once
        let reported = Locked(0)
        let release = Locked(0)
        let id = await withGraphTask("parent", graph: g) { s in
            await withTaskGroup(of: Void.self) { group in
                for i in 0..<4 {
                    group.addTask {
                        await withGraphTask("c\(i)", weight: i == 3 ? 2 : 1) { c in
                            c.progress(0.75)
                            reported.withLock { $0 += 1 }
                            while release.get <= i { await Task.yield() }
                        }
                    }
                }
                // Four children at 0.75, none finished: 0.75, not a full bar.
                #expect(
                    await eventuallyAsync {
                        reported.get == 4 && g.snapshot()[s.id]?.progress == TaskProgress(0.75, info: "0/4")
                    })
                // c0 (weight 1 of 5) finished: (1 + 0.75 * 4) / 5 = 0.8.
                release.withLock { $0 = 1 }
                #expect(await eventuallyAsync { g.snapshot()[s.id]?.progress == TaskProgress(0.8, info: "1/4") })
                release.withLock { $0 = 4 }
            }
            return s.id
        }
        #expect(g.snapshot()[id]?.progress == TaskProgress(1, info: "4/4"))
    }

    @Test func aScopeThatReportsItsOwnProgressShowsOnlyItsOwn() async {
        let (g, _) = virtualGraph()
        let log = EventLog(g)
        let id = await withGraphTask("parent", graph: g) { s in
            s.progress(0.1, info: "own")
            await withGraphTask("a") { _ in }
            await withGraphTask("b") { _ in }
            return s.id
        }
        let reports = log.changes.compactMap { c -> TaskProgress? in
            if case .progress(let i, let p) = c, i == id { return p } else { return nil }
        }
        // No "N/M" from its children; settling says completed (the row shows 100 %).
        #expect(reports == [TaskProgress(0.1, info: "own")])
        #expect(g.snapshot()[id]?.progress.fraction == 1)
    }

    // MARK: - Bad input

    @Test func aNameIsKeptLikeAnyTasksName() async {
        let (g, _) = virtualGraph()
        let name = "bad\u{1b}[31mname\u{7}"
        let id = await withGraphTask(name, graph: g) { $0.id }
        let t = GraphTask<Int, TestError>.succeed(1, name: name, graph: g)
        #expect(g.snapshot()[id]?.name == t.name)
    }

    @Test func aWeightIsRecorded() async {
        let (g, _) = virtualGraph()
        let id = await withGraphTask("w", weight: 2.5, graph: g) { $0.id }
        #expect(g.snapshot()[id]?.weight == 2.5)
    }

    @Test func aWeightThatIsNotFiniteAndNonNegativeTrapsNamingTheScope() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            await withGraphTask("heavy", weight: -1, graph: Graph()) { _ in }
        }
        let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(stderr.contains("withGraphTask 'heavy': weight must be finite and >= 0, got -1.0"))
        await #expect(processExitsWith: .failure) {
            await withGraphTask("nan", weight: .nan, graph: Graph()) { _ in }
        }
    }
}
