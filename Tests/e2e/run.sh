#!/usr/bin/env bash
# End-to-end tests of the taskview dashboard in a real terminal (tmux, no TTY needed).
# Usage: bash Tests/e2e/run.sh PATH-TO-TASKVIEW
# Prints one line per test and finally "e2e: N passed, M failed"; exits non-zero on failure.
set -u

E2E=e2e
. "$(dirname "$0")/lib.sh"
e2e_bin "${1:?usage: run.sh PATH-TO-TASKVIEW}"
e2e_need tmux
e2e_work taskview-e2e
# One server for all tests; each test gets its own session running a plain shell.
e2e_tmux

# start SESSION ARGS...: a shell that records stty before and after, runs taskview, prints EXIT=n.
start() {
    local s=$1; shift
    shell "$s" 120 30
    wait_for "$s" '[#$] *$' 10 >/dev/null || true
    keys "$s" "cd '$WORK' && stty -g > '$WORK/$s.before' && '$BIN' --no-record $* ; echo EXIT=\$? ; stty -g > '$WORK/$s.after'" Enter
}

# restored SESSION EXPECTED-EXIT: taskview ended with that status and left the terminal as it found it.
restored() {
    local s=$1 want=$2
    wait_for "$s" '^EXIT=[0-9]+' 30 || return 1
    local got
    got=$(screen "$s" | grep -oE '^EXIT=[0-9]+' | tail -1)
    [ "$got" = "EXIT=$want" ] || { echo "  expected EXIT=$want, got $got"; return 1; }
    local i=0
    while [ ! -s "$WORK/$s.after" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
    local flags
    flags=$(t display-message -p -t "$s" '#{alternate_on} #{cursor_flag}')
    [ "$flags" = "0 1" ] || { echo "  terminal not restored: alternate_on cursor_flag = $flags"; return 1; }
    cmp -s "$WORK/$s.before" "$WORK/$s.after" || { echo "  stty settings changed"; return 1; }
    screen "$s" | grep -qE '^Summary: ' || { echo "  no summary printed after exit"; return 1; }
}

test_rows_move_detail_quit() {
    local s=rows_move_detail_quit
    start $s
    wait_for $s '├─ . prepare' 30 || return 1
    wait_for $s 'q quit' 10 || return 1
    keys $s j Enter
    wait_for $s 'Name: prepare' 10 || return 1
    keys $s Escape
    wait_gone $s 'Name: prepare' 10 || return 1
    keys $s q
    restored $s 130
}

test_cancel_subtree_allsettled_continues() {
    local s=cancel_subtree_allsettled_continues
    # Half speed: the compiles of module TaskGraph run for 6-12 s of real time.
    start $s --speed 0.5
    wait_for $s '● compile GraphTask\.swift' 40 || return 1
    keys $s / 'GraphTask.swift' Enter G Escape
    keys $s x
    wait_for $s 'Cancel compile GraphTask\.swift \(it is running\)\? \[y/N\]' 10 || return 1
    keys $s y
    wait_for $s '⊘ compile GraphTask\.swift .*cancelled \(keyboard\)' 10 || return 1
    # Its siblings in the allSettled group go on and finish.
    screen $s | grep -qE '● compile Composites\.swift' || { echo "  sibling stopped running"; return 1; }
    wait_for $s '✓ compile Composites\.swift' 60 || return 1
    screen $s | grep -qE '⊘ compile GraphTask\.swift' || { echo "  cancelled row changed"; return 1; }
    keys $s q
    restored $s 130
}

test_confirm_defaults_to_no() {
    local s=confirm_defaults_to_no
    start $s
    wait_for $s '● build' 30 || return 1
    keys $s x
    wait_for $s 'Cancel build and its [0-9]+ running subtasks\? \[y/N\]' 10 || return 1
    keys $s n
    wait_for $s 'Not cancelled' 10 || return 1
    screen $s | grep -q '⊘ build' && { echo "  build was cancelled"; return 1; }
    keys $s q
    restored $s 130
}

test_help_and_resize() {
    local s=help_and_resize
    start $s
    wait_for $s '● build' 30 || return 1
    keys $s '?'
    wait_for $s 'Keys \(any key closes this help\)' 10 || return 1
    wait_for $s 'cancel the selected subtree' 5 || return 1
    keys $s Escape
    wait_gone $s 'Keys \(any key closes' 10 || return 1
    keys $s j j j
    t resize-window -t $s -x 20 -y 5
    wait_for $s 'build' 10 || return 1
    sleep 0.3
    t resize-window -t $s -x 40 -y 8
    sleep 0.3
    t resize-window -t $s -x 120 -y 30
    wait_for $s '├─ . prepare' 10 || return 1
    keys $s q
    restored $s 130
}

test_ctrl_c() {
    local s=ctrl_c
    start $s
    wait_for $s '● build' 30 || return 1
    keys $s C-c
    restored $s 130
}

test_sigterm() {
    local s=sigterm
    start $s
    wait_for $s '● build' 30 || return 1
    local pid
    pid=$(taskview_pid $s)
    [ -n "$pid" ] || { echo "  no taskview process found"; return 1; }
    kill -TERM "$pid"
    restored $s 130
}

# SIGHUP (terminal closed, ssh dropped) ends the session like SIGTERM: terminal restored,
# exit 130, and the log gets its final snapshot and `end`.
test_sighup() {
    local s=sighup log="$WORK/sighup.jsonl"
    shell "$s" 120 30
    wait_for "$s" '[#$] *$' 10 >/dev/null || true
    keys "$s" "cd '$WORK' && stty -g > '$WORK/$s.before' && '$BIN' --record '$log' ; echo EXIT=\$? ; stty -g > '$WORK/$s.after'" Enter
    wait_for $s '● build' 30 || return 1
    local pid
    pid=$(taskview_pid $s)
    [ -n "$pid" ] || { echo "  no taskview process found"; return 1; }
    kill -HUP "$pid"
    restored $s 130 || return 1
    tail -1 "$log" | grep -q '"ev":"end"' || { echo "  the log does not end with end: $(tail -c 200 "$log")"; return 1; }
    tail -3 "$log" | grep -q '"ev":"snapshot"' || { echo "  no final snapshot before end"; return 1; }
    grep -q '"source":"signal"' "$log" || { echo "  root not cancelled with source signal"; return 1; }
    # The log path is named once (not both "Log: PATH" and "Log written to PATH").
    [ "$(screen $s | grep -cE '^Log: |^Log written to .*sighup\.jsonl$')" = 1 ] || { echo "  the log path is not named exactly once"; screen $s | grep -E '^Log' | sed 's/^/  | /'; return 1; }
}

test_exit_when_done() {
    local s=exit_when_done
    start $s --speed 50 --exit-when-done
    restored $s 0
}

test_ascii_locale() {
    local s=ascii_locale
    t new-session -d -s $s -x 120 -y 30 "env LC_ALL=C TERM=tmux-256color '$BIN' --no-record --speed 4; sleep 5"
    wait_for $s '^\|- [*o] prepare' 30 || return 1
    if screen $s | LC_ALL=C grep -q $'[\x80-\xff]'; then echo "  non-ASCII bytes on screen"; return 1; fi
    keys $s q
}

test_no_color() {
    local s=no_color
    t new-session -d -s $s -x 120 -y 30 "env TERM=tmux-256color '$BIN' --no-record; sleep 5"
    wait_for $s '● build' 30 || return 1
    t capture-pane -t $s -p -e | grep -qE $'\e\\[(3[1-6]|38;5;[0-9]+)m' || { echo "  no colours without NO_COLOR"; return 1; }
    keys $s q
    s=no_color_set
    t new-session -d -s $s -x 120 -y 30 "env NO_COLOR=1 TERM=tmux-256color '$BIN' --no-record; sleep 5"
    wait_for $s '● build' 30 || return 1
    if t capture-pane -t $s -p -e | grep -qE $'\e\\[(3[1-6]|38;5;[0-9]+)m'; then echo "  colours with NO_COLOR"; return 1; fi
    keys $s q
    t kill-session -t no_color_set >/dev/null 2>&1
}

test_headless_pipe() {
    local out="$WORK/headless.out" status
    "$BIN" --no-record > "$out" 2>"$WORK/headless.err"
    status=$?
    [ $status -eq 0 ] || { echo "  exit status $status"; return 1; }
    grep -qE '^\[[0-9]+\.[0-9]{3}\] #[0-9]+ build: executing$' "$out" || { echo "  no state lines"; return 1; }
    grep -qE '^Summary: ' "$out" || { echo "  no summary"; return 1; }
    if LC_ALL=C grep -q $'\x1b' "$out"; then echo "  escape sequences in headless output"; return 1; fi
}

test_usage_errors() {
    "$BIN" --speed 0 >/dev/null 2>&1; [ $? -eq 2 ] || { echo "  --speed 0 not exit 2"; return 1; }
    "$BIN" --no-such-option >/dev/null 2>&1; [ $? -eq 2 ] || { echo "  unknown option not exit 2"; return 1; }
    "$BIN" --help >/dev/null 2>&1; [ $? -eq 0 ] || { echo "  --help not exit 0"; return 1; }
}

run_test rows_move_detail_quit test_rows_move_detail_quit
run_test cancel_subtree_allsettled_continues test_cancel_subtree_allsettled_continues
run_test confirm_defaults_to_no test_confirm_defaults_to_no
run_test help_and_resize test_help_and_resize
run_test ctrl_c test_ctrl_c
run_test sigterm test_sigterm
run_test sighup test_sighup
run_test exit_when_done test_exit_when_done
run_test ascii_locale test_ascii_locale
run_test no_color test_no_color
run_test headless_pipe test_headless_pipe
run_test usage_errors test_usage_errors

e2e_summary
