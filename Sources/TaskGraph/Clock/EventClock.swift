internal import CTaskGraphRuntime
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `CLOCK_MONOTONIC` seconds as observed events read them (under the graph's `eventLock`),
/// from the CPU's cycle counter where the kernel itself trusts it.
///
/// Why: every observed event needs a time, and `clock_gettime` through the vDSO costs about
/// 20 ns; W1 makes three events a task, which was half of what an observer cost (measured:
/// no-op observer 1.49x plain with the call, 1.23x without any clock). The counter reads in a
/// few nanoseconds. It is turned into seconds by interpolating from an anchor taken with
/// `clock_gettime` at most `anchorSeconds` ago, at a rate measured over the graph's own
/// observed lifetime (until that is `calibrationSeconds` long, the rate another graph of the
/// process measured, and before any did, `clock_gettime` for each event).
/// Times never go backwards (a reading below the last one returns the last one), and stay
/// within a microsecond or so of `clock_gettime` (the rate's error over one anchor interval).
/// Where the counter is not the kernel's clock source (or there is none), every reading is
/// `clock_gettime`.
struct EventClock {
    static let calibrationSeconds = 0.02
    static let anchorSeconds = 0.001
    /// The most cycles a `clock_gettime` between two counter readings may take for the pair
    /// to be an anchor (a vDSO call takes about a hundred; a trapping one a few thousand).
    static let maxAnchorCycles: UInt64 = 100_000

    /// Whether the cycle counter is the kernel's clock source (so synchronized across CPUs).
    static let counterIsTrusted: Bool = {
        #if os(Linux) && arch(x86_64)
            guard let file = fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "r") else {
                return false
            }
            defer { fclose(file) }
            var buffer = [UInt8](repeating: 0, count: 4)
            return fread(&buffer, 1, 4, file) == 4 && buffer == Array("tsc\n".utf8)
        #elseif os(Linux) && arch(arm64)
            return true // the architected timer: what the kernel reads, the same on every CPU
        #else
            return false
        #endif
    }()

    /// The last rate any graph measured (a `Double`'s bits; 0: none yet), so that a new
    /// graph does not read `clock_gettime` through a calibration of its own.
    private static let sharedSecondsPerCycle = Atomic<UInt64>(0)

    /// `CLOCK_MONOTONIC` seconds (a test hands in a reading that pauses, as a preempted
    /// thread would).
    private let readClock: @Sendable () -> Double

    init(readClock: @escaping @Sendable () -> Double = { MonotonicClock().now }) {
        self.readClock = readClock
    }

    private var firstCycles: UInt64 = 0
    private var firstSeconds: Double = 0
    private var anchorCycles: UInt64 = 0
    private var anchorSeconds: Double = 0
    /// 0 until calibrated.
    private var secondsPerCycle: Double = 0
    private var reanchorCycles: UInt64 = 0
    private var last: Double = 0

    @inline(__always)
    mutating func now() -> Double { now(cycles: EventClock.cycles()) }

    /// The cycle counter, read before the caller takes its lock: the counter's latency then
    /// overlaps the lock's (the reading is clamped to never go back, so a reading a little
    /// older than the previous event's gives that event's time).
    @inline(__always)
    static func cycles() -> UInt64 { UInt64(tg_cycles()) }

    @inline(__always)
    mutating func now(cycles: UInt64) -> Double {
        if secondsPerCycle > 0 {
            // Unsigned: a counter behind the anchor (another CPU's) gives a huge distance,
            // so it takes a fresh anchor.
            let distance = cycles &- anchorCycles
            if distance < reanchorCycles {
                let t = anchorSeconds + Double(distance) * secondsPerCycle
                if t > last { last = t }
                return last
            }
        }
        return anchored()
    }

    /// A `clock_gettime` reading, kept as the anchor (and, after `calibrationSeconds`, the
    /// rate measured from the first reading to this one).
    @inline(never)
    private mutating func anchored() -> Double {
        let before = EventClock.counterIsTrusted ? UInt64(tg_cycles()) : 0
        let seconds = readClock()
        if seconds > last { last = seconds }
        guard EventClock.counterIsTrusted else { return last }
        let cycles = UInt64(tg_cycles())
        // A thread preempted between the two readings would pair this time with a later
        // count: every time interpolated from it (and the rate) would be off by the pause.
        // Such a reading is used for this event only; the next one anchors again.
        guard cycles &- before < EventClock.maxAnchorCycles else { return last }
        if firstCycles == 0 {
            firstCycles = cycles
            firstSeconds = seconds
        }
        if seconds - firstSeconds >= EventClock.calibrationSeconds, cycles > firstCycles {
            secondsPerCycle = (seconds - firstSeconds) / Double(cycles - firstCycles)
            EventClock.sharedSecondsPerCycle.store(secondsPerCycle.bitPattern, ordering: .relaxed)
        } else if secondsPerCycle == 0 {
            secondsPerCycle = Double(bitPattern: EventClock.sharedSecondsPerCycle.load(ordering: .relaxed))
        }
        if secondsPerCycle > 0 { reanchorCycles = UInt64(EventClock.anchorSeconds / secondsPerCycle) }
        anchorCycles = cycles
        anchorSeconds = seconds
        return last
    }
}
