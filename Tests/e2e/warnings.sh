#!/usr/bin/env bash
# End-to-end tests of warnings in a real terminal (tmux): a command that ignores SIGTERM is
# killed after its grace and warned `ignores cancel`; a scope of an attached program that
# never checks for a cancel is warned by the program's own graph a second after the viewer
# cancelled it. In both, `W` selects the warned row and its detail pane says why.
# Usage: bash Tests/e2e/warnings.sh PATH-TO-TASKVIEW [PATH-TO-ATTACH-DEMO]
# (without the second, the attach test is skipped). Prints one line per test and
# "e2e-warnings: N passed, M failed"; exits non-zero on failure.
set -u

E2E=e2e-warnings
. "$(dirname "$0")/lib.sh"
e2e_bin "${1:?usage: warnings.sh PATH-TO-TASKVIEW [PATH-TO-ATTACH-DEMO]}"
DEMO=${2:-}
e2e_need tmux
e2e_work taskview-warnings
e2e_tmux
DEMO_PID=
e2e_before_rm() { [ -n "$DEMO_PID" ] && kill "$DEMO_PID" 2>/dev/null; }

cat > "$WORK/stubborn.json" <<'JSON'
{"kind": "concurrent", "name": "w", "children": [
  {"kind": "command", "name": "stubborn", "grace": 1, "run": "trap '' TERM; echo started; while :; do sleep 0.1; done"},
  {"kind": "command", "name": "other", "run": "sleep 100"}
]}
JSON

test_w_jumps_to_a_command_that_ignores_sigterm() {
    local s=w_jumps_to_a_command_that_ignores_sigterm
    t new-session -d -s $s -x 120 -y 20 "cd '$WORK' && env TERM=tmux-256color '$BIN' run stubborn.json --no-record; sleep 100000"
    wait_for $s 'stubborn' 30 || return 1
    keys $s g Down X
    wait_for $s 'cancelled' 10 || return 1
    # Killed after its 1 s grace: the row says so, the header counts it.
    wait_for $s 'stubborn .*⚠ ignores cancel: killed' 15 || return 1
    wait_for $s '⚠ 1' 5 || return 1
    keys $s g W Enter
    wait_for $s 'Name: stubborn' 10 || return 1
    wait_for $s '⚠ ignores cancel: killed after its 1s grace \(ignoresCancel\)' 5 || return 1
    keys $s q
}

test_w_jumps_to_a_scope_that_never_checks_cancellation() {
    local s=w_jumps_to_a_scope_that_never_checks_cancellation
    mkdir -p "$WORK/sock"
    chmod 700 "$WORK/sock"
    ATTACH_DEMO_STUCK=1 TASKGRAPH_SOCKET_DIR="$WORK/sock" "$DEMO" > "$WORK/demo.out" &
    DEMO_PID=$!
    wait_file "$WORK/demo.out" '^serving at ' 60 || return 1
    t new-session -d -s $s -x 120 -y 40 \
        "cd '$WORK' && env TERM=tmux-256color TASKGRAPH_SOCKET_DIR='$WORK/sock' '$BIN' attach $DEMO_PID --no-record; sleep 100000"
    wait_for $s 'stuck scope' 30 || return 1
    # Select it through the filter, cancel it, clear the filter.
    keys $s / s t u c k Enter
    wait_for $s 'filter' 10 || return 1
    keys $s g
    keys $s Down X
    wait_for $s 'stuck scope.*cancelled|cancelled.*stuck scope' 10 || { keys $s Escape; return 1; }
    keys $s Escape
    # A second later the program's graph warns: the viewer shows it.
    wait_for $s '⚠ 1' 15 || return 1
    keys $s g W Enter
    wait_for $s 'Name: stuck scope' 10 || return 1
    wait_for $s '⚠ ignores cancel: still running 1s after it was cancelled \(ignoresCancel\)' 5 || return 1
    keys $s q
    kill "$DEMO_PID" 2>/dev/null
    DEMO_PID=
}

run_test w_jumps_to_a_command_that_ignores_sigterm test_w_jumps_to_a_command_that_ignores_sigterm
if [ -n "$DEMO" ]; then
    run_test w_jumps_to_a_scope_that_never_checks_cancellation test_w_jumps_to_a_scope_that_never_checks_cancellation
else
    echo "skip w_jumps_to_a_scope_that_never_checks_cancellation (no attach-demo given)"
fi
e2e_summary
