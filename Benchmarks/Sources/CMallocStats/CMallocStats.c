#include "CMallocStats.h"
#include <malloc.h>

size_t bench_malloced_bytes(void) {
    struct mallinfo2 info = mallinfo2();
    return info.uordblks + info.hblkhd;
}
