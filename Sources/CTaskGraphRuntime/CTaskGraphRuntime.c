// The Swift runtime's function is declared in include/CTaskGraphRuntime.h; the thread-local
// slots are defined here.
#include "CTaskGraphRuntime.h"

__thread void *tg_thread_trampoline = 0;
__thread void *tg_thread_release_pool = 0;
