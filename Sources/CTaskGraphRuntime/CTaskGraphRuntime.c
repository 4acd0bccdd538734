// The Swift runtime's function is declared in include/CTaskGraphRuntime.h; the thread-local
// slots are defined here.
#include "CTaskGraphRuntime.h"

__thread void *tg_thread_trampoline = 0;
__thread void *tg_thread_release_pool = 0;
__thread long tg_thread_locks_held = 0;

// The slow path of the graph's lock (Lock.swift): a futex on Linux.
#if defined(__linux__)
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

void tg_futex_wait(unsigned int *word, unsigned int expected) {
    syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, expected, (void *)0, (void *)0, 0);
}

void tg_futex_wake_one(unsigned int *word) {
    syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, 1, (void *)0, (void *)0, 0);
}
#else
#include <time.h>

// No futex: the waiter sleeps 20 µs and looks again (correct, not fast).
void tg_futex_wait(unsigned int *word, unsigned int expected) {
    if (__atomic_load_n(word, __ATOMIC_RELAXED) != expected) return;
    struct timespec pause = { 0, 20000 };
    nanosleep(&pause, (struct timespec *)0);
}

void tg_futex_wake_one(unsigned int *word) { (void)word; }
#endif
