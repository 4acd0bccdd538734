#!/usr/bin/env bash
# `taskview export`: where the output goes (stdout, -, a device, a FIFO, a symlink, a regular
# file) and what bad input does (exit 2, the line named, no output file left behind).
# Usage: bash Tests/e2e/export.sh PATH-TO-TASKVIEW
# Prints one line per case and finally "export: N passed, M failed".
set -u
BIN=${1:?usage: export.sh PATH-TO-TASKVIEW}
D=$(mktemp -d "${TMPDIR:-/tmp}/taskview-export.XXXXXX")
trap 'rm -rf "$D"' EXIT
pass=0; fail=0
check() {   # check NAME CONDITION...
    local name=$1; shift
    if "$@"; then pass=$((pass + 1)); echo "ok   $name"; else fail=$((fail + 1)); echo "FAIL $name"; fi
}

"$BIN" demo pipeline --headless --record "$D/ok.jsonl" >/dev/null 2>&1
"$BIN" export "$D/ok.jsonl" >"$D/stdout.json" 2>/dev/null
check "no -o writes chrome-trace (the default format) to stdout" grep -q '"traceEvents"' "$D/stdout.json"
"$BIN" export "$D/ok.jsonl" -o - >"$D/dash.json" 2>/dev/null
check "-o - is stdout" cmp -s "$D/stdout.json" "$D/dash.json"
[ -e ./- ] && check "-o - made no file named -" false

"$BIN" export "$D/ok.jsonl" -o /dev/null 2>/dev/null
check "-o /dev/null exits 0" test $? -eq 0
check "/dev/null is still a character device" test -c /dev/null

mkfifo "$D/fifo"
cat "$D/fifo" >"$D/from-fifo" &
reader=$!
"$BIN" export "$D/ok.jsonl" -o "$D/fifo" 2>/dev/null
wait "$reader"
check "a FIFO is written in place to its reader" cmp -s "$D/stdout.json" "$D/from-fifo"
check "the FIFO is still a FIFO" test -p "$D/fifo"

echo old >"$D/target.json"
ln -s target.json "$D/link.json"
"$BIN" export "$D/ok.jsonl" -o "$D/link.json" 2>/dev/null
check "a symlink stays a symlink" test -L "$D/link.json"
check "the symlink's target got the trace" cmp -s "$D/stdout.json" "$D/target.json"

"$BIN" export "$D/ok.jsonl" -o "$D/regular.json" 2>"$D/err"
check "a regular file is written" cmp -s "$D/stdout.json" "$D/regular.json"
check "no temporary file is left" test "$(ls -A "$D" | grep -c tmp)" -eq 0

# Bad input: exit 2 naming the line, and the previous output untouched.
awk 'NR==20{print "{\"seq\":19,\"t\":garbage"; next}{print}' "$D/ok.jsonl" >"$D/corrupt.jsonl"
echo previous >"$D/keep.json"
"$BIN" export "$D/corrupt.jsonl" -o "$D/keep.json" 2>"$D/err"
check "a corrupt log exits 2" test $? -eq 2
check "the error names the line" grep -q 'corrupt.jsonl: line 20' "$D/err"
check "the previous output is untouched" test "$(cat "$D/keep.json")" = previous
"$BIN" export "$D/corrupt.jsonl" -o "$D/new.json" 2>/dev/null
check "no output file appears for a corrupt log" test ! -e "$D/new.json"
"$BIN" export "$D/corrupt.jsonl" --skip-bad-lines -o "$D/skipped.json" 2>"$D/err"
check "--skip-bad-lines exports past the bad line" grep -q '"traceEvents"' "$D/skipped.json"
"$BIN" export "$D/ok.jsonl" -o "$D/no-such-dir/out.json" 2>"$D/err"
check "an unwritable path exits 2" test $? -eq 2
check "the error names the path" grep -q 'taskview: cannot write .*no-such-dir' "$D/err"

# OTLP/JSON: same rules, same bad-input behaviour, deterministic bytes.
"$BIN" export "$D/ok.jsonl" --format otlp-json -o "$D/otlp1.json" 2>/dev/null
"$BIN" export "$D/ok.jsonl" --format otlp-json >"$D/otlp2.json" 2>/dev/null
check "otlp-json: an ExportTraceServiceRequest" grep -q '^{"resourceSpans":\[' "$D/otlp1.json"
check "otlp-json: the same log exports the same bytes" cmp -s "$D/otlp1.json" "$D/otlp2.json"
"$BIN" export "$D/ok.jsonl" --format otlp-json -o /dev/null 2>/dev/null
check "otlp-json: /dev/null is still a character device" test -c /dev/null
"$BIN" export "$D/corrupt.jsonl" --format otlp-json -o "$D/otlp-bad.json" 2>"$D/err"
check "otlp-json: a corrupt log exits 2 naming the line" grep -q 'corrupt.jsonl: line 20' "$D/err"
check "otlp-json: no output file for a corrupt log" test ! -e "$D/otlp-bad.json"
"$BIN" export "$D/corrupt.jsonl" --format otlp-json --skip-bad-lines -o "$D/otlp-skip.json" 2>/dev/null
check "otlp-json: --skip-bad-lines exports" grep -q '"resourceSpans"' "$D/otlp-skip.json"

echo "export: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
