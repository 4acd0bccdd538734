// The watchdog of TaskGraphProcess (see CTaskGraphProcess.h). After fork() in a threaded
// process the child may only make async-signal-safe calls: everything here is a system
// call on static buffers (no malloc, no stdio, no locks).
#define _GNU_SOURCE
#include "CTaskGraphProcess.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/prctl.h>
#endif

int tgp_set_child_subreaper(void) {
#if defined(__linux__)
    return prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
#else
    errno = ENOSYS;
    return -1;
#endif
}

#if defined(__linux__)

enum { MAX_GROUPS = 4096, MARKER_MAX = 128 };
static pid_t groups[MAX_GROUPS];
static int group_count;
static char marker[MARKER_MAX];
static size_t marker_len;
static char environ_buf[1 << 20];
static char dirents[1 << 15];

static void record(char op, long pgid) {
    if (pgid <= 1) return;
    if (op == '+') {
        for (int i = 0; i < group_count; i++)
            if (groups[i] == pgid) return;
        if (group_count < MAX_GROUPS) groups[group_count++] = (pid_t)pgid;
    } else {
        for (int i = 0; i < group_count; i++)
            if (groups[i] == pgid) {
                groups[i] = groups[--group_count];
                return;
            }
    }
}

/// True when `pid`'s environment has TASKGRAPH_COMMAND= with a word starting with the marker.
static int marked(const char *pid) {
    static const char name[] = "TASKGRAPH_COMMAND=";
    char path[64] = "/proc/";
    size_t n = 6, l = strlen(pid);
    if (l > 40) return 0;
    memcpy(path + n, pid, l);
    n += l;
    memcpy(path + n, "/environ", 9);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    size_t len = 0;
    for (;;) {
        ssize_t r = read(fd, environ_buf + len, sizeof environ_buf - 1 - len);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        len += (size_t)r;
        if (len >= sizeof environ_buf - 1) break;
    }
    close(fd);
    environ_buf[len] = 0;
    for (size_t i = 0; i < len;) {
        size_t e = i;
        while (e < len && environ_buf[e]) e++;
        if (e - i > sizeof name - 1 && memcmp(environ_buf + i, name, sizeof name - 1) == 0) {
            size_t w = i + sizeof name - 1;
            while (w < e) {
                while (w < e && environ_buf[w] == ' ') w++;
                size_t we = w;
                while (we < e && environ_buf[we] != ' ') we++;
                if (we - w >= marker_len && memcmp(environ_buf + w, marker, marker_len) == 0) return 1;
                w = we;
            }
        }
        i = e + 1;
    }
    return 0;
}

/// Signals every recorded group and every marked process; returns how many marked processes
/// were found alive.
static int sweep(int sig) {
    for (int i = 0; i < group_count; i++) kill(-groups[i], sig);
    int fd = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return 0;
    pid_t self = getpid();
    int found = 0;
    for (;;) {
        long n = syscall(SYS_getdents64, fd, dirents, sizeof dirents);
        if (n <= 0) break;
        for (long off = 0; off < n;) {
            struct {
                unsigned long long ino;
                long long off;
                unsigned short reclen;
                unsigned char type;
                char name[];
            } *d = (void *)(dirents + off);
            off += d->reclen;
            long pid = 0;
            const char *c = d->name;
            if (*c < '1' || *c > '9') continue;
            for (; *c >= '0' && *c <= '9'; c++) pid = pid * 10 + (*c - '0');
            if (*c || pid == self) continue;
            if (marked(d->name)) {
                found++;
                kill((pid_t)pid, sig);
            }
        }
    }
    close(fd);
    return found;
}

static void nap_ms(int ms) {
    struct timespec t = {ms / 1000, (long)(ms % 1000) * 1000000L};
    while (nanosleep(&t, &t) != 0 && errno == EINTR) {}
}

static long now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static void watch(int fd, int grace_ms) {
    char buf[512];
    char line[32];
    size_t used = 0;
    for (;;) {
        ssize_t r = read(fd, buf, sizeof buf);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        for (ssize_t i = 0; i < r; i++) {
            if (buf[i] != '\n') {
                if (used < sizeof line - 1) line[used++] = buf[i];
                continue;
            }
            if (used >= 2 && (line[0] == '+' || line[0] == '-')) {
                long v = 0;
                for (size_t k = 1; k < used && line[k] >= '0' && line[k] <= '9'; k++) v = v * 10 + (line[k] - '0');
                record(line[0], v);
            }
            used = 0;
        }
    }
    // The owner is gone. SIGTERM, newcomers too, until nothing is left or the grace is over;
    // then SIGKILL until nothing is left (a killed process cannot fork any more).
    long deadline = now_ms() + grace_ms;
    while (sweep(SIGTERM) > 0 && now_ms() < deadline) nap_ms(20);
    for (int i = 0; i < 100 && sweep(SIGKILL) > 0; i++) nap_ms(10);
}

pid_t tgp_watchdog_start(const char *marker_prefix, int grace_ms, int *write_fd) {
    size_t l = strlen(marker_prefix);
    if (l == 0 || l >= MARKER_MAX) {
        errno = EINVAL;
        return -1;
    }
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) return -1;
    memcpy(marker, marker_prefix, l + 1);
    marker_len = l;
    pid_t pid = fork();
    if (pid < 0) {
        int e = errno;
        close(fds[0]);
        close(fds[1]);
        errno = e;
        return -1;
    }
    if (pid == 0) {
        setsid();  // away from the terminal's signals (Ctrl-C, hangup) and the caller's group
        struct sigaction ign;
        memset(&ign, 0, sizeof ign);
        ign.sa_handler = SIG_IGN;
        sigaction(SIGHUP, &ign, NULL);
        sigaction(SIGINT, &ign, NULL);
        sigaction(SIGTERM, &ign, NULL);
        sigaction(SIGPIPE, &ign, NULL);
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        int rfd = fds[0];
        // Keep nothing of the caller's open: only the pipe's read end, as fd 3.
        if (rfd != 3) {
            dup2(rfd, 3);
            rfd = 3;
        }
        if (syscall(SYS_close_range, 4U, ~0U, 0) != 0)
            for (int f = 4; f < 65536; f++) close(f);
        int null = open("/dev/null", O_RDWR);
        if (null >= 0) {
            dup2(null, 0);
            dup2(null, 1);
            dup2(null, 2);
            if (null > 3) close(null);
        }
        prctl(PR_SET_NAME, "taskgraph-watch", 0, 0, 0);
        watch(rfd, grace_ms);
        _exit(0);
    }
    close(fds[0]);
    fcntl(fds[1], F_SETFL, fcntl(fds[1], F_GETFL) | O_NONBLOCK);
    *write_fd = fds[1];
    return pid;
}

#else

pid_t tgp_watchdog_start(const char *marker_prefix, int grace_ms, int *write_fd) {
    (void)marker_prefix;
    (void)grace_ms;
    (void)write_fd;
    errno = ENOSYS;
    return -1;
}

#endif
