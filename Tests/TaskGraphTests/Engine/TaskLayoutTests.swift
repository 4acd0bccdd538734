#if canImport(Glibc)
    import Testing
    import Glibc
    @testable import TaskGraph

    /// A task is allocated per call, and the memory a waiting task holds is a benchmark target
    /// (W4): a leaf's object fits a 208-byte malloc chunk (200 usable bytes). `AnyGraphTask`
    /// orders its fields for this; a field added or moved carelessly shows here first.
    @Suite struct TaskLayoutTests {
        typealias UsableSize = @convention(c) (UnsafeMutableRawPointer?) -> Int

        @Test func aLeafTaskFitsTwoHundredBytes() throws {
            let symbol = try #require(dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_usable_size"))
            let usableSize = unsafeBitCast(symbol, to: UsableSize.self)
            let (g, _) = virtualGraph()
            let leaf = GraphTask<Int, TestError>(graph: g) { succeed, _ in succeed(1) }
            let composite = GraphTask.concurrent([leaf], graph: g)
            for task in [leaf, composite] as [AnyGraphTask] {
                let bytes = usableSize(Unmanaged.passUnretained(task).toOpaque())
                #expect(bytes <= 200, "\(task.kind): \(bytes) usable bytes")
            }
        }
    }
#endif
