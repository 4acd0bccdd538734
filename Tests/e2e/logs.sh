#!/usr/bin/env bash
# End-to-end: log records in the dashboard (docs/taskview.md "Log records"): a replay of a log
# whose request node logged four records beside an output line shows them in the detail pane,
# the row counts its warnings and errors, `L` hides records below notice, warning, error, and
# cycles back to all; a control character in a record's metadata never reaches the terminal.
# Usage: bash Tests/e2e/logs.sh PATH-TO-TASKVIEW
set -u

E2E=logs-e2e
. "$(dirname "$0")/lib.sh"
e2e_bin "${1:?usage: logs.sh PATH-TO-TASKVIEW}"
e2e_need tmux
e2e_work taskview-logs-e2e
e2e_tmux

LOG="$WORK/server.jsonl"
cat > "$LOG" <<'JSONL'
{"format":"taskgraph-log","version":1,"created":"2026-11-28T12:00:00Z","producer":"logs-e2e"}
{"seq":1,"t":0,"ev":"add","id":0,"kind":"scope","name":"server","weight":1}
{"seq":2,"t":0,"ev":"add","id":1,"kind":"scope","name":"GET /users","weight":1,"parent":0}
{"seq":3,"t":0,"ev":"state","id":0,"state":"executing"}
{"seq":4,"t":0,"ev":"state","id":1,"state":"executing"}
{"seq":5,"t":0.1,"ev":"log","id":1,"level":"debug","message":"parsing query","metadata":{}}
{"seq":6,"t":0.2,"ev":"log","id":1,"level":"notice","message":"cache cold","metadata":{}}
{"seq":7,"t":0.3,"ev":"output","id":1,"stream":"stdout","text":"OUTPUT LINE"}
{"seq":8,"t":0.4,"ev":"log","id":1,"level":"warning","message":"slow query","metadata":{"peer":"a\u001b[2Jb"}}
{"seq":9,"t":0.5,"ev":"log","id":1,"level":"error","message":"db timed out","metadata":{"ms":"840"}}
{"seq":10,"t":0.6,"ev":"state","id":1,"state":"completed"}
{"seq":11,"t":0.7,"ev":"state","id":0,"state":"completed"}
JSONL

# open: the replay at its end, the request selected, its detail pane open.
open() {
    shell "$NAME" 120 30
    sleep 0.3
    keys "$NAME" "'$BIN' replay --ascii '$LOG'" Enter
    wait_for "$NAME" 'GET /users' || return 1
    keys "$NAME" G
    keys "$NAME" End
    wait_for "$NAME" 'completed|\+ server' || return 1
    keys "$NAME" j Enter
    wait_for "$NAME" 'records\):' 10
}

records_in_the_detail_pane() {
    open || return 1
    wait_for "$NAME" '\[debug\] parsing query' &&
        wait_for "$NAME" '\[warning\] slow query  peer=a\?\[2Jb' &&
        wait_for "$NAME" 'OUTPUT LINE' &&
        wait_for "$NAME" '\[error\] db timed out  ms=840' &&
        wait_for "$NAME" 'GET /users .*! 1 X 1'
}

l_cycles_the_minimum_level() {
    open || return 1
    keys "$NAME" L
    wait_for "$NAME" 'notice and above' || return 1
    wait_gone "$NAME" '\[debug\]' && wait_for "$NAME" '\[notice\] cache cold' || return 1
    keys "$NAME" L
    wait_gone "$NAME" '\[notice\]' && wait_for "$NAME" '\[warning\] slow query' && wait_for "$NAME" 'OUTPUT LINE' ||
        return 1
    keys "$NAME" L
    wait_gone "$NAME" '\[warning\]' && wait_for "$NAME" '\[error\] db timed out' || return 1
    keys "$NAME" L
    wait_for "$NAME" '\[debug\] parsing query'
}

no_escape_reaches_the_terminal() {
    open || return 1
    wait_for "$NAME" 'slow query' || return 1
    # The ESC [2J in the metadata would have cleared the screen: the tree is still there.
    on_screen "$NAME" 'server' && ! t capture-pane -t "$NAME" -p -e | grep -q $'\x1b\[2J'
}

run_test records_in_the_detail_pane
run_test l_cycles_the_minimum_level
run_test no_escape_reaches_the_terminal
e2e_summary
