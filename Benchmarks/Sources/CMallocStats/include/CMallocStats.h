#ifndef CMALLOCSTATS_H
#define CMALLOCSTATS_H
#include <stddef.h>

/// Bytes currently allocated through glibc's malloc: in-use bytes of every arena plus
/// mmap'd blocks (mallinfo2's uordblks + hblkhd). Swift's Glibc module does not export
/// <malloc.h>, hence this shim.
size_t bench_malloced_bytes(void);

#endif
