#!/usr/bin/env bash
# End-to-end tests of `taskview attach` (the viewer, against a program that serves its graph)
# and of `taskview replay --follow`.
# Usage: bash Tests/e2e/attach.sh TASKVIEW_BIN [PROGRAM_BIN]
#   PROGRAM_BIN: a program that serves Graph.shared at the default path and prints
#   "serving at PATH" (e.g. Examples/attach-demo); default: Tests/attach/fake_server.py,
#   which speaks the same protocol. Needs tmux (and python3 for the fake server).
# Prints one line per test and finally "attach-e2e: N passed, M failed".
set -u

E2E=attach-e2e
. "$(dirname "$0")/lib.sh"
PROGRAM=${2:-}
HERE=$(cd "$(dirname "$0")/.." && pwd)
e2e_bin "${1:?usage: attach.sh TASKVIEW_BIN [PROGRAM_BIN]}"
case "$PROGRAM" in ""|/*) ;; *) PROGRAM="$PWD/$PROGRAM" ;; esac
e2e_need tmux python3

e2e_work taskview-attach
export TASKGRAPH_SOCKET_DIR="$WORK/sockets"
mkdir -m 700 "$TASKGRAPH_SOCKET_DIR"
PIDS=()
e2e_before_rm() {
    for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
    wait 2>/dev/null
}
e2e_tmux

# start_program NAME [FAKE-OPTIONS...]: starts a serving program; sets PROG_PID and PROG_SOCK.
start_program() {
    local name=$1; shift
    local out="$WORK/$name.out"
    if [ -n "$PROGRAM" ]; then
        "$PROGRAM" > "$out" 2>&1 &
    else
        python3 "$HERE/attach/fake_server.py" "$TASKGRAPH_SOCKET_DIR/$name.sock" --name "$name" "$@" > "$out" 2>&1 &
    fi
    PROG_PID=$!
    PIDS+=("$PROG_PID")
    wait_file "$out" '^serving at ' 60 || return 1
    PROG_SOCK=$(sed -n 's/^serving at //p' "$out" | head -1)
    PROG_OUT=$out
}

test_none_found() {
    local err status
    err=$("$BIN" attach --no-record 2>&1 >/dev/null); status=$?
    [ $status -eq 2 ] || { echo "  exit $status, want 2"; return 1; }
    echo "$err" | grep -q 'Graph.shared.serve()' || { echo "  no hint how to serve: $err"; return 1; }
    "$BIN" attach --list > "$WORK/empty.list"; status=$?
    [ $status -eq 0 ] && [ ! -s "$WORK/empty.list" ] || { echo "  --list on nothing: exit $status"; return 1; }
}

test_usage_errors() {
    "$BIN" attach --no-record 999999999 >/dev/null 2>"$WORK/u.err"; [ $? -eq 2 ] || { echo "  unknown pid not exit 2"; return 1; }
    grep -q '999999999' "$WORK/u.err" || { echo "  unknown pid not named"; return 1; }
    "$BIN" attach --no-record "$WORK/nope.sock" >/dev/null 2>"$WORK/u.err"; [ $? -eq 2 ] || { echo "  unknown path not exit 2"; return 1; }
    grep -q 'nope.sock' "$WORK/u.err" || { echo "  unknown path not named"; return 1; }
    "$BIN" attach --list --all >/dev/null 2>&1; [ $? -eq 2 ] || { echo "  --list --all not exit 2"; return 1; }
    "$BIN" attach --bogus >/dev/null 2>&1; [ $? -eq 2 ] || { echo "  unknown option not exit 2"; return 1; }
    "$BIN" attach --help | grep -q 'Graph.shared.serve()' || { echo "  --help says nothing about serving"; return 1; }
    # A stale socket (nobody listens) is not listed.
    python3 -c "import socket,sys; s=socket.socket(socket.AF_UNIX); s.bind(sys.argv[1])" "$TASKGRAPH_SOCKET_DIR/4242424.sock"
    "$BIN" attach --list | grep -q 4242424 && { echo "  stale socket listed"; return 1; }
    "$BIN" attach --no-record "$TASKGRAPH_SOCKET_DIR/4242424.sock" >/dev/null 2>&1; [ $? -eq 2 ] || { echo "  stale socket not exit 2"; return 1; }
    rm -f "$TASKGRAPH_SOCKET_DIR/4242424.sock"
}

test_list() {
    start_program lister || return 1
    local out
    out=$("$BIN" attach --list) || { echo "  --list failed"; return 1; }
    echo "$out" | grep -qE "^$PROG_PID  .+  $PROG_SOCK  started .+  [0-9]+ tasks? \([0-9]+ executing\)$" \
        || { echo "  no line for pid $PROG_PID: $out"; return 1; }
    kill "$PROG_PID"
}

test_headless_until_exit() {
    [ -z "$PROGRAM" ] || return 0   # needs the fake's --exit-after
    start_program short --exit-after 3 --finish-as succeeded || return 1
    timeout 30 "$BIN" attach --headless --no-record "$PROG_SOCK" > "$WORK/h.out" 2>"$WORK/h.err"
    local status=$?
    [ $status -eq 0 ] || { echo "  exit $status"; cat "$WORK/h.err"; return 1; }
    grep -qE '^\[[0-9]+\.[0-9]{3}\] #[0-9]+ batch: executing$' "$WORK/h.out" || { echo "  no executing line first"; return 1; }
    grep -qE '^\[[0-9]+\.[0-9]{3}\] #6 late job: executing$' "$WORK/h.out" || { echo "  no live state line"; return 1; }
    grep -q '^short (pid [0-9]*): exited: succeeded$' "$WORK/h.out" || { echo "  no exited line"; return 1; }
}

# The programs' own outcome is attach's: 130 cancelled, 1 failed, 1 killed, 1 unfinished at end.
test_headless_outcomes() {
    [ -z "$PROGRAM" ] || return 0
    local how kind want word
    for how in cancelled:130:exited:.cancelled failed:1:exited:.failed killed:1:killed unfinished:1:exited:.unfinished; do
        IFS=: read -r kind want word <<< "$how"
        word=${word/./ }
        case $kind in
            killed) start_program "o$kind" --drop-after 2 || return 1 ;;
            unfinished) start_program "o$kind" --exit-after 2 || return 1 ;;
            *) start_program "o$kind" --exit-after 2 --finish-as "$kind" || return 1 ;;
        esac
        timeout 30 "$BIN" attach --headless --no-record "$PROG_SOCK" > "$WORK/o.out" 2>&1
        local status=$?
        [ $status -eq "$want" ] || { echo "  $kind: exit $status, want $want"; cat "$WORK/o.out"; return 1; }
        grep -q "^o$kind (pid [0-9]*): $word\$" "$WORK/o.out" || { echo "  $kind: no '$word' line"; cat "$WORK/o.out"; return 1; }
    done
}

test_headless_two_programs_prefixed() {
    [ -z "$PROGRAM" ] || return 0
    start_program one --exit-after 3 || return 1
    local a=$PROG_SOCK
    start_program two --exit-after 3 || return 1
    timeout 30 "$BIN" attach --headless --no-record "$a" "$PROG_SOCK" > "$WORK/h2.out" 2>&1
    local status=$?
    [ $status -eq 1 ] || { echo "  exit $status, want 1 (the programs ended with their roots executing)"; return 1; }
    grep -qE '^one: \[[0-9.]+\] #0 batch: executing$' "$WORK/h2.out" || { echo "  no line prefixed one:"; return 1; }
    grep -qE '^two: \[[0-9.]+\] #0 batch: executing$' "$WORK/h2.out" || { echo "  no line prefixed two:"; return 1; }
}

test_cancel_subtree() {
    local s=cancel_subtree
    start_program cancelme || return 1
    shell $s 120 30
    sleep 0.3
    keys $s "stty -g > '$WORK/$s.before'; '$BIN' attach --record '$WORK/attach.jsonl' '$PROG_SOCK'; echo EXIT=\$?; stty -g > '$WORK/$s.after'" Enter
    wait_for $s '\(pid [0-9]+\) .*connected' 30 || return 1
    local name
    name=$(cancel_prompt $s)
    [ -n "$name" ] || { echo "  no cancel prompt naming the program"; show $s; return 1; }
    keys $s y
    wait_file "$PROG_OUT" "^cancelled: .*\(attach\)" 20 || return 1
    wait_for $s "⊘ $name" 20 || return 1
    keys $s q
    wait_for $s '^EXIT=[0-9]+' 20 || return 1
    screen $s | grep -q '^EXIT=130' || { echo "  quitting while the program runs did not exit 130"; return 1; }
    [ "$(t display-message -p -t $s '#{alternate_on} #{cursor_flag}')" = "0 1" ] || { echo "  terminal not restored"; return 1; }
    sleep 0.3
    cmp -s "$WORK/$s.before" "$WORK/$s.after" || { echo "  stty settings changed"; return 1; }
    kill -0 "$PROG_PID" 2>/dev/null || { echo "  quitting the viewer ended the program"; return 1; }
    tail -1 "$WORK/attach.jsonl" | grep -q '"ev":"end"' || { echo "  the session log has no end"; return 1; }
    kill "$PROG_PID"
}

# `u` on an attached program's row: the program's own CPU share and RSS (it sends them to a
# viewer that asks, about once a second).
test_program_usage() {
    local s=program_usage
    start_program usage || return 1
    t new-session -d -s $s -x 160 -y 30 "env TERM=tmux-256color '$BIN' attach --no-record '$PROG_SOCK'; sleep 5"
    wait_for $s '\(pid [0-9]+\) .*connected' 30 || return 1
    keys $s u
    wait_for $s '\(pid [0-9]+\).* [0-9]+% +[0-9.]+[KMG]iB' 20 || { show $s; return 1; }
    keys $s q
    kill "$PROG_PID"
}

test_killed_program_stays() {
    local s=killed_program_stays
    start_program victim || return 1
    t new-session -d -s $s -x 120 -y 30 "env TERM=tmux-256color '$BIN' attach --no-record '$PROG_SOCK'; sleep 5"
    wait_for $s '\(pid [0-9]+\) .*connected' 30 || return 1
    kill -9 "$PROG_PID"
    wait_for $s '\(pid [0-9]+\) .*killed' 20 || return 1
    screen $s | grep -qE '[├└]─' || { echo "  the subtree left the screen"; return 1; }
    keys $s q
}

test_sighup_viewer() {
    local s=sighup_viewer
    start_program hup || return 1
    shell $s 120 30
    sleep 0.3
    keys $s "'$BIN' attach --record '$WORK/hup.jsonl' '$PROG_SOCK'; echo EXIT=\$?" Enter
    wait_for $s '\(pid [0-9]+\) .*connected' 30 || return 1
    local pid="" p
    for p in $(pgrep -f "attach --record $WORK/hup.jsonl"); do pid=$p; done
    [ -n "$pid" ] || { echo "  viewer not found"; return 1; }
    kill -HUP "$pid"
    wait_for $s '^EXIT=130' 20 || return 1
    [ "$(t display-message -p -t $s '#{alternate_on}')" = "0" ] || { echo "  terminal not restored"; return 1; }
    tail -1 "$WORK/hup.jsonl" | grep -q '"ev":"end"' || { echo "  the session log has no end"; return 1; }
    kill -0 "$PROG_PID" 2>/dev/null || { echo "  the program died with the viewer"; return 1; }
    kill "$PROG_PID"
}

# replay --follow: a log written line by line with pauses is shown as it grows, until `end`.
write_slowly() {
    local log=$1
    printf '%s\n' '{"format":"taskgraph-log","version":1,"created":"2026-11-23T00:00:00Z","producer":"e2e"}' > "$log"
    sleep 0.5
    printf '%s\n' '{"seq":1,"t":0,"ev":"add","id":0,"kind":"sequential","name":"slow root","weight":1}' \
        '{"seq":2,"t":0.5,"ev":"state","id":0,"state":"executing"}' >> "$log"
    sleep 1.5
    printf '%s' '{"seq":3,"t":1,"ev":"state","id":0,' >> "$log"   # half a line: not read yet
    sleep 0.5
    printf '%s\n' '"state":"completed"}' '{"seq":4,"t":1,"ev":"end","summary":{"succeeded":1}}' >> "$log"
}

test_replay_follow_headless() {
    local log="$WORK/follow.jsonl"
    write_slowly "$log" &
    sleep 0.2
    timeout 30 "$BIN" replay --follow --headless "$log" > "$WORK/follow.out" 2>&1
    local status=$?
    wait
    [ $status -eq 0 ] || { echo "  exit $status"; cat "$WORK/follow.out"; return 1; }
    grep -qx '\[0.500\] #0 slow root: executing' "$WORK/follow.out" || { echo "  no executing line"; return 1; }
    grep -qx '\[1.000\] #0 slow root: succeeded' "$WORK/follow.out" || { echo "  no succeeded line"; return 1; }
}

test_replay_follow_dashboard() {
    local s=replay_follow_dashboard log="$WORK/follow2.jsonl"
    write_slowly "$log" &
    sleep 0.2
    t new-session -d -s $s -x 100 -y 20 "env TERM=tmux-256color '$BIN' replay --follow '$log'; sleep 10"
    wait_for $s 'FOLLOW' 20 || return 1
    wait_for $s '● slow root' 20 || return 1
    wait_for $s '✓ slow root' 20 || return 1
    wait
    keys $s q
}

test_pick_one() {
    [ -z "$PROGRAM" ] || return 0   # needs two programs with names of our choosing
    local s=pick_one
    start_program first || return 1
    local p1=$PROG_PID
    start_program second || return 1
    shell $s 120 30
    sleep 0.3
    keys $s "'$BIN' attach --no-record; echo EXIT=\$?" Enter
    wait_for $s 'Attach to which\? \[1-2\]' 20 || return 1
    screen $s | grep -qE '^[12]\) [0-9]+  first  ' || { echo "  first not listed"; return 1; }
    local n
    n=$(screen $s | sed -n 's/^\([12]\)) [0-9]*  second  .*/\1/p' | head -1)
    keys $s "$n" Enter
    wait_for $s "second \(pid $PROG_PID\) .*connected" 20 || return 1
    screen $s | grep -q "first (pid" && { echo "  attached to both"; return 1; }
    keys $s q
    wait_for $s '^EXIT=130' 20 || return 1   # quit while the program runs: interrupted
    kill "$p1" "$PROG_PID"
}

