#!/usr/bin/env bash
# `taskview export`: where the output goes (stdout, -, a device, a FIFO, a symlink, a regular
# file) and what bad input does (exit 2, the line named, no output file left behind).
# Usage: bash Tests/e2e/export.sh PATH-TO-TASKVIEW
# Prints one line per case and finally "export: N passed, M failed".
set -u
BIN=${1:?usage: export.sh PATH-TO-TASKVIEW}
E2E=export
. "$(dirname "$0")/lib.sh"
e2e_work taskview-export
D=$WORK

"$BIN" demo pipeline --headless --record "$D/ok.jsonl" >/dev/null 2>&1
"$BIN" export "$D/ok.jsonl" >"$D/stdout.json" 2>/dev/null
run_test "no -o writes chrome-trace (the default format) to stdout" grep -q '"traceEvents"' "$D/stdout.json"
"$BIN" export "$D/ok.jsonl" -o - >"$D/dash.json" 2>/dev/null
run_test "-o - is stdout" cmp -s "$D/stdout.json" "$D/dash.json"
[ -e ./- ] && run_test "-o - made no file named -" false

"$BIN" export "$D/ok.jsonl" -o /dev/null 2>/dev/null
run_test "-o /dev/null exits 0" test $? -eq 0
run_test "/dev/null is still a character device" test -c /dev/null

mkfifo "$D/fifo"
cat "$D/fifo" >"$D/from-fifo" &
reader=$!
"$BIN" export "$D/ok.jsonl" -o "$D/fifo" 2>/dev/null
wait "$reader"
run_test "a FIFO is written in place to its reader" cmp -s "$D/stdout.json" "$D/from-fifo"
run_test "the FIFO is still a FIFO" test -p "$D/fifo"

echo old >"$D/target.json"
ln -s target.json "$D/link.json"
"$BIN" export "$D/ok.jsonl" -o "$D/link.json" 2>/dev/null
run_test "a symlink stays a symlink" test -L "$D/link.json"
run_test "the symlink's target got the trace" cmp -s "$D/stdout.json" "$D/target.json"

"$BIN" export "$D/ok.jsonl" -o "$D/regular.json" 2>"$D/err"
run_test "a regular file is written" cmp -s "$D/stdout.json" "$D/regular.json"
run_test "no temporary file is left" test "$(ls -A "$D" | grep -c tmp)" -eq 0

# Bad input: exit 2 naming the line, and the previous output untouched.
awk 'NR==20{print "{\"seq\":19,\"t\":garbage"; next}{print}' "$D/ok.jsonl" >"$D/corrupt.jsonl"
echo previous >"$D/keep.json"
"$BIN" export "$D/corrupt.jsonl" -o "$D/keep.json" 2>"$D/err"
run_test "a corrupt log exits 2" test $? -eq 2
run_test "the error names the line" grep -q 'corrupt.jsonl: line 20' "$D/err"
run_test "the previous output is untouched" test "$(cat "$D/keep.json")" = previous
"$BIN" export "$D/corrupt.jsonl" -o "$D/new.json" 2>/dev/null
run_test "no output file appears for a corrupt log" test ! -e "$D/new.json"
"$BIN" export "$D/corrupt.jsonl" --skip-bad-lines -o "$D/skipped.json" 2>"$D/err"
run_test "--skip-bad-lines exports past the bad line" grep -q '"traceEvents"' "$D/skipped.json"
"$BIN" export "$D/ok.jsonl" -o "$D/no-such-dir/out.json" 2>"$D/err"
run_test "an unwritable path exits 2" test $? -eq 2
run_test "the error names the path" grep -q 'taskview: cannot write .*no-such-dir' "$D/err"

# OTLP/JSON: same rules, same bad-input behaviour, deterministic bytes.
"$BIN" export "$D/ok.jsonl" --format otlp-json -o "$D/otlp1.json" 2>/dev/null
"$BIN" export "$D/ok.jsonl" --format otlp-json >"$D/otlp2.json" 2>/dev/null
run_test "otlp-json: an ExportTraceServiceRequest" grep -q '^{"resourceSpans":\[' "$D/otlp1.json"
run_test "otlp-json: the same log exports the same bytes" cmp -s "$D/otlp1.json" "$D/otlp2.json"
"$BIN" export "$D/ok.jsonl" --format otlp-json -o /dev/null 2>/dev/null
run_test "otlp-json: /dev/null is still a character device" test -c /dev/null
"$BIN" export "$D/corrupt.jsonl" --format otlp-json -o "$D/otlp-bad.json" 2>"$D/err"
run_test "otlp-json: a corrupt log exits 2 naming the line" grep -q 'corrupt.jsonl: line 20' "$D/err"
run_test "otlp-json: no output file for a corrupt log" test ! -e "$D/otlp-bad.json"
"$BIN" export "$D/corrupt.jsonl" --format otlp-json --skip-bad-lines -o "$D/otlp-skip.json" 2>/dev/null
run_test "otlp-json: --skip-bad-lines exports" grep -q '"resourceSpans"' "$D/otlp-skip.json"

e2e_summary
