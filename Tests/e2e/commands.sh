#!/usr/bin/env bash
# End-to-end: no process of a `command` node survives a cancelled node (x/y), a timeout, a
# failed concurrent sibling (fail fast), q, Ctrl-C, SIGTERM or SIGHUP (commands.md).
# Every command writes its pid and a grandchild's pid to files; after each way of stopping,
# every pid must be gone (polled with kill -0, generous timeout).
# Usage: bash Tests/e2e/commands.sh PATH-TO-TASKVIEW
set -u

BIN=${1:?usage: commands.sh PATH-TO-TASKVIEW}
case "$BIN" in /*) ;; *) BIN="$PWD/$BIN" ;; esac
[ -x "$BIN" ] || { echo "commands-e2e: not executable: $BIN"; exit 1; }
command -v tmux >/dev/null || { echo "commands-e2e: tmux is not installed"; exit 1; }

WORK=$(mktemp -d "${TMPDIR:-/tmp}/taskview-cmd-e2e.XXXXXX")
SOCK="$WORK/sock"
PASSED=0
FAILED=0
export LC_ALL=C.UTF-8
t() { tmux -S "$SOCK" -f /dev/null "$@"; }
cleanup() {
    t kill-server >/dev/null 2>&1
    # Never leave anything behind, even when a test failed.
    for f in "$WORK"/*/pids/*; do [ -f "$f" ] && kill -KILL "$(cat "$f")" 2>/dev/null; done
    rm -rf "$WORK"
}
trap cleanup EXIT
t new-session -d -s keep -x 80 -y 10 "sleep 100000"

# A command that records its pid and a grandchild's, then waits forever.
cat > "$WORK/child.sh" <<'SH'
echo $$ > "$1/$2"
sh -c 'echo $$ > "$1/$2-grand"; exec sleep 1000' x "$1" "$2" &
sleep 1000
SH
# The same, ignoring SIGTERM (only SIGKILL after the grace ends it).
cat > "$WORK/stubborn.sh" <<'SH'
trap '' TERM
echo $$ > "$1/$2"
sh -c 'trap "" TERM; echo $$ > "$1/$2-grand"; while :; do sleep 1; done' x "$1" "$2" &
while :; do sleep 1; done
SH

# scenario NAME JSON: writes $WORK/NAME/s.json with CHILD/STUBBORN/PIDS replaced.
scenario() {
    mkdir -p "$WORK/$1/pids"
    printf '%s\n' "$2" | sed -e "s|CHILD|$WORK/child.sh|g" -e "s|STUBBORN|$WORK/stubborn.sh|g" \
        -e "s|PIDS|$WORK/$1/pids|g" > "$WORK/$1/s.json"
}

TWO='{"kind":"concurrent","name":"procs","children":[
  {"kind":"command","name":"one","run":["sh","CHILD","PIDS","one"]},
  {"kind":"command","name":"two","run":["sh","STUBBORN","PIDS","two"],"grace":1}]}'

# wait_pids NAME COUNT: COUNT pid files written.
wait_pids() {
    local i=0
    while [ "$(ls "$WORK/$1/pids" | wc -l)" -lt "$2" ]; do
        [ $i -ge 600 ] && { echo "  only $(ls "$WORK/$1/pids" | wc -l) of $2 pid files after 30 s"; return 1; }
        sleep 0.05; i=$((i + 1))
    done
    sleep 0.2
}

# all_gone NAME [FILES...]: every pid (or the named files' pids) ends within 30 s.
all_gone() {
    local dir="$WORK/$1/pids"; shift
    local files=("$@") f i
    [ ${#files[@]} -eq 0 ] && files=($(ls "$dir"))
    for f in "${files[@]}"; do
        i=0
        while kill -0 "$(cat "$dir/$f")" 2>/dev/null; do
            [ $i -ge 600 ] && { echo "  process $f ($(cat "$dir/$f")) still runs"; return 1; }
            sleep 0.05; i=$((i + 1))
        done
    done
}

running() {
    local f
    for f in "$@"; do kill -0 "$(cat "$WORK/$NAME/pids/$f")" 2>/dev/null || { echo "  $f ended too early"; return 1; }; done
}

screen() { t capture-pane -t "$1" -p; }
wait_for() {
    local i=0
    while [ $i -lt $(( ${3:-30} * 20 )) ]; do
        screen "$1" | grep -qE -- "$2" && return 0
        sleep 0.05; i=$((i + 1))
    done
    echo "  timed out waiting for /$2/:"; screen "$1" | sed 's/^/  | /'; return 1
}

# dash NAME: taskview's dashboard on the scenario in a tmux session; EXIT=n when it ends.
dash() {
    t new-session -d -s "$1" -x 120 -y 30 "env TERM=tmux-256color bash --norc --noprofile"
    sleep 0.3
    t send-keys -t "$1" "cd '$WORK/$1' && '$BIN' run s.json --no-record; echo EXIT=\$?" Enter
}

exited() {
    wait_for "$1" "^EXIT=$2" 60
}

taskview_pid() {
    local shell_pid p
    shell_pid=$(t display-message -p -t "$1" '#{pane_pid}')
    for p in /proc/[0-9]*; do
        [ "$(awk '{print $4}' "$p/stat" 2>/dev/null)" = "$shell_pid" ] && { echo "${p#/proc/}"; return; }
    done
}

run_test() {
    NAME=$1
    if "$@"; then PASSED=$((PASSED + 1)); echo "ok   $1"; else FAILED=$((FAILED + 1)); echo "FAIL $1"; fi
    t kill-session -t "$1" >/dev/null 2>&1
}

cancel_node_with_x() {
    # allSettled: cancelling one child leaves its siblings running.
    scenario $NAME "${TWO/concurrent/allSettled}"
    dash $NAME
    wait_pids $NAME 4 || return 1
    wait_for $NAME 'one' 10 || return 1
    # Row 2 is "one": select it, cancel it (x asks, y confirms).
    t send-keys -t $NAME j
    sleep 0.3
    t send-keys -t $NAME x
    sleep 0.3
    t send-keys -t $NAME y
    all_gone $NAME one one-grand || return 1
    running two two-grand || return 1
    t send-keys -t $NAME q
    exited $NAME 130 && all_gone $NAME
}

timeout_node() {
    scenario $NAME '{"kind":"timeout","name":"limit","seconds":1,"children":[
      {"kind":"command","name":"one","run":["sh","CHILD","PIDS","one"]}]}'
    (cd "$WORK/$NAME" && "$BIN" run s.json --no-record --headless > out.txt 2>&1)
    [ $? -eq 1 ] || { echo "  exit status $? (want 1)"; return 1; }
    grep -q 'timed out\|timeout' "$WORK/$NAME/out.txt" || { sed 's/^/  | /' "$WORK/$NAME/out.txt"; return 1; }
    [ "$(ls "$WORK/$NAME/pids" | wc -l)" -eq 2 ] || { echo "  the command did not start"; return 1; }
    all_gone $NAME
}

failed_sibling() {
    scenario $NAME '{"kind":"concurrent","name":"procs","children":[
      {"kind":"command","name":"one","run":["sh","CHILD","PIDS","one"]},
      {"kind":"command","name":"two","run":["sh","STUBBORN","PIDS","two"],"grace":1},
      {"kind":"command","name":"bad","run":"sleep 1; echo broken >&2; exit 3"}]}'
    (cd "$WORK/$NAME" && "$BIN" run s.json --no-record --headless -j 3 > out.txt 2>&1)
    [ $? -eq 1 ] || { echo "  exit status (want 1)"; return 1; }
    grep -q 'bad: failed: exit status 3: broken' "$WORK/$NAME/out.txt" || { sed 's/^/  | /' "$WORK/$NAME/out.txt"; return 1; }
    grep -q 'one: cancelled (failFast)' "$WORK/$NAME/out.txt" || { sed 's/^/  | /' "$WORK/$NAME/out.txt"; return 1; }
    [ "$(ls "$WORK/$NAME/pids" | wc -l)" -eq 4 ] || { echo "  not every command started"; return 1; }
    all_gone $NAME
}

quit_with() {   # quit_with HOW: q, C-c, TERM or HUP
    scenario $NAME "$TWO"
    dash $NAME
    wait_pids $NAME 4 || return 1
    wait_for $NAME 'q quit' 10 || return 1
    case $1 in
        q|C-c) t send-keys -t $NAME "$1" ;;
        *) kill -"$1" "$(taskview_pid $NAME)" ;;
    esac
    exited $NAME 130 && all_gone $NAME
}
quit_q() { quit_with q; }
quit_ctrl_c() { quit_with C-c; }
quit_sigterm() { quit_with TERM; }
quit_sighup() { quit_with HUP; }

headless_sigterm() {
    scenario $NAME "$TWO"
    (cd "$WORK/$NAME" && exec "$BIN" run s.json --no-record --headless > out.txt 2>&1) &
    local pid=$!
    wait_pids $NAME 4 || return 1
    kill -TERM $pid
    wait $pid
    local rc=$?
    [ $rc -eq 130 ] || { echo "  exit status $rc (want 130)"; return 1; }
    all_gone $NAME
}

run_test cancel_node_with_x
run_test timeout_node
run_test failed_sibling
run_test quit_q
run_test quit_ctrl_c
run_test quit_sigterm
run_test quit_sighup
run_test headless_sigterm

echo "commands-e2e: $PASSED passed, $FAILED failed"
[ $FAILED -eq 0 ]
