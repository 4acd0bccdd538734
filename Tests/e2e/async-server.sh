#!/usr/bin/env bash
# End-to-end test of scopes and spans (AsyncScopes): Examples/async-server (Hummingbird 2, its
# tracing middleware on, GraphTracer forwarding to InMemoryTracer, request handlers in
# scopes, HTTP and a queue worker as two GraphServices of a ServiceGroup) serves its graph;
# curl sends requests; `taskview attach` shows the request spans with their scope children;
# `x` `y` on one slow request's scope ends that request with an error status while the server
# and the other requests go on. A second server whose worker fails shows the group shutting
# down gracefully, in order.
# Usage: bash Tests/e2e/async-server.sh TASKVIEW_BIN [ASYNC_SERVER_BIN]
#   ASYNC_SERVER_BIN: default built with `swift build --package-path Examples/async-server`.
# Needs tmux and curl. Prints one line per check and "async-server-e2e: N passed, M failed".
set -u
E2E=async-server-e2e
. "$(dirname "$0")/lib.sh"
BIN=${1:?usage: async-server.sh TASKVIEW_BIN [ASYNC_SERVER_BIN]}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
SERVER=${2:-}
if [ -z "$SERVER" ]; then
    swift build --package-path "$ROOT/Examples/async-server" 2>&1 | grep -E 'error:' | grep -v '/\.build/'
    SERVER=$(swift build --package-path "$ROOT/Examples/async-server" --show-bin-path)/async-server
fi
e2e_bin "$BIN"
[ -x "$SERVER" ] || { echo "async-server-e2e: no async-server binary"; exit 1; }
e2e_need tmux curl

e2e_work async-server-e2e
export TASKGRAPH_SOCKET_DIR="$WORK/sockets"
mkdir -m 700 "$TASKGRAPH_SOCKET_DIR"
PORT=$((20000 + $$ % 20000))
URL="http://127.0.0.1:$PORT"
SERVER_PID=
SLOW_PID=
FAILING_PID=
e2e_before_rm() {
    [ -n "$FAILING_PID" ] && kill "$FAILING_PID" 2>/dev/null
    [ -n "$SLOW_PID" ] && kill "$SLOW_PID" 2>/dev/null
    [ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null
    wait 2>/dev/null
}

"$SERVER" "$PORT" > "$WORK/server.out" 2>&1 &
SERVER_PID=$!
i=0
until grep -q 'serving its graph at' "$WORK/server.out" && curl -s -o /dev/null "$URL/work/0"; do
    sleep 0.1; i=$((i + 1))
    [ $i -gt 300 ] && { echo "async-server-e2e: the server did not start"; cat "$WORK/server.out"; exit 1; }
done
PROG_SOCK=$(sed -n 's/.*serving its graph at //p' "$WORK/server.out")

# Each check is a function run by run_test (lib.sh): "ok   NAME" or "FAIL NAME".
fast_request() {
    body=$(curl -s "$URL/work/100")
    [ "$body" = "done 100 ms, 10 rows" ] || { echo "    | fast request: '$body'"; return 1; }
}
run_test "a request runs its steps in scopes" fast_request

# The slow request: 120 s unless cancelled.
curl -s -o "$WORK/slow.body" -w '%{http_code}\n' "$URL/work/120000" > "$WORK/slow.code" &
SLOW_PID=$!

s=viewer
e2e_tmux
t new-session -d -s $s -x 140 -y 40 "env TERM=tmux-256color '$BIN' attach --no-record '$PROG_SOCK'; echo EXIT=\$?; sleep 30"
shown_screen() { "$@" || { show $s; return 1; }; }
run_test "taskview attach shows the slow request's scope" shown_screen wait_for $s 'handle 120000 ms' 30
run_test "request spans are rows" shown_screen on_screen $s '^.*─ . HTTP GET '
# Under each request span (named by Hummingbird when the request starts), its scope.
run_test "the scope's own children (load) are rows" shown_screen on_screen $s 'load'

# Move down until `x` asks to cancel the slow request's scope.
cancel_prompt() {
    for _ in $(seq 1 30); do
        keys $s j x
        sleep 0.3
        on_screen $s 'Cancel handle 120000 ms( in [^?]*)? and its [0-9]+ running subtasks?\? \[y/N\]' && return 0
        on_screen $s 'y/N' && keys $s n
    done
    show $s
    return 1
}
# y ends the cancelled request with a 5xx status.
cancelled_request() {
    keys $s y
    poll 20 test -s "$WORK/slow.code"
    code=$(cat "$WORK/slow.code" 2>/dev/null)
    case "$code" in
    5??) ;;
    *) echo "    | the cancelled request ended with '$code'"; return 1 ;;
    esac
}
before=$FAILED
run_test "x asks to cancel the slow request's scope" cancel_prompt
if [ "$FAILED" -eq "$before" ]; then
    run_test "the cancelled request ends with an error status" cancelled_request
