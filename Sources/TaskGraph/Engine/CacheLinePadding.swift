/// 64 bytes (a cache line) that keep the fields declared before it and after it on different
/// cache lines: a stored property of this type between a class's hot fields and whatever
/// another thread writes next to them (lock stripes, a thread's trampoline, a spool's producer
/// and consumer sides, the graph's id-block counter). Layout only: never read.
@usableFromInline @frozen
struct CacheLinePadding {
    @usableFromInline let words: (Int, Int, Int, Int, Int, Int, Int, Int)

    @inlinable @inline(__always)
    init() { words = (0, 0, 0, 0, 0, 0, 0, 0) }
}
