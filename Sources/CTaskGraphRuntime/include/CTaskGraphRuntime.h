#ifndef C_TASKGRAPH_RUNTIME_H
#define C_TASKGRAPH_RUNTIME_H

/// The Swift runtime's "retain unless its deinit has started": returns `object` retained,
/// or NULL. What loading a `weak` reference does, without giving the object a side table.
/// Declared here because Swift reserves the runtime's names (`@_silgen_name` warns), and
/// linked, not looked up, so it works with a static Swift standard library too.
/// `object` must be a native Swift object whose memory is still allocated.
void *_Nullable swift_tryRetain(void *_Nonnull object);

/// The calling thread's trampoline and release pool (Trampoline.swift): thread-local slots
/// read in an instruction or two, where `pthread_getspecific` is a call, and Swift's lazily
/// made key a `swift_once` check, on every hop of a chain (ten a link in W2). The pthread
/// keys stay, only for their destructors at thread exit, which clear these slots.
extern __thread void *_Nullable tg_thread_trampoline;
extern __thread void *_Nullable tg_thread_release_pool;
static inline void *_Nullable tg_get_trampoline(void) { return tg_thread_trampoline; }
static inline void tg_set_trampoline(void *_Nullable p) { tg_thread_trampoline = p; }
static inline void *_Nullable tg_get_release_pool(void) { return tg_thread_release_pool; }
static inline void tg_set_release_pool(void *_Nullable p) { tg_thread_release_pool = p; }
/// A word that tells the calling thread from every other living thread (the address of its
/// trampoline slot): debug builds' lock-owner checks (Lock.swift).
static inline unsigned long tg_thread_id(void) { return (unsigned long)(void *)&tg_thread_trampoline; }
/// How many `Lock`s the calling thread holds: kept by debug builds only, for the assertion of
/// `…Locked` functions that have no reference to their lock (a driver's owner's stripe).
extern __thread long tg_thread_locks_held;
static inline long tg_locks_held(void) { return tg_thread_locks_held; }
static inline void tg_add_locks_held(long delta) { tg_thread_locks_held += delta; }

/// The CPU's cycle counter (x86-64 TSC, arm64 virtual counter), unordered; 0 where there is
/// none. A few nanoseconds, where `clock_gettime` through the vDSO takes about 20: the graph
/// reads it for every observed event (see EventClock.swift).
static inline unsigned long long tg_cycles(void) {
#if defined(__x86_64__)
    unsigned int lo, hi;
    __asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
    return ((unsigned long long)hi << 32) | lo;
#elif defined(__aarch64__)
    unsigned long long v;
    __asm__ __volatile__("mrs %0, cntvct_el0" : "=r"(v));
    return v;
#else
    return 0;
#endif
}

/// A hint to the CPU that this thread spins waiting for another (a contended lock).
static inline void tg_cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
    __asm__ __volatile__("pause");
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

/// Sleeps while `*word` equals `expected` (Linux: a private futex wait; it may also return
/// spuriously, so callers loop). Elsewhere a short sleep: callers poll.
void tg_futex_wait(unsigned int *_Nonnull word, unsigned int expected);
/// Wakes one thread sleeping in `tg_futex_wait` on `word` (elsewhere: nothing to do).
void tg_futex_wake_one(unsigned int *_Nonnull word);

#endif
