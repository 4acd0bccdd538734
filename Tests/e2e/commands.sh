#!/usr/bin/env bash
# End-to-end: no process of a `command` node survives a cancelled node (x/y), a timeout, a
# failed concurrent sibling (fail fast), q, Ctrl-C, SIGTERM or SIGHUP (docs/taskview.md), not even
# a daemon that left the group with setsid (also one that cleared its environment), not the
# end of its node, nor kill-pane; after `kill -9` of taskview its watchdog ends them.
# Every command writes its pid and a grandchild's pid to files; after each way of stopping,
# every pid must be gone (polled with kill -0, generous timeout).
# Usage: bash Tests/e2e/commands.sh PATH-TO-TASKVIEW   (ONLY="quit_q kill_9 ..." runs those tests)
set -u

E2E=commands-e2e
. "$(dirname "$0")/lib.sh"
e2e_bin "${1:?usage: commands.sh PATH-TO-TASKVIEW}"
e2e_need tmux
e2e_work taskview-cmd-e2e
# Never leave anything behind, even when a test failed.
e2e_before_rm() { kill_pid_files "$WORK"/*/pids; }
e2e_tmux

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

# A command that starts a daemon (setsid: a new session and group), then waits forever.
cat > "$WORK/daemon.sh" <<'SH'
echo $$ > "$1/$2"
setsid sh -c 'echo $$ > "$1/$2-daemon"; exec sleep 300' x "$1" "$2" &
sleep 1000
SH
# The same, the daemon with an empty environment (only the subreaper keeps track of it).
cat > "$WORK/bare.sh" <<'SH'
echo $$ > "$1/$2"
env -i /usr/bin/setsid /bin/sh -c 'echo $$ > "$1/$2-bare"; exec sleep 300' x "$1" "$2" &
sleep 1000
SH

# scenario NAME JSON: writes $WORK/NAME/s.json with CHILD/STUBBORN/DAEMON/BARE/PIDS replaced.
scenario() {
    mkdir -p "$WORK/$1/pids"
    printf '%s\n' "$2" | sed -e "s|CHILD|$WORK/child.sh|g" -e "s|STUBBORN|$WORK/stubborn.sh|g" \
        -e "s|DAEMON|$WORK/daemon.sh|g" -e "s|BARE|$WORK/bare.sh|g" \
        -e "s|PIDS|$WORK/$1/pids|g" > "$WORK/$1/s.json"
}

TWO='{"kind":"concurrent","name":"procs","children":[
  {"kind":"command","name":"one","run":["sh","CHILD","PIDS","one"]},
  {"kind":"command","name":"two","run":["sh","STUBBORN","PIDS","two"],"grace":1}]}'

# The two above plus daemons: one that keeps its environment, one that clears it.
DAEMONS='{"kind":"concurrent","name":"procs","children":[
  {"kind":"command","name":"one","run":["sh","CHILD","PIDS","one"]},
  {"kind":"command","name":"two","run":["sh","STUBBORN","PIDS","two"],"grace":1},
  {"kind":"command","name":"daemon","run":["sh","DAEMON","PIDS","d"]},
  {"kind":"command","name":"bare","run":["sh","BARE","PIDS","b"]}]}'

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
    local dir="$WORK/$1/pids"
    shift
    pids_gone "$dir" "$@"
}

running() {
    local f
    for f in "$@"; do kill -0 "$(cat "$WORK/$NAME/pids/$f")" 2>/dev/null || { echo "  $f ended too early"; return 1; }; done
}

# dash NAME: taskview's dashboard on the scenario in a tmux session; EXIT=n when it ends.
dash() {
    shell "$1" 120 30
    sleep 0.3
    keys "$1" "cd '$WORK/$1' && '$BIN' run s.json --no-record -j 16; echo EXIT=\$?" Enter
}

exited() {   # exited NAME STATUS [SECONDS]
    wait_for "$1" "^EXIT=$2" "${3:-60}"
}

cancel_node_with_x() {
    # allSettled: cancelling one child leaves its siblings running.
    scenario $NAME "${TWO/concurrent/allSettled}"
    dash $NAME
    wait_pids $NAME 4 || return 1
    wait_for $NAME 'one' 10 || return 1
    # Row 2 is "one": select it, cancel it (x asks, y confirms).
    keys $NAME j
    sleep 0.3
    keys $NAME x
    sleep 0.3
    keys $NAME y
    all_gone $NAME one one-grand || return 1
    running two two-grand || return 1
    keys $NAME q
    exited $NAME 130 && all_gone $NAME
}

timeout_node() {
    scenario $NAME '{"kind":"timeout","name":"limit","seconds":1,"children":[
      {"kind":"command","name":"one","run":["sh","CHILD","PIDS","one"]}]}'
    (cd "$WORK/$NAME" && "$BIN" run s.json --no-record --headless -j 16 > out.txt 2>&1)
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
    scenario $NAME "$DAEMONS"
    dash $NAME
    wait_pids $NAME 8 || return 1
    wait_for $NAME 'q quit' 10 || return 1
    case $1 in
        q|C-c) keys $NAME "$1" ;;
        *) kill -"$1" "$(taskview_pid $NAME)" ;;
    esac
    exited $NAME 130 && all_gone $NAME
}
quit_q() { quit_with q; }
quit_ctrl_c() { quit_with C-c; }
quit_sigterm() { quit_with TERM; }
quit_sighup() { quit_with HUP; }

headless_sigterm() {
    scenario $NAME "$DAEMONS"
    (cd "$WORK/$NAME" && exec "$BIN" run s.json --no-record --headless -j 16 > out.txt 2>&1) &
    local pid=$!
    wait_pids $NAME 8 || return 1
    kill -TERM $pid
    wait $pid
    local rc=$?
    [ $rc -eq 130 ] || { echo "  exit status $rc (want 130)"; return 1; }
    all_gone $NAME
}

# kill-pane: the pane's processes get SIGHUP, the terminal is gone.
kill_pane() {
    scenario $NAME "$DAEMONS"
    dash $NAME
    wait_pids $NAME 8 || return 1
    wait_for $NAME 'q quit' 10 || return 1
    t kill-pane -t $NAME
    all_gone $NAME
}

# A daemon started by a command that then ends (setsid -f forks): the node succeeds, and the
# daemon ends with it, while taskview runs on (the next node checks).
node_end() {
    scenario $NAME '{"kind":"sequential","name":"steps","children":[
      {"kind":"command","name":"start","run":"setsid -f sh -c '"'"'echo $$ > PIDS/d; exec sleep 300'"'"'; sleep 0.5"},
      {"kind":"command","name":"check","run":"i=0; while [ $i -lt 300 ]; do grep -q \"^State:.*[ZX]\" /proc/$(cat PIDS/d)/status 2>/dev/null || ! kill -0 $(cat PIDS/d) 2>/dev/null && exit 0; sleep 0.1; i=$((i+1)); done; echo daemon still runs >&2; exit 1"}]}'
    (cd "$WORK/$NAME" && "$BIN" run s.json --no-record --headless -j 16 > out.txt 2>&1)
    local rc=$?
    [ $rc -eq 0 ] || { echo "  exit status $rc (want 0)"; sed 's/^/  | /' "$WORK/$NAME/out.txt"; return 1; }
    all_gone $NAME
}

# kill -9 of taskview: its watchdog ends every command, its children and its daemon (the
# one that cleared its environment aside: a documented limit). A zombie that init has not
# collected yet counts as gone. Polled with a generous limit; the time taken is printed.
kill_9() {
    scenario $NAME '{"kind":"concurrent","name":"procs","children":[
      {"kind":"command","name":"one","run":["sh","CHILD","PIDS","one"]},
      {"kind":"command","name":"two","run":["sh","STUBBORN","PIDS","two"],"grace":1},
      {"kind":"command","name":"daemon","run":["sh","DAEMON","PIDS","d"]}]}'
    dash $NAME
    wait_pids $NAME 6 || return 1
    wait_for $NAME 'q quit' 10 || return 1
    local tv start f i
    tv=$(taskview_pid $NAME)
    start=$(date +%s.%N)
    kill -KILL "$tv"
    for f in $(ls "$WORK/$NAME/pids"); do
        i=0
        while kill -0 "$(cat "$WORK/$NAME/pids/$f")" 2>/dev/null \
            && ! grep -q '^State:.*[ZX]' "/proc/$(cat "$WORK/$NAME/pids/$f")/status" 2>/dev/null; do
            [ $i -ge 200 ] && { echo "  process $f ($(cat "$WORK/$NAME/pids/$f")) still runs 10 s after kill -9"; return 1; }
            sleep 0.05; i=$((i + 1))
        done
    done
    echo "  every process gone $(echo "$(date +%s.%N) - $start" | bc) s after kill -9"
}

# A pathological progress pattern on a long line (backtracking took minutes, and q waited
# for it): the line is matched in one pass, q quits at once.
pathological_pattern() {
    scenario $NAME '{"kind":"concurrent","name":"procs","children":[
      {"kind":"command","name":"aaa","progress":"^(a+)+$",
       "run":"echo $$ > PIDS/p; i=0; while [ $i -lt 20 ]; do printf \"%0999d!\\n%04096d\\n\" 0 0 | tr 0 a; i=$((i+1)); done; sleep 1000"}]}'
    dash $NAME
    wait_pids $NAME 1 || return 1
    wait_for $NAME 'q quit' 10 || return 1
    keys $NAME q
    # Quitting takes well under a second; before, it waited for the matcher, then gave up
    # after the grace + 10 s with "some command processes did not end in time".
    exited $NAME 130 8 || return 1
    ! screen $NAME | grep -q 'did not end in time' && all_gone $NAME
}

run_test cancel_node_with_x
run_test timeout_node
run_test failed_sibling
run_test quit_q
run_test quit_ctrl_c
run_test quit_sigterm
run_test quit_sighup
run_test headless_sigterm
run_test kill_pane
run_test node_end
run_test kill_9
run_test pathological_pattern

e2e_summary
