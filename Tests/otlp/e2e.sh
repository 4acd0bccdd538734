#!/usr/bin/env bash
# End to end: Examples/otel's otel-demo (swift-otel's OTLP/HTTP exporter) traces a graph in two
# processes joined by W3C traceparent and sends to receiver.py on 127.0.0.1; check_e2e.py
# asserts both processes' spans arrive in one trace with the right parents. Runs once with
# http/protobuf and once with http/json.
# Usage: bash Tests/otlp/e2e.sh PATH-TO-otel-demo
set -u
DEMO=${1:?usage: e2e.sh PATH-TO-otel-demo}
cd "$(dirname "$0")/../.."
bash Tests/otlp/venv.sh || exit 1
D=$(mktemp -d "${TMPDIR:-/tmp}/taskgraph-otel.XXXXXX")
receiver=""
cleanup() { [ -n "$receiver" ] && kill "$receiver" 2>/dev/null; rm -rf "$D"; }
trap cleanup EXIT
status=0
for proto in http/protobuf http/json; do
    echo "--- $proto"
    rm -f "$D/spans.jsonl" "$D/port"
    .ci-venv/bin/python Tests/otlp/receiver.py "$D/spans.jsonl" "$D/port" &
    receiver=$!
    for _ in $(seq 100); do [ -s "$D/port" ] && break; sleep 0.1; done
    [ -s "$D/port" ] || { echo "FAIL receiver did not start"; status=1; continue; }
    OTEL_EXPORTER_OTLP_ENDPOINT="http://127.0.0.1:$(cat "$D/port")" OTEL_EXPORTER_OTLP_PROTOCOL=$proto \
        timeout 120 "$DEMO" >"$D/out" 2>&1
    rc=$?
    [ $rc -eq 0 ] || { echo "FAIL otel-demo exited $rc:"; head -c 2000 "$D/out"; status=1; }
    # Both processes flush before they exit; give the receiver a moment to write.
    for _ in $(seq 50); do [ "$(wc -l <"$D/spans.jsonl" 2>/dev/null || echo 0)" -ge 9 ] && break; sleep 0.1; done
    kill "$receiver"; wait "$receiver" 2>/dev/null; receiver=""
    [ -s "$D/spans.jsonl" ] || { echo "FAIL no spans received"; status=1; continue; }
    .ci-venv/bin/python Tests/otlp/check_e2e.py "$D/spans.jsonl" || status=1
done
echo
[ $status -eq 0 ] && echo "otel e2e: all passed" || echo "otel e2e: FAILED"
exit $status
