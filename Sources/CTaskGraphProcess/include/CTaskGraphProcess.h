#ifndef C_TASKGRAPH_PROCESS_H
#define C_TASKGRAPH_PROCESS_H

#include <sys/types.h>

/// Makes the calling process a child subreaper (Linux `PR_SET_CHILD_SUBREAPER`): orphaned
/// descendants (daemons that `setsid` and whose parent exits) are reparented to it instead
/// of to init. Returns 0, or -1 with errno (or on systems without it).
int tgp_set_child_subreaper(void);

/// Forks the watchdog: a process in its own session, holding the read end of a pipe whose
/// write end (close-on-exec, non-blocking) is stored in `*write_fd`. Lines written to the
/// pipe record process groups (`+PGID\n`, `-PGID\n` when the group is gone). When the pipe
/// reaches end of file (every writer is gone: the caller exited, even by SIGKILL), the
/// watchdog sends SIGTERM to the recorded groups and to every process whose environment
/// has `TASKGRAPH_COMMAND=` with a word starting with `marker_prefix`, waits up to
/// `grace_ms` for them to end (signalling newcomers), sends SIGKILL to what is left, and
/// exits. The child runs only system calls (it is forked from a threaded process).
/// Returns the watchdog's pid, or -1 with errno.
pid_t tgp_watchdog_start(const char *_Nonnull marker_prefix, int grace_ms, int *_Nonnull write_fd);

#endif
