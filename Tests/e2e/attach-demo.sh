#!/bin/sh
# End-to-end without the dashboard: run Examples/attach-demo, watch it over its socket with a
# small Python client (what `nc -U` shows), cancel one batch, see the program's own cancel
# come back and the program report it, cancel the root, and check exit status 130 and that
# the socket file is gone.
# Binary: $ATTACH_DEMO_BIN, else built with `swift build --package-path Examples/attach-demo`.
# Prints `e2e-attach-demo: N passed, M failed`; exit status 0 only when nothing failed.
set -u
E2E=e2e-attach-demo
. "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
if [ -z "${ATTACH_DEMO_BIN:-}" ]; then
    swift build --package-path "$ROOT/Examples/attach-demo" 2>&1 | grep -E 'error|warning: ' 
    ATTACH_DEMO_BIN=$(swift build --package-path "$ROOT/Examples/attach-demo" --show-bin-path)/attach-demo
fi
[ -x "$ATTACH_DEMO_BIN" ] || { echo "e2e-attach-demo: no attach-demo binary"; exit 2; }
if ! command -v python3 >/dev/null 2>&1; then   # the client; Debian images usually have it
    sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq python3 >/dev/null
fi
e2e_work taskview-attach-demo
DIR=$WORK
# shown COMMAND...: COMMAND's status; when it fails, the program's and the client's output.
# Each check below is `c() { CONDITION; }; run_test NAME shown c`.
shown() { "$@" || { sed 's/^/    | /' "$DIR/out" "$DIR/client" 2>/dev/null; return 1; }; }
PID=
e2e_before_rm() { [ -n "$PID" ] && kill "$PID" 2>/dev/null; }

TASKGRAPH_SOCKET_DIR="$DIR" "$ATTACH_DEMO_BIN" > "$DIR/out" &
PID=$!
n=200
while [ $n -gt 0 ] && ! grep -q '^serving at ' "$DIR/out" 2>/dev/null; do sleep 0.05; n=$((n - 1)); done
SOCKET=$(sed -n 's/^serving at //p' "$DIR/out")
c() { [ "$SOCKET" = "$DIR/$PID.sock" ]; }; run_test "serves at \$TASKGRAPH_SOCKET_DIR/<pid>.sock" shown c
c() { [ "$(stat -c %a "$SOCKET" 2>/dev/null)" = 600 ]; }; run_test "socket is 0600" shown c

python3 - "$SOCKET" > "$DIR/client" 2>&1 <<'PY'
import json, socket, sys
s = socket.socket(socket.AF_UNIX)
s.settimeout(30)
s.connect(sys.argv[1])
f = s.makefile("rb")
header = json.loads(f.readline())
print("header", header["format"], header["name"], header["pid"])
nodes = {}
while True:
    snap = json.loads(f.readline())
    assert snap["ev"] == "snapshot"
    nodes.update({n["name"]: n for n in snap["nodes"]})
    if snap["part"] == snap["parts"]:
        break
print("snapshot", len(nodes), "nodes")
def cancel(name):
    s.sendall((json.dumps({"cmd": "cancel", "id": nodes[name]["id"]}) + "\n").encode())
def until(pred):
    for line in f:
        o = json.loads(line)
        if pred(o):
            return o
    return None
cancel("batch 2")
o = until(lambda o: o["ev"] == "cancel" and o["id"] == nodes["batch 2"]["id"])
print("cancel", o and o["source"])
o = until(lambda o: o["ev"] == "state" and o["id"] == nodes["batch 2"]["id"])
print("state", o and o["state"])
s.sendall(b'{"cmd":"pause"}\n')
o = until(lambda o: o["ev"] == "error")
print("error line", o is not None)
cancel("attach-demo")
o = until(lambda o: o["ev"] == "end")
print("end", o and o["summary"]["outcome"])
print("closed", f.readline() == b"")
PY
c() { grep -q '^header taskgraph-log attach-demo '"$PID"'$' "$DIR/client"; }; run_test "header names the program and pid" shown c
c() { grep -q '^snapshot 29 nodes$' "$DIR/client"; }; run_test "snapshot of the 29 nodes" shown c
c() { grep -q '^cancel attach$' "$DIR/client"; }; run_test "cancel comes back with source attach" shown c
c() { grep -q '^state cancelled$' "$DIR/client"; }; run_test "batch 2 cancelled" shown c
c() { grep -q '^error line True$' "$DIR/client"; }; run_test "unknown command gets an error line" shown c
c() { grep -q '^end cancelled$' "$DIR/client"; }; run_test "final end after cancelling the root" shown c
c() { grep -q '^closed True$' "$DIR/client"; }; run_test "connection closed after end" shown c
wait "$PID"; status=$?
PID=
c() { [ $status -eq 130 ]; }; run_test "exit status 130" shown c
c() { grep -q '^cancelled: batch 2 (attach)$' "$DIR/out"; }; run_test "program reported the batch cancel" shown c
c() { grep -q '^cancelled: attach-demo (attach)$' "$DIR/out"; }; run_test "program reported the root cancel" shown c
c() { [ ! -e "$SOCKET" ]; }; run_test "socket file removed" shown c

# The same program against a viewer written from the spec alone (Tests/attach/spec_viewer.py).
TASKGRAPH_SOCKET_DIR="$DIR" "$ATTACH_DEMO_BIN" > "$DIR/out" &
PID=$!
n=200
while [ $n -gt 0 ] && ! grep -q '^serving at ' "$DIR/out" 2>/dev/null; do sleep 0.05; n=$((n - 1)); done
SOCKET=$(sed -n 's/^serving at //p' "$DIR/out")
python3 "$ROOT/Tests/attach/spec_viewer.py" "$SOCKET" "$PID" > "$DIR/client" 2>&1
c() { grep -q '^ALL OK' "$DIR/client"; }; run_test "a viewer written from the protocol's description alone: every check" shown c
wait "$PID"; status=$?
PID=
c() { [ $status -eq 130 ]; }; run_test "exit status 130 after the spec viewer's cancel" shown c

e2e_summary
