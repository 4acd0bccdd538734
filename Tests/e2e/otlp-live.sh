#!/usr/bin/env bash
# `taskview run` streaming spans live over OTLP/HTTP (issue 45) to Tests/otlp/receiver.py on
# 127.0.0.1, which decodes every request with opentelemetry-proto: spans arrive while the run
# goes, the CI/CD and process attributes, a command's TRACEPARENT names its own span, the
# export of the run's log has the same spans, attach streams too; a stopped or silent collector costs the run
# nothing and the spans not delivered are counted; a bad variable is an error before anything
# runs. Usage: bash Tests/e2e/otlp-live.sh PATH-TO-TASKVIEW
set -u
E2E=otlp-live
. "$(dirname "$0")/lib.sh"
e2e_bin "${1:?usage: otlp-live.sh PATH-TO-TASKVIEW}"
cd "$(dirname "$0")/../.."
bash Tests/otlp/venv.sh || e2e_die "no venv with opentelemetry-proto"
PY=$PWD/.ci-venv/bin/python
e2e_work taskview-otlp-live
D=$WORK
RECEIVER=
e2e_before_rm() { [ -n "$RECEIVER" ] && kill "$RECEIVER" 2>/dev/null; }

"$PY" Tests/otlp/receiver.py "$D/spans.jsonl" "$D/port" &
RECEIVER=$!
for _ in $(seq 100); do [ -s "$D/port" ] && break; sleep 0.1; done
[ -s "$D/port" ] || e2e_die "the receiver did not start"
PORT=$(cat "$D/port")

# "watch receiver" waits (up to 5 s) for the first command's span to reach the receiver: the
# spans come while the run goes, not at its end.
cat >"$D/pipeline.json" <<JSON
{"kind": "sequential", "name": "live pipeline", "children": [
  {"kind": "command", "name": "first", "run": "echo first"},
  {"kind": "command", "name": "print traceparent", "run": "echo \"\$TRACEPARENT\" > $D/tp"},
  {"kind": "command", "name": "watch receiver", "run": "for i in \$(seq 50); do grep -q '\"name\": \"first\"' $D/spans.jsonl 2>/dev/null && { echo seen > $D/seen; break; }; sleep 0.1; done"},
  {"kind": "command", "name": "fails", "run": "echo broken >&2; exit 3"}
]}
JSON

OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:$PORT "$BIN" run "$D/pipeline.json" --headless \
    --record "$D/run.jsonl" >"$D/out" 2>"$D/err"
status=$?
run_test "the run exits 1 (a command failed), as without OTLP" test $status -eq 1
run_test "the first command's span arrived while the run went on" test -s "$D/seen"
for _ in $(seq 50); do [ "$(wc -l <"$D/spans.jsonl")" -ge 5 ] && break; sleep 0.1; done
run_test "every node's span arrived once (the root and four commands)" test "$(wc -l <"$D/spans.jsonl")" -eq 5
run_test "no span was lost (nothing said on stderr)" sh -c "! grep -q 'not delivered' '$D/err'"
run_test "CI/CD attributes on the pipeline and its commands, process attributes on commands" \
    "$PY" Tests/otlp/check_live.py attributes "$D/spans.jsonl"
run_test "a command's TRACEPARENT is the run's trace id and the command's own span id" \
    "$PY" Tests/otlp/check_live.py traceparent "$D/spans.jsonl" "$D/tp"
"$BIN" export "$D/run.jsonl" --format otlp-json -o "$D/export.json" 2>/dev/null
run_test "export --format otlp-json of the run's log has the same spans and CI/CD attributes" \
    "$PY" Tests/otlp/check_live.py export "$D/spans.jsonl" "$D/export.json"
run_test "http/protobuf is the default" "$PY" Tests/otlp/check_live.py content-type "$D/spans.jsonl" application/x-protobuf

: >"$D/spans.jsonl"
OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:$PORT OTEL_EXPORTER_OTLP_PROTOCOL=http/json \
    OTEL_SERVICE_NAME=ci-json "$BIN" run "$D/pipeline.json" --headless --no-record >/dev/null 2>&1
run_test "http/json arrives too, as OTEL_SERVICE_NAME names it" \
    sh -c "'$PY' Tests/otlp/check_live.py content-type '$D/spans.jsonl' application/json && grep -q '\"service\": \"ci-json\"' '$D/spans.jsonl'"

# attach --otlp: a served program (Tests/attach/fake_server.py) that finishes after 2 s.
: >"$D/spans.jsonl"
mkdir -m 700 "$D/sock"
python3 Tests/attach/fake_server.py "$D/sock/fake.sock" --name fake --exit-after 2 --finish-as failed \
    >"$D/fake.out" 2>&1 &
for _ in $(seq 50); do [ -S "$D/sock/fake.sock" ] && break; sleep 0.1; done
TASKGRAPH_SOCKET_DIR=$D/sock OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:$PORT timeout 30 \
    "$BIN" attach "$D/sock/fake.sock" --headless --record "$D/attach.jsonl" >/dev/null 2>&1
