#!/bin/sh
# End-to-end in tmux: record a live `build` demo, cancel one compile with / + X, quit,
# then replay the log: pause, step, seek, and see the same cancellation on screen.
# Binary: $TASKVIEW_BIN, else the newest .build*/debug/taskview under the package root.
# Prints `e2e-replay: N passed, M failed`; exit status 0 only when nothing failed.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BIN=${TASKVIEW_BIN:-$(ls -t "$ROOT"/.build*/debug/taskview 2>/dev/null | head -1)}
[ -x "$BIN" ] || { echo "e2e-replay: no taskview binary (set TASKVIEW_BIN)"; exit 2; }
DIR=$(mktemp -d)
SOCK="$DIR/sock"
LOG="$DIR/live.jsonl"
export LC_ALL=C.UTF-8
pass=0; fail=0
ok() { pass=$((pass + 1)); echo "ok: $1"; }
bad() { fail=$((fail + 1)); echo "FAIL: $1"; tmux -S "$SOCK" capture-pane -p -t e2e 2>/dev/null | sed 's/^/    | /'; }
screen() { tmux -S "$SOCK" capture-pane -p -t e2e 2>/dev/null; }
# wait_for TEXT [SECONDS]: polls the screen every 50 ms.
wait_for() {
    n=$(( ${2:-20} * 20 ))
    while [ $n -gt 0 ]; do
        screen | grep -qF -- "$1" && return 0
        sleep 0.05; n=$((n - 1))
    done
    return 1
}
keys() { tmux -S "$SOCK" send-keys -t e2e "$@"; }
cleanup() { tmux -S "$SOCK" kill-server 2>/dev/null; rm -rf "$DIR"; }
trap cleanup EXIT

# An idle session keeps the server alive between the two runs (a new server can race).
tmux -S "$SOCK" -f /dev/null new-session -d -s keep "sleep 300"

# 1. Live run, recorded; cancel "compile Renderer.swift" once its module runs.
tmux -S "$SOCK" -f /dev/null new-session -d -s e2e -x 120 -y 50 \
    "cd '$DIR' && '$BIN' demo build --speed 2 --seed 1 --record '$LOG'; echo EXIT=\$?; sleep 30"
if wait_for "compile Renderer.swift" 30; then ok "live dashboard shows the build"; else bad "live dashboard"; fi
# Cancel it while it runs (● is the executing glyph).
if wait_for "● compile Renderer.swift" 60; then ok "the compile runs"; else bad "compile never ran"; fi
keys / && keys -l "Renderer" && keys Enter
sleep 0.3
keys X
if wait_for "cancelled" 10 || wait_for "⊘" 5; then ok "X cancelled the selected compile"; else bad "cancel with X"; fi
keys q
if wait_for "EXIT=130" 20; then ok "quit before the end exits 130"; else bad "exit status after quit"; fi
if grep -q '"ev":"key"' "$LOG" && tail -1 "$LOG" | grep -q '"ev":"end"'; then ok "log has the key and ends with end"; else bad "log content"; fi
if grep -q '"source":"keyboard"' "$LOG"; then ok "log records the keyboard cancel"; else bad "keyboard cancel in log"; fi
tmux -S "$SOCK" kill-session -t e2e 2>/dev/null

# 2. Replay: pause, step, seek, and the same cancellation on screen.
tmux -S "$SOCK" new-session -d -s e2e -x 120 -y 50 \
    "'$BIN' replay '$LOG' --speed 1; echo EXIT=\$?; sleep 30"
if wait_for "build" 20; then ok "replay dashboard opens"; else bad "replay opens"; fi
keys Space
if wait_for "PAUSED" 5; then ok "space pauses"; else bad "pause"; fi
before=$(screen | head -1)
keys . . .
sleep 0.3
after=$(screen | head -1)
if [ "$before" != "$after" ]; then ok "step moves the position"; else bad "step"; fi
keys 9
sleep 0.3
keys Space
keys ">" ">" ">"
if wait_for "cancelled" 30 || wait_for "⊘" 5; then ok "replay shows the cancellation"; else bad "cancellation in replay"; fi
keys Left
sleep 0.3
ok "seek back accepted"
keys q
if wait_for "EXIT=130" 20; then ok "replay exits with the recorded outcome (130)"; else bad "replay exit status"; fi
tmux -S "$SOCK" kill-session -t e2e 2>/dev/null

# 3. --speed 4: the header says x4 and the 18 s pipeline plays in about 4.5 s (x1: 18 s).
"$BIN" demo pipeline --headless --record "$DIR/p.jsonl" >/dev/null 2>&1
tmux -S "$SOCK" new-session -d -s e2e -x 120 -y 50 \
    "'$BIN' replay '$DIR/p.jsonl' --speed 4; echo EXIT=\$?; sleep 30"
if wait_for " x4 " 10; then ok "replay --speed 4: the header shows x4"; else bad "replay --speed 4 header"; fi
if wait_for "finished" 13; then ok "replay --speed 4 plays four times as fast"; else bad "replay --speed 4 pace"; fi
keys q
tmux -S "$SOCK" kill-session -t e2e 2>/dev/null

# 4. Headless replay prints what a headless live run printed.
( cd "$DIR" && "$BIN" demo flaky --headless --seed 4 --record "$DIR/h.jsonl" > "$DIR/live.txt" 2>/dev/null )
"$BIN" replay "$DIR/h.jsonl" --headless > "$DIR/replay.txt" 2>/dev/null
if cmp -s "$DIR/live.txt" "$DIR/replay.txt"; then ok "headless replay output is byte-identical"; else bad "headless replay output"; fi

echo "e2e-replay: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
