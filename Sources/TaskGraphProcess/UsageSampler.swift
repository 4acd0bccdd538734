import Synchronization
import TaskGraph

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Samples what running commands cost: once a second, one pass over `/proc` for all of
/// them (`UsageBook` adds up each run's process tree), and a `usage` event for each command
/// whose CPU time or peak memory changed; a last one when a command ends, before its node
/// settles. Linux only (elsewhere nothing is reported).
///
/// The end: the command's first process is collected by swift-subprocess, not here, so its
/// last moments (and children it collected in them) come from this process's
/// `getrusage(RUSAGE_CHILDREN)`: what it grew by since the previous command's end belongs
/// to this command when no other command's first process ended meanwhile; otherwise the
/// last sample stands. The larger of that and the samples is final.
final class UsageSampler: Sendable {
    /// The one sampler.
    static let shared = UsageSampler()

    /// Seconds between two passes.
    static let interval = 1.0

    private struct Target {
        let graph: Graph
        let node: NodeID
        let word: String
    }

    private struct State {
        var book = UsageBook()
        var targets: [Int: Target] = [:]
        var nextKey = 0
        var sampling = false
        /// `getrusage(RUSAGE_CHILDREN)` at the last command's end: CPU seconds, max RSS bytes.
        var childrenCPU = 0.0
        var childrenMaxRSS = 0
        /// Adopted orphans' runs, by pid and start (nil: none of ours).
        var owners: [Int32: (started: UInt64, key: Int?)] = [:]
    }

    private let state: Mutex<State>
    private let ticksPerSecond = Double(max(1, sysconf(Int32(_SC_CLK_TCK))))
    private let pageSize = max(1, Int(sysconf(Int32(_SC_PAGESIZE))))

    private init() {
        var s = State()
        (s.childrenCPU, s.childrenMaxRSS) = UsageSampler.children()
        state = Mutex(s)
    }

    /// Starts sampling the command of `node` whose first process is `pid` (mark `word`).
    /// Returns the key `finish` takes.
    func start(graph: Graph, node: NodeID, pid: Int32, word: String) -> Int {
        #if os(Linux)
            let (key, begin) = state.withLock { s in
                s.nextKey += 1
                s.book.add(s.nextKey, root: pid)
                s.targets[s.nextKey] = Target(graph: graph, node: node, word: word)
                defer { s.sampling = true }
                return (s.nextKey, !s.sampling)
            }
            if begin { Task.detached { await self.loop() } }
            return key
        #else
            return 0
        #endif
    }

    /// The command of `key` ended (its first process was collected): reports its final
    /// usage and stops sampling it.
    func finish(_ key: Int) {
        #if os(Linux)
            let final: (Target, NodeUsage)? = state.withLock { s in
                guard let run = s.book.remove(key), let target = s.targets.removeValue(forKey: key) else { return nil }
                let (cpu, maxRSS) = UsageSampler.children()
                let grew = (cpu: cpu - s.childrenCPU, rss: maxRSS > s.childrenMaxRSS ? maxRSS : 0)
                s.childrenCPU = cpu
                s.childrenMaxRSS = max(s.childrenMaxRSS, maxRSS)
                var usage = NodeUsage(cpu: Double(run.ticks) / ticksPerSecond, rss: run.peakBytes)
                let alone = !s.book.runs.values.contains { !ProcessTable.isRunning($0.root) }
                if alone {
                    usage.cpu = max(usage.cpu, grew.cpu)
                    usage.rss = max(usage.rss, grew.rss)
                }
                return (target, usage)
            }
            if let (target, usage) = final { target.graph.reportUsage(target.node, usage) }
        #endif
    }

    private static func children() -> (cpu: Double, rss: Int) {
        #if os(Linux)
            var ru = rusage()
            getrusage(__rusage_who_t(RUSAGE_CHILDREN.rawValue), &ru)
            func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
            return (seconds(ru.ru_utime) + seconds(ru.ru_stime), Int(ru.ru_maxrss) * 1024)
        #else
            return (0, 0)
        #endif
    }

    /// Passes once a second while a command runs.
    private func loop() async {
        while true {
            try? await Task.sleep(nanoseconds: UInt64(Self.interval * 1e9))
            let done = state.withLock { s in
                if s.book.runs.isEmpty { s.sampling = false }
                return !s.sampling
            }
            if done { return }
            pass()
        }
    }

    /// One pass over `/proc`, and the events of the commands whose usage changed.
    func pass() {
        var stats: [ProcStat] = []
        stats.reserveCapacity(512)
        ProcStatReader.scan { stats.append($0) }
        let me = getpid()
        let reports: [(Target, NodeUsage)] = state.withLock { s in
            var reader = ProcessTable.EnvironmentReader()
            let targets = s.targets
            var owners = s.owners
            let words = Dictionary(targets.map { ($0.value.word, $0.key) }, uniquingKeysWith: { a, _ in a })
            let changed = s.book.pass(
                stats, adopter: me, pageSize: pageSize,
                ownerOf: { p in
                    if let o = owners[p.pid], o.started == p.started { return o.key }
                    var key: Int?
                    reader.forEachMarkerWord(p.pid) { w in if key == nil { key = words[String(w)] } }
                    owners[p.pid] = (p.started, key)
                    return key
                })
            if !owners.isEmpty {
                let alive = Set(stats.map(\.pid))
                owners = owners.filter { alive.contains($0.key) }
            }
            s.owners = owners
            return changed.compactMap { c in
                targets[c.key].map {
                    ($0, NodeUsage(cpu: Double(c.usage.ticks) / ticksPerSecond, rss: c.usage.bytes))
                }
            }
        }
        for (target, usage) in reports { target.graph.reportUsage(target.node, usage) }
    }
}

/// Reads every `/proc/PID/stat` into `ProcStat`s, one buffer for all.
enum ProcStatReader {
    static func scan(_ body: (ProcStat) -> Void) {
        guard let dir = opendir("/proc") else { return }
        defer { closedir(dir) }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 1024) { buf in
            while let e = readdir(dir) {
                let pid = withUnsafeBytes(of: e.pointee.d_name) { raw -> Int32 in
                    var v: Int32 = 0
                    for b in raw {
                        if b == 0 { break }
                        guard b >= 48, b <= 57, v < 100_000_000 else { return 0 }
                        v = v * 10 + Int32(b - 48)
                    }
                    return v
                }
                guard pid > 0 else { continue }
                let fd = ProcessTable.openProc(pid, "stat")
                guard fd >= 0 else { continue }
                let n = read(fd, buf.baseAddress!, buf.count)
                close(fd)
                if n > 0, let s = ProcStat.parse(UnsafeBufferPointer(rebasing: buf[..<n])) { body(s) }
            }
        }
    }
}
