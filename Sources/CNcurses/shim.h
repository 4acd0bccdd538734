#ifndef TASKVIEW_CNCURSES_SHIM_H
#define TASKVIEW_CNCURSES_SHIM_H

// Wide-character API of ncursesw (cchar_t, mvwaddnwstr, get_wch, ...).
#ifndef _XOPEN_SOURCE_EXTENDED
#define _XOPEN_SOURCE_EXTENDED 1
#endif
#ifndef NCURSES_WIDECHAR
#define NCURSES_WIDECHAR 1
#endif

#include <locale.h>
#include <langinfo.h>
#include <signal.h>
#include <stdio.h>
#include <wchar.h>
#include <unistd.h>

#if __has_include(<ncursesw/ncurses.h>)
#include <ncursesw/ncurses.h>
#else
#include <ncurses.h>
#endif

// Attribute macros do not import into Swift: typed copies.
static const attr_t tv_A_NORMAL = A_NORMAL;
static const attr_t tv_A_BOLD = A_BOLD;
static const attr_t tv_A_DIM = A_DIM;
static const attr_t tv_A_REVERSE = A_REVERSE;
static const attr_t tv_A_UNDERLINE = A_UNDERLINE;

// Function-like macros and globals Swift 6 rejects, as inline functions.
static inline int tv_getmaxy(WINDOW *w) { return getmaxy(w); }
static inline int tv_getmaxx(WINDOW *w) { return getmaxx(w); }
static inline int tv_colors(void) { return COLORS; }
static inline WINDOW *tv_stdscr(void) { return stdscr; }
static inline FILE *tv_fdopen(int fd, const char *mode) { return fdopen(dup(fd), mode); }
static inline int tv_key_f(int n) { return KEY_F(n); }
static inline const char *tv_codeset(void) { return nl_langinfo(CODESET); }

// Draws one wide character with attributes and colour pair at (y, x).
static inline int tv_put(WINDOW *w, int y, int x, wchar_t ch, attr_t attrs, short pair) {
    wchar_t text[2] = { ch, 0 };
    cchar_t cell;
    if (setcchar(&cell, text, attrs, pair, NULL) != OK) return ERR;
    return mvwadd_wch(w, y, x, &cell);
}

// Reads back the character and attributes at (y, x) (for off-terminal tests).
static inline int tv_read(WINDOW *w, int y, int x, wchar_t *ch, attr_t *attrs, short *pair) {
    cchar_t cell;
    wchar_t text[CCHARW_MAX + 1];
    if (mvwin_wch(w, y, x, &cell) == ERR) return ERR;
    if (getcchar(&cell, text, attrs, pair, NULL) == ERR) return ERR;
    *ch = text[0];
    return OK;
}

// Mouse: presses and the wheel (on), or nothing (off); no click resolution (interval 0):
// the caller tells double clicks by time, which does not depend on how the reports arrive.
// Returns whether the terminal reports any of them.
static inline int tv_mouse(int on) {
    mmask_t want = 0, got = 0;
    if (on) {
        want = BUTTON1_PRESSED | BUTTON1_RELEASED | BUTTON4_PRESSED;
#ifdef BUTTON5_PRESSED
        want |= BUTTON5_PRESSED;
#endif
    }
    mouseinterval(0);
    got = mousemask(want, NULL);
    return got != 0;
}

// One mouse event after KEY_MOUSE: 1 press, 5 release, 6 a whole click (press and release
// reported as one), 2 double click, 3 wheel up, 4 wheel down, 0 other.
static inline int tv_read_mouse(int *y, int *x) {
    MEVENT e;
    if (getmouse(&e) != OK) return 0;
    *y = e.y;
    *x = e.x;
    if (e.bstate & BUTTON1_DOUBLE_CLICKED) return 2;
    if ((e.bstate & BUTTON1_CLICKED) || ((e.bstate & BUTTON1_PRESSED) && (e.bstate & BUTTON1_RELEASED))) return 6;
    if (e.bstate & BUTTON1_PRESSED) return 1;
    if (e.bstate & BUTTON1_RELEASED) return 5;
    if (e.bstate & BUTTON4_PRESSED) return 3;
#ifdef BUTTON5_PRESSED
    if (e.bstate & BUTTON5_PRESSED) return 4;
#endif
    return 0;
}

#if defined(__GLIBC__)
#include <malloc.h>
#endif

// At most two malloc arenas (glibc makes up to 8 per core): a reader thread allocates what
// the main thread frees, and with an arena per thread the freed memory stayed spread over
// them (an attached viewer grew by 68 MiB over a million requests instead of 33).
// A fixed mmap threshold: glibc raises it (up to 32 MiB) each time a mapped block is freed, so
// the large arrays of a lagging viewer (event batches, snapshots) then came from the arenas
// and fragmented them (the viewer grew by 55-75 MiB in 3 of 10 runs of a million requests;
// with 256 KiB fixed, by 10-26 MiB in 8 of 8).
static inline void tv_tune_malloc(void) {
#if defined(__GLIBC__) && defined(M_ARENA_MAX)
    mallopt(M_ARENA_MAX, 2);
#endif
#if defined(__GLIBC__) && defined(M_MMAP_THRESHOLD)
    mallopt(M_MMAP_THRESHOLD, 256 * 1024);
#endif
}

// Empties the signal mask (processes spawned by Swift Testing inherit blocked signals).
static inline void tv_unblock_signals(void) {
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
}

#endif
