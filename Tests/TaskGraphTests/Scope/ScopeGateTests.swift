import Testing

@testable import TaskGraph

/// How a cancel of a scope's node meets the Swift task that runs its body (`ScopeGate`), and
/// the derived progress's "N/M" text.
@Suite struct ScopeGateTests {
    @Test func aCancelBeforeTheTaskStartsCancelsItWhenItStarts() async {
        let d = ScopeDriver(derives: true)
        d.cancelSwiftTask()
        let cancelled = await Task {
            withUnsafeCurrentTask { d.enterSwiftTask($0) }
            defer { d.exitSwiftTask() }
            return Task.isCancelled
        }.value
        #expect(cancelled)
    }

    @Test func aCancelWhileTheTaskRunsCancelsIt() async {
        let d = ScopeDriver(derives: true)
        let (before, after) = await Task {
            withUnsafeCurrentTask { d.enterSwiftTask($0) }
            defer { d.exitSwiftTask() }
            let before = Task.isCancelled
            d.cancelSwiftTask()
            return (before, Task.isCancelled)
        }.value
        #expect(!before)
        #expect(after)
    }

    @Test func aCancelAfterTheTaskEndedTouchesNothing() async {
        let d = ScopeDriver(derives: true)
        let cancelled = await Task {
            withUnsafeCurrentTask { d.enterSwiftTask($0) }
            d.exitSwiftTask()
            d.cancelSwiftTask()
            return Task.isCancelled
        }.value
        #expect(!cancelled)
        #expect(d.swiftTask == nil)
    }

    @Test func cancelsRacingTheTasksEndLeaveItEndedAndLetGo() async {
        for _ in 0..<300 {
            let d = ScopeDriver(derives: true)
            async let body: Void = Task {
                withUnsafeCurrentTask { d.enterSwiftTask($0) }
                d.exitSwiftTask()
            }.value
            async let cancel: Void = Task.detached { d.cancelSwiftTask() }.value
            _ = await (body, cancel)
            #expect(d.swiftTask == nil)
            #expect(d.gate.load(ordering: .acquiring) & ScopeGate.done != 0)
            #expect(d.gate.load(ordering: .acquiring) & ScopeGate.cancelling == 0)
        }
    }

    @Test func onlyAScopesDriverCancelsASwiftTask() {
        #expect(ScopeDriver(derives: true).noticesCancel)
        #expect(!ScopeDriver(derives: false).noticesCancel)
    }

    @Test func theRatioIsWrittenInDecimal() {
        #expect(ScopeDriver.ratio(0, 0) == "0/0")
        #expect(ScopeDriver.ratio(7, 10) == "7/10")
        #expect(ScopeDriver.ratio(12_345, 100_000) == "12345/100000")
        #expect(ScopeDriver.ratio(Int.max, Int.max) == "\(Int.max)/\(Int.max)")
    }
}
