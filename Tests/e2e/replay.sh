#!/bin/sh
# End-to-end in tmux: record a live `build` demo, cancel one compile with / + X, quit,
# then replay the log: pause, step, seek, and see the same cancellation on screen.
# Binary: $TASKVIEW_BIN, else the newest .build*/debug/taskview under the package root.
# Prints `e2e-replay: N passed, M failed`; exit status 0 only when nothing failed.
set -u
E2E=e2e-replay
. "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BIN=${TASKVIEW_BIN:-$(ls -t "$ROOT"/.build*/debug/taskview 2>/dev/null | head -1)}
[ -x "$BIN" ] || { echo "e2e-replay: no taskview binary (set TASKVIEW_BIN)"; exit 2; }
e2e_work taskview-replay
DIR=$WORK
LOG="$DIR/live.jsonl"
# seen TEXT [SECONDS]: TEXT (a fixed string) on the screen of session e2e within SECONDS (20);
# else the screen.
seen() { poll "${2:-20}" has_text "$1" && return 0; echo "  timed out after ${2:-20}s waiting for '$1':"; show e2e; return 1; }
has_text() { screen e2e 2>/dev/null | grep -qF -- "$1"; }
# position: where the replay is, in seconds, from the header's "replay 4.0s/9.8s".
position() { screen e2e | head -1 | grep -oE 'replay [0-9.]+s/' | grep -oE '[0-9.]+'; }
# at_end: the header's position is the replay's length ("replay 9.8s/9.8s").
at_end() { screen e2e | head -1 | grep -qE 'replay ([0-9.]+s)/\1'; }

# An idle session keeps the server alive between the two runs (a new server can race).
e2e_tmux

# 1. Live run, recorded; cancel "compile Renderer.swift" once its module runs.
test_live_dashboard() {
    t new-session -d -s e2e -x 120 -y 50 \
        "cd '$DIR' && '$BIN' demo build --speed 2 --seed 1 --record '$LOG'; echo EXIT=\$?; sleep 30"
    seen "compile Renderer.swift" 30
}
# Cancel it while it runs (● is the executing glyph).
test_compile_runs() { seen "● compile Renderer.swift" 60; }
test_cancel_with_x() {
    keys e2e / && keys e2e -l "Renderer" && keys e2e Enter
    sleep 0.3
    keys e2e X
    seen "cancelled" 10 || seen "⊘" 5
}
test_quit_exits_130() {
    keys e2e q
    seen "EXIT=130" 20
}
test_log_has_key_and_end() { grep -q '"ev":"key"' "$LOG" && tail -1 "$LOG" | grep -q '"ev":"end"'; }
test_log_records_keyboard_cancel() {
    grep -q '"source":"keyboard"' "$LOG"
    local status=$?
    t kill-session -t e2e 2>/dev/null
    return $status
}

# 2. Replay: pause, step, seek, and the same cancellation on screen.
test_replay_opens() {
    t new-session -d -s e2e -x 120 -y 50 \
        "'$BIN' replay '$LOG' --speed 1; echo EXIT=\$?; sleep 30"
    seen "build" 20
}
test_space_pauses() {
    keys e2e Space
    seen "PAUSED" 5
}
test_step_moves() {
    before=$(screen e2e | head -1)
    keys e2e . . .
    sleep 0.3
    after=$(screen e2e | head -1)
    [ "$before" != "$after" ] || { echo "  the header did not change: $after"; return 1; }
}
test_replay_shows_cancellation() {
    keys e2e 9
    sleep 0.3
    keys e2e Space
    keys e2e ">" ">" ">"
    seen "cancelled" 30 || seen "⊘" 5
}
# Seeking back (Left) from the end: the header's position is earlier than the end.
test_seek_back() {
    poll 30 at_end || { echo "  the replay did not reach its end:"; show e2e; return 1; }
    local before after
    before=$(position)
    keys e2e Left
    sleep 0.3
    after=$(position)
    awk -v a="$after" -v b="$before" 'BEGIN { exit !(a != "" && a + 0 < b + 0) }' \
        || { echo "  position ${before}s before Left, ${after}s after:"; show e2e; return 1; }
}
test_replay_exit_status() {
    keys e2e q
    seen "EXIT=130" 20
    local status=$?
    t kill-session -t e2e 2>/dev/null
    return $status
}

# 3. --speed 4: the header says x4 and the 18 s pipeline plays in about 4.5 s (x1: 18 s).
test_speed4_header() {
    "$BIN" demo pipeline --headless --record "$DIR/p.jsonl" >/dev/null 2>&1
    t new-session -d -s e2e -x 120 -y 50 \
        "'$BIN' replay '$DIR/p.jsonl' --speed 4; echo EXIT=\$?; sleep 30"
    seen " x4 " 10
}
test_speed4_pace() {
    seen "finished" 13
    local status=$?
    keys e2e q
    t kill-session -t e2e 2>/dev/null
    return $status
}

# 4. Headless replay prints what a headless live run printed.
test_headless_identical() {
    ( cd "$DIR" && "$BIN" demo flaky --headless --seed 4 --record "$DIR/h.jsonl" > "$DIR/live.txt" 2>/dev/null )
    "$BIN" replay "$DIR/h.jsonl" --headless > "$DIR/replay.txt" 2>/dev/null
    cmp -s "$DIR/live.txt" "$DIR/replay.txt"
}

run_test live_dashboard test_live_dashboard
run_test compile_runs test_compile_runs
run_test cancel_with_x test_cancel_with_x
run_test quit_exits_130 test_quit_exits_130
run_test log_has_key_and_end test_log_has_key_and_end
run_test log_records_keyboard_cancel test_log_records_keyboard_cancel
run_test replay_opens test_replay_opens
run_test space_pauses test_space_pauses
run_test step_moves test_step_moves
run_test replay_shows_cancellation test_replay_shows_cancellation
run_test seek_back test_seek_back
run_test replay_exit_status test_replay_exit_status
run_test speed4_header test_speed4_header
run_test speed4_pace test_speed4_pace
run_test headless_identical test_headless_identical

e2e_summary