test_headless_sigterm() {
    start_program term || return 1
    "$BIN" attach --headless --no-record "$PROG_SOCK" > "$WORK/term.out" 2>&1 &
    local viewer=$!
    wait_file "$WORK/term.out" 'batch[^:]*: executing' 20 || return 1   # "batch" (fake), "batch 1" (attach-demo)
    kill -TERM "$viewer"
    wait "$viewer"
    local status=$?
    [ $status -eq 130 ] || { echo "  exit $status, want 130"; return 1; }
    kill -0 "$PROG_PID" 2>/dev/null || { echo "  the program died with the viewer"; return 1; }
    kill "$PROG_PID"
}

# replay's own flags reach it (the root command's options used to take --headless, --speed).
test_replay_flags_on_terminal() {
    local s=replay_flags log="$WORK/flags.jsonl"
    ( cd "$WORK" && "$BIN" demo pipeline --headless --record "$log" > /dev/null 2>&1 )
    t new-session -d -s $s -x 120 -y 30 "env TERM=tmux-256color '$BIN' replay --headless '$log'; sleep 10"
    wait_for $s '^Slowest:' 20 || return 1 # the report's last part, after the summary
    t kill-session -t $s
    t new-session -d -s $s -x 120 -y 30 "env TERM=tmux-256color '$BIN' replay --speed 4 '$log'; sleep 10"
    wait_for $s ' x4 ' 20 || return 1
    keys $s q
}