"$BIN" export "$D/attach.jsonl" --format otlp-json -o "$D/attach.json" 2>/dev/null
run_test "attach --otlp: the program's nodes arrive, the same spans as the export of its recording" \
    sh -c "test \$(wc -l <'$D/spans.jsonl') -eq 8 && '$PY' Tests/otlp/check_live.py export '$D/spans.jsonl' '$D/attach.json'"
run_test "attach --otlp: the program's spans are its own service (service.name fake), the export's too" \
    sh -c "test \$(grep -c '\"service\": \"fake\"' '$D/spans.jsonl') -eq 8 && grep -q '\"service.name\",\"value\":{\"stringValue\":\"fake\"}' '$D/attach.json'"

kill "$RECEIVER"
wait "$RECEIVER" 2>/dev/null
RECEIVER=
cat >"$D/short.json" <<JSON
{"kind": "sequential", "name": "short", "children": [
  {"kind": "command", "name": "one", "run": "sleep 1"},
  {"kind": "command", "name": "two", "run": "sleep 1"},
  {"kind": "command", "name": "three", "run": "exit 3"}
]}
JSON
stopped() {   # stopped NAME ENDPOINT: the run against a collector that does not take spans
    local start end
    start=$(date +%s%N)
    OTEL_EXPORTER_OTLP_ENDPOINT=$2 "$BIN" run "$D/short.json" --headless --no-record >/dev/null 2>"$D/$1.err"
    echo $? >"$D/$1.status"
    end=$(date +%s%N)
    echo $(((end - start) / 1000000)) >"$D/$1.ms"
}
stopped down "http://127.0.0.1:$PORT"
# The run takes 2 s; at the end at most 2 s go to sending (limit 5x that).
run_test "receiver stopped: the run ends on time ($(cat "$D/down.ms") ms)" test "$(cat "$D/down.ms")" -lt 12000
run_test "receiver stopped: the exit status is unchanged (1)" test "$(cat "$D/down.status")" -eq 1
run_test "receiver stopped: one line says how many spans were not delivered and why" \
    grep -qx "taskview: 4 spans not delivered to http://127.0.0.1:$PORT/v1/traces: connection refused" "$D/down.err"

# A collector that accepts connections and never answers.
"$PY" -c 'import socket, sys, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(16)
open(sys.argv[1], "w").write(str(s.getsockname()[1])); time.sleep(60)' "$D/silent.port" &
SILENT=$!
for _ in $(seq 50); do [ -s "$D/silent.port" ] && break; sleep 0.1; done
stopped silent "http://127.0.0.1:$(cat "$D/silent.port")"
kill "$SILENT" 2>/dev/null
run_test "silent collector: the run ends on time ($(cat "$D/silent.ms") ms)" test "$(cat "$D/silent.ms")" -lt 12000
run_test "silent collector: the exit status is unchanged, the lost spans are counted" \
    sh -c "test \$(cat '$D/silent.status') -eq 1 && grep -q '^taskview: 4 spans not delivered to' '$D/silent.err'"

bad() {   # bad VARIABLE VALUE: exit 2, one line naming VARIABLE, nothing ran, no log
    rm -f "$D/ran" "$D/bad.jsonl"
    echo '{"kind": "command", "name": "ran", "run": "touch '"$D"'/ran"}' >"$D/bad.json"
    env "$1=$2" "$BIN" run "$D/bad.json" --headless --otlp --record "$D/bad.jsonl" >/dev/null 2>"$D/bad.err"
    local status=$?
    [ $status -eq 2 ] && [ "$(wc -l <"$D/bad.err")" -eq 1 ] && grep -q "^taskview: $1: " "$D/bad.err" \
        && [ ! -e "$D/ran" ] && [ ! -e "$D/bad.jsonl" ]
}
run_test "a malformed endpoint: exit 2 naming the variable, before anything runs" \
    bad OTEL_EXPORTER_OTLP_ENDPOINT "127.0.0.1:4318"
run_test "https: exit 2, said to be unsupported" bad OTEL_EXPORTER_OTLP_TRACES_ENDPOINT "https://collector:4318/v1/traces"
https_from_environment() {   # no --otlp: the run goes on without the stream, saying so
    rm -f "$D/ran"
    OTEL_EXPORTER_OTLP_ENDPOINT=https://collector:4318 "$BIN" run "$D/bad.json" --headless --no-record \
        >/dev/null 2>"$D/https.err"
    [ $? -eq 0 ] && [ -e "$D/ran" ] && grep -q '^taskview: OTEL_EXPORTER_OTLP_ENDPOINT: https is not supported' "$D/https.err" \
        && grep -q '^taskview: not streaming to OpenTelemetry' "$D/https.err"
}
run_test "https from the environment alone: the run goes on without the stream, saying so" https_from_environment
run_test "malformed headers: exit 2 naming the variable" bad OTEL_EXPORTER_OTLP_HEADERS "api-key"
run_test "an unknown protocol: exit 2 naming the variable" bad OTEL_EXPORTER_OTLP_PROTOCOL "grpc"

OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:9 "$BIN" run "$D/short.json" --headless --no-record --no-otlp \
    >/dev/null 2>"$D/off.err"
run_test "--no-otlp: no stream, nothing said" test ! -s "$D/off.err"
e2e_summary
