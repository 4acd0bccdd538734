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
ok() { PASSED=$((PASSED + 1)); echo "ok: $1"; }
bad() { FAILED=$((FAILED + 1)); echo "FAIL: $1"; screen e2e 2>/dev/null | sed 's/^/    | /'; }
# seen TEXT [SECONDS]: TEXT (a fixed string) on the screen of session e2e within SECONDS (20).
seen() { poll "${2:-20}" has_text "$1"; }
has_text() { screen e2e 2>/dev/null | grep -qF -- "$1"; }

# An idle session keeps the server alive between the two runs (a new server can race).
e2e_tmux

# 1. Live run, recorded; cancel "compile Renderer.swift" once its module runs.
t new-session -d -s e2e -x 120 -y 50 \
    "cd '$DIR' && '$BIN' demo build --speed 2 --seed 1 --record '$LOG'; echo EXIT=\$?; sleep 30"
if seen "compile Renderer.swift" 30; then ok "live dashboard shows the build"; else bad "live dashboard"; fi
# Cancel it while it runs (● is the executing glyph).
if seen "● compile Renderer.swift" 60; then ok "the compile runs"; else bad "compile never ran"; fi
keys e2e / && keys e2e -l "Renderer" && keys e2e Enter
sleep 0.3
keys e2e X
if seen "cancelled" 10 || seen "⊘" 5; then ok "X cancelled the selected compile"; else bad "cancel with X"; fi
keys e2e q
if seen "EXIT=130" 20; then ok "quit before the end exits 130"; else bad "exit status after quit"; fi
if grep -q '"ev":"key"' "$LOG" && tail -1 "$LOG" | grep -q '"ev":"end"'; then ok "log has the key and ends with end"; else bad "log content"; fi
if grep -q '"source":"keyboard"' "$LOG"; then ok "log records the keyboard cancel"; else bad "keyboard cancel in log"; fi
t kill-session -t e2e 2>/dev/null

# 2. Replay: pause, step, seek, and the same cancellation on screen.
t new-session -d -s e2e -x 120 -y 50 \
    "'$BIN' replay '$LOG' --speed 1; echo EXIT=\$?; sleep 30"
if seen "build" 20; then ok "replay dashboard opens"; else bad "replay opens"; fi
keys e2e Space
if seen "PAUSED" 5; then ok "space pauses"; else bad "pause"; fi
before=$(screen e2e | head -1)
keys e2e . . .
sleep 0.3
after=$(screen e2e | head -1)
if [ "$before" != "$after" ]; then ok "step moves the position"; else bad "step"; fi
keys e2e 9
sleep 0.3
keys e2e Space
keys e2e ">" ">" ">"
if seen "cancelled" 30 || seen "⊘" 5; then ok "replay shows the cancellation"; else bad "cancellation in replay"; fi
keys e2e Left
sleep 0.3
ok "seek back accepted"
keys e2e q
if seen "EXIT=130" 20; then ok "replay exits with the recorded outcome (130)"; else bad "replay exit status"; fi
t kill-session -t e2e 2>/dev/null

# 3. --speed 4: the header says x4 and the 18 s pipeline plays in about 4.5 s (x1: 18 s).
"$BIN" demo pipeline --headless --record "$DIR/p.jsonl" >/dev/null 2>&1
t new-session -d -s e2e -x 120 -y 50 \
    "'$BIN' replay '$DIR/p.jsonl' --speed 4; echo EXIT=\$?; sleep 30"
if seen " x4 " 10; then ok "replay --speed 4: the header shows x4"; else bad "replay --speed 4 header"; fi
if seen "finished" 13; then ok "replay --speed 4 plays four times as fast"; else bad "replay --speed 4 pace"; fi
keys e2e q
t kill-session -t e2e 2>/dev/null

# 4. Headless replay prints what a headless live run printed.
( cd "$DIR" && "$BIN" demo flaky --headless --seed 4 --record "$DIR/h.jsonl" > "$DIR/live.txt" 2>/dev/null )
"$BIN" replay "$DIR/h.jsonl" --headless > "$DIR/replay.txt" 2>/dev/null
if cmp -s "$DIR/live.txt" "$DIR/replay.txt"; then ok "headless replay output is byte-identical"; else bad "headless replay output"; fi

e2e_summary
