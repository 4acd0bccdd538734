import CMallocStats

/// Bytes currently allocated through malloc, in all arenas and in mmap'd blocks (glibc's
/// `mallinfo2`). Differences of this number around a workload give its heap cost exactly,
/// unlike RSS, which moves by pages and keeps freed memory.
func mallocedBytes() -> Int {
    Int(bench_malloced_bytes())
}
