#!/usr/bin/env bash
# The OTLP/JSON export checked with OpenTelemetry's own schema (opentelemetry-proto from PyPI,
# in the venv .ci-venv made here): logs recorded by the taskview binary from demos with
# failures, retries and cancels, exported, then parsed strictly by check_export.py.
# Usage: bash Tests/otlp/check.sh PATH-TO-TASKVIEW
set -u
BIN=${1:?usage: check.sh PATH-TO-TASKVIEW}
cd "$(dirname "$0")/../.."
bash Tests/otlp/venv.sh || exit 1
D=$(mktemp -d "${TMPDIR:-/tmp}/taskview-otlp.XXXXXX")
trap 'rm -rf "$D"' EXIT
status=0
run() {   # run NAME COMMAND...: record a session, export it, check it
    local name=$1; shift
    "$@" --headless --record "$D/$name.jsonl" >/dev/null 2>&1
    if ! "$BIN" export "$D/$name.jsonl" --format otlp-json -o "$D/$name.json" 2>"$D/err"; then
        echo "FAIL $name: export failed: $(head -c 300 "$D/err")"; status=1; return
    fi
    echo "--- $name"
    .ci-venv/bin/python Tests/otlp/check_export.py "$D/$name.jsonl" "$D/$name.json" || status=1
}
run flaky "$BIN" run demos/flaky.json
run pipeline "$BIN" run demos/pipeline.json
run build "$BIN" demo build
echo
[ $status -eq 0 ] && echo "otlp: all passed" || echo "otlp: FAILED"
exit $status