test_all_includes_later_programs() {
    [ -z "$PROGRAM" ] || return 0
    local s=all_later
    start_program early || return 1
    local p1=$PROG_PID
    t new-session -d -s $s -x 120 -y 40 "env TERM=tmux-256color '$BIN' attach --all --no-record; sleep 10"
    wait_for $s 'early \(pid [0-9]+\) .*connected' 20 || return 1
    start_program later || return 1
    wait_for $s 'later \(pid [0-9]+\) .*connected' 20 || return 1
    keys $s q
    kill "$p1" "$PROG_PID"
}

run_test all_includes_later_programs test_all_includes_later_programs
run_test headless_sigterm test_headless_sigterm
run_test replay_flags_on_terminal test_replay_flags_on_terminal
run_test pick_one test_pick_one
run_test replay_follow_headless test_replay_follow_headless
run_test replay_follow_dashboard test_replay_follow_dashboard
run_test none_found test_none_found
run_test usage_errors test_usage_errors
run_test list test_list
run_test headless_until_exit test_headless_until_exit
run_test headless_outcomes test_headless_outcomes
run_test headless_two_programs_prefixed test_headless_two_programs_prefixed
run_test cancel_subtree test_cancel_subtree
[ -z "$PROGRAM" ] || run_test program_usage test_program_usage # the fake server sends no usage
run_test killed_program_stays test_killed_program_stays
run_test sighup_viewer test_sighup_viewer

e2e_summary
