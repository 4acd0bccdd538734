#!/usr/bin/env bash
# End-to-end: output as people read it (docs/taskview.md): `/` searches a command's output in the
# detail pane, n/N go through the matches; `o` shows the whole output in $PAGER and q comes
# back (a missing $PAGER is said in the footer); `p` prints plain lines until a key; no process
# is left after quitting.
# Usage: bash Tests/e2e/output.sh PATH-TO-TASKVIEW
set -u

E2E=output-e2e
. "$(dirname "$0")/lib.sh"
e2e_bin "${1:?usage: output.sh PATH-TO-TASKVIEW}"
e2e_need tmux
e2e_work taskview-out-e2e
e2e_before_rm() { kill_pid_files "$WORK"/*/pids; }
e2e_tmux

# A command that records its pid, prints 60 lines (one of them "NEEDLE 42", one on stderr),
# then waits.
cat > "$WORK/talk.sh" <<'SH'
echo $$ > "$1/$2"
i=1
while [ $i -le 60 ]; do
    if [ $i -eq 42 ]; then echo "NEEDLE $i"; elif [ $i -eq 50 ]; then echo "warning $i" >&2; else echo "line $i"; fi
    i=$((i + 1))
done
# Then, once the test touches ../go, one more line.
while [ ! -f "$1/../go" ]; do sleep 0.1; done
echo "LATE line"
exec sleep 1000
SH

scenario() {
    mkdir -p "$WORK/$1/pids"
    printf '%s\n' '{"kind":"command","name":"talk","run":["sh","TALK","PIDS","talk"]}' \
        | sed -e "s|TALK|$WORK/talk.sh|g" -e "s|PIDS|$WORK/$1/pids|g" > "$WORK/$1/s.json"
}

# scrollback NAME: the screen and the 500 lines above it.
scrollback() { t capture-pane -t "$1" -p -S -500; }
in_scrollback() {
    poll "${3:-30}" scrollback_has "$1" "$2" && return 0
    echo "  timed out waiting for /$2/ in the scrollback:"; scrollback "$1" | tail -40 | sed 's/^/  | /'; return 1
}
scrollback_has() { scrollback "$1" | grep -qE -- "$2"; }

# dash NAME [ENV...]: taskview's dashboard on the scenario in a tmux session; EXIT=n when it ends.
dash() {
    local name=$1; shift
    shell "$name" 100 30 "$@"
    sleep 0.3
    keys "$name" "cd '$WORK/$name' && '$BIN' run s.json ${RECORD:---no-record}; echo EXIT=\$?" Enter
}

# all_gone NAME: every recorded pid ends within 30 s.
all_gone() { pids_gone "$WORK/$1/pids"; }

# quit NAME: q ends the session (the command is cancelled: 130) and nothing is left.
quit() {
    keys "$1" q
    wait_for "$1" '^EXIT=130' 60 && all_gone "$1"
}

# Ready: the detail pane of the running command, its 60 lines printed.
open_detail() {
    scenario "$1"
    dash "$@"
    wait_for "$1" 'talk' 10 || return 1
    keys "$1" Enter
    wait_for "$1" 'Output \(last 60 of 60 lines\)' 10
}

search_in_detail_pane() {
    open_detail $NAME || return 1
    wait_gone $NAME 'NEEDLE' 5 || return 1
    keys $NAME / n e e d l e
    wait_for $NAME 'search output: needle_' 5 || return 1
    keys $NAME Enter
    wait_for $NAME 'detail: match 1 of 1 \(n/N\) \(Esc clears\)' 5 || return 1
    wait_for $NAME '^>  NEEDLE 42' 5 || return 1
    keys $NAME n
    wait_for $NAME 'match 1 of 1' 5 || return 1
    # Esc clears the search; the pane follows the newest lines again.
    keys $NAME Escape
    wait_for $NAME 'detail \(Esc closes\)' 5 || return 1
    keys $NAME / z z z Enter
    wait_for $NAME 'detail: no match for "zzz"' 5 || return 1
    quit $NAME
}

# `o`: the whole output in less; q returns to the dashboard, which kept running.
pager_less() {
    open_detail $NAME PAGER=less LESS= || return 1
    keys $NAME o
    wait_for $NAME '^line 1$' 10 || return 1
    wait_gone $NAME 'detail' 5 || return 1
    # (stdout and stderr are separate pipes: the stderr line's place is not fixed)
    keys $NAME / w a r n i n g Enter
    wait_for $NAME '^! warning 50$' 10 || return 1
    keys $NAME G
    wait_for $NAME '^line 60$' 10 || return 1
    wait_for $NAME '^NEEDLE 42$' 5 || return 1
    keys $NAME q
    wait_for $NAME 'detail \(Esc closes\)' 10 || return 1
    wait_gone $NAME '^line 1$' 5 || return 1
    quit $NAME
}

# A $PAGER that does not exist: the footer says so and the dashboard stays.
pager_missing() {
    open_detail $NAME PAGER=/nonexistent || return 1
    keys $NAME o
    wait_for $NAME 'Cannot open the output: \$PAGER "/nonexistent" does not exist' 10 || return 1
    wait_for $NAME 'detail \(Esc closes\)' 5 || return 1
    quit $NAME
}

# A $PAGER that exits non-zero: the footer names it and its status, the dashboard stays.
pager_fails() {
    open_detail $NAME PAGER=false || return 1
    keys $NAME o
    wait_for $NAME 'The pager failed: \$PAGER "false" exited with status 1' 10 || return 1
    wait_for $NAME 'detail \(Esc closes\)' 5 || return 1
    quit $NAME
}

# A log that cannot be written (/dev/full: every write is ENOSPC; a path under a file): the
# run still says its outcome, then `cannot write PATH: REASON`, exit 2, never "Log written".
record_full() {
    local d="$WORK/$NAME" out
    mkdir -p "$d"
    printf '%s\n' '{"kind":"command","name":"say","run":"echo password=hunter2"}' > "$d/s.json"
    out=$(cd "$d" && "$BIN" run s.json --headless --record /dev/full 2>&1; echo "EXIT=$?")
    echo "$out" | grep -q '^EXIT=2$' || { echo "  want EXIT=2:"; echo "$out" | sed 's/^/  | /'; return 1; }
    echo "$out" | grep -qx 'taskview: cannot write /dev/full: No space left on device' \
        || { echo "  no cannot-write line:"; echo "$out" | sed 's/^/  | /'; return 1; }
    echo "$out" | grep -q 'succeeded' || { echo "  the run's outcome is not said"; return 1; }
    echo "$out" | grep -q 'Log written' && { echo "  claims the log was written"; return 1; }
    out=$(cd "$d" && "$BIN" run s.json --headless --record s.json/log.jsonl 2>&1; echo "EXIT=$?")
    echo "$out" | grep -q '^EXIT=2$' && echo "$out" | grep -qx 'taskview: cannot write s.json/log.jsonl: Not a directory' \
        || { echo "  a log under a file:"; echo "$out" | sed 's/^/  | /'; return 1; }
}

# mode PATH: its permission bits in octal.
mode() { stat -c %a "$1"; }

# Logs, their directory and the output files are 0600/0700 whatever the umask (they hold every
# output line); an export too.
private_modes() {
    local d="$WORK/$NAME" u
    for u in 022 000 077; do
        rm -rf "$d" && mkdir -p "$d"
        printf '%s\n' '{"kind":"command","name":"say","run":"echo password=hunter2"}' > "$d/s.json"
        (cd "$d" && umask $u && "$BIN" run s.json --headless >/dev/null 2>&1) || { echo "  umask $u: run failed"; return 1; }
        local log
        log=$(ls "$d"/taskview-logs/*.jsonl | head -1)
        [ "$(mode "$d/taskview-logs")" = 700 ] || { echo "  umask $u: taskview-logs is $(mode "$d/taskview-logs")"; return 1; }
        [ "$(mode "$log")" = 600 ] || { echo "  umask $u: the log is $(mode "$log")"; return 1; }
        (cd "$d" && umask $u && "$BIN" export "$log" -o trace.json >/dev/null 2>&1) || { echo "  umask $u: export failed"; return 1; }
        [ "$(mode "$d/trace.json")" = 600 ] || { echo "  umask $u: the export is $(mode "$d/trace.json")"; return 1; }
    done
    # The dashboard's output directory beside the log, and its files.
    RECORD=--record=log.jsonl open_detail $NAME || return 1
    quit $NAME || return 1
    local f
    f=$(ls "$d"/log.output/*.log 2>/dev/null | head -1)
    [ -n "$f" ] || { echo "  no output file in log.output/"; return 1; }
    [ "$(mode "$d/log.output")" = 700 ] && [ "$(mode "$f")" = 600 ] && [ "$(mode "$d/log.jsonl")" = 600 ] \
        || { echo "  modes: log.output $(mode "$d/log.output"), $f $(mode "$f"), log $(mode "$d/log.jsonl")"; return 1; }
}

# Recorded: the whole output is kept beside the log (LOG.output/ID.log), and stays; a
# replay of the log opens what it recorded.
output_beside_log() {
    RECORD=--record=log.jsonl open_detail $NAME || return 1
    quit $NAME || return 1
    local f
    f=$(ls "$WORK/$NAME"/log.output/*.log 2>/dev/null | head -1)
    [ -n "$f" ] || { echo "  no output file in log.output/"; return 1; }
    [ "$(wc -l < "$f")" -eq 60 ] || { echo "  $(wc -l < "$f") lines in $f (want 60)"; return 1; }
    grep -qx 'NEEDLE 42' "$f" && grep -qx '! warning 50' "$f" || { echo "  $f lacks lines"; return 1; }
    # The replay's o shows what the log recorded for the node.
    keys $NAME "clear; PAGER=less LESS= '$BIN' replay log.jsonl; echo EXIT=\$?" Enter
    wait_for $NAME 'talk' 10 || return 1
    keys $NAME 9
    sleep 0.5
    keys $NAME o
    wait_for $NAME '^line 1$' 10 || return 1
    # (stdout and stderr are separate pipes: the stderr line's place is not fixed)
    keys $NAME / w a r n i n g Enter
    wait_for $NAME '^! warning 50$' 10 || return 1
    keys $NAME G
    wait_for $NAME '^line 60$' 10 || return 1
    keys $NAME q
    wait_gone $NAME '^line 1$' 5 || return 1
    keys $NAME q
    wait_for $NAME '^EXIT=' 20
}

# Not recorded: the files live in a temporary directory removed at exit.
no_record_leaves_nothing() {
    mkdir -p "$WORK/$NAME/tmp"
    open_detail $NAME TMPDIR="$WORK/$NAME/tmp" || return 1
    [ -n "$(ls "$WORK/$NAME/tmp")" ] || { echo "  no temporary directory while running"; return 1; }
    quit $NAME || return 1
    [ -z "$(ls "$WORK/$NAME/tmp")" ] || { echo "  left behind: $(ls "$WORK/$NAME/tmp")"; return 1; }
}

# `p`: plain lines in the terminal's own screen (missed ones first, then live ones); any key
# returns to the dashboard, and the key does nothing else.
plain_mode() {
    open_detail $NAME || return 1
    keys $NAME p
    wait_for $NAME '^\[[0-9.]+\] #[0-9]+ talk \| line 60$' 10 || return 1
    in_scrollback $NAME 'plain mode \(p or any key returns to the dashboard\)' 5 || return 1
    in_scrollback $NAME '^\[[0-9.]+\] #[0-9]+ talk: executing$' 5 || return 1
    in_scrollback $NAME '^\[[0-9.]+\] #[0-9]+ talk \| line 1$' 5 || return 1
    in_scrollback $NAME '^\[[0-9.]+\] #[0-9]+ talk \| ! warning 50$' 5 || return 1
    wait_gone $NAME 'detail' 5 || return 1
    touch "$WORK/$NAME/go"
    wait_for $NAME '^\[[0-9.]+\] #[0-9]+ talk \| LATE line$' 10 || return 1
    keys $NAME x
    wait_for $NAME 'detail \(Esc closes\)' 10 || return 1
    wait_for $NAME 'LATE line' 5 || return 1
    screen $NAME | grep -q 'Cancel' && { echo "  the key went to the dashboard too"; return 1; }
    # p again: plain, then p returns.
    keys $NAME p
    wait_gone $NAME 'detail' 10 || return 1
    keys $NAME p
    wait_for $NAME 'detail \(Esc closes\)' 10 || return 1
    quit $NAME
}

run_test search_in_detail_pane
run_test output_beside_log
run_test no_record_leaves_nothing
run_test pager_less
run_test pager_missing
run_test pager_fails
run_test record_full
run_test private_modes
run_test plain_mode

e2e_summary