else
    run_test "the cancelled request ends with an error status" false
fi

later_request() {
    body=$(curl -s "$URL/work/50")
    [ "$body" = "done 50 ms, 10 rows" ] || { echo "    | request after the cancel: '$body'"; return 1; }
}
run_test "other requests go on" later_request
run_test "the server goes on" kill -0 "$SERVER_PID"
keys $s q

# The ServiceGroup: a server whose queue worker throws after 4 s. Its failure shuts the group
# down gracefully: `http` is told (`shutting down`) and completes, then `app` fails.
PORT2=$((PORT + 1))
"$SERVER" "$PORT2" --fail-worker-after 4 > "$WORK/failing.out" 2>&1 &
FAILING_PID=$!
i=0
until grep -q 'serving its graph at' "$WORK/failing.out"; do
    sleep 0.1; i=$((i + 1))
    [ $i -gt 300 ] && { echo "async-server-e2e: the failing server did not start"; cat "$WORK/failing.out"; exit 1; }
done
FAILING_SOCK=$(sed -n 's/.*serving its graph at //p' "$WORK/failing.out")
g=services
t new-session -d -s $g -x 140 -y 40 \
    "env TERM=tmux-256color '$BIN' attach --record '$WORK/services.jsonl' '$FAILING_SOCK'; echo EXIT=\$?; sleep 30"
run_test "the services are rows under the group's row" shown_screen wait_for $g '─ . queue worker' 30
run_test "the HTTP service is a row beside the worker" shown_screen on_screen $g '─ . http'
run_test "the worker's failure is shown" shown_screen wait_for $g 'the queue connection was lost' 30
server_failed() {
    wait "$FAILING_PID"
    code=$?
    [ "$code" -eq 1 ] || { echo "    | the server exited $code"; cat "$WORK/failing.out"; return 1; }
}
run_test "the program ends with the worker's error" server_failed
keys $g q
run_test "the recording is written" wait_for $g 'EXIT=' 20
# The log holds the shutdown in the group's order.
shutdown_order() {
    python3 - "$WORK/services.jsonl" <<'PY'
import json, sys
ids, order = {}, []
for line in open(sys.argv[1]):
    e = json.loads(line)
    if e.get("ev") == "add":
        ids[e["id"]] = e["name"]
    name = ids.get(e.get("id"))
    if e.get("ev") == "state" and e.get("state") == "completed" and name in ("queue worker", "http", "app"):
        order.append(name + (" failed" if e.get("failed") else " completed"))
    if e.get("ev") == "progress" and name == "http" and e.get("info") == "shutting down":
        order.append("http shutting down")
    if e.get("ev") == "end":
        order.append("end %d failed" % e["summary"]["failed"])
want = ["queue worker failed", "http shutting down", "http completed", "app failed", "end 2 failed"]
if order != want:
    print("    | order:", order)
    sys.exit(1)
PY
}
run_test "the log keeps the shutdown in order, the end line counts the program's nodes" shutdown_order
report_counts() {
    "$BIN" report "$WORK/services.jsonl" > "$WORK/services.report" 2>&1
    grep -q '^Summary: [0-9]* succeeded, 2 failed,' "$WORK/services.report" ||
        { sed 's/^/    | /' "$WORK/services.report" | head -5; return 1; }
}
run_test "the report counts as the end line does" report_counts

e2e_summary
