#!/bin/sh
# End-to-end without the dashboard: run Examples/attach-demo, watch it over its socket with a
# small Python client (what `nc -U` shows), cancel one batch, see the program's own cancel
# come back and the program report it, cancel the root, and check exit status 130 and that
# the socket file is gone.
# Binary: $ATTACH_DEMO_BIN, else built with `swift build --package-path Examples/attach-demo`.
# Prints `e2e-attach-demo: N passed, M failed`; exit status 0 only when nothing failed.
set -u
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
DIR=$(mktemp -d)
chmod 700 "$DIR"
pass=0; fail=0
ok() { pass=$((pass + 1)); echo "ok: $1"; }
bad() { fail=$((fail + 1)); echo "FAIL: $1"; sed 's/^/    | /' "$DIR/out" "$DIR/client" 2>/dev/null; }
PID=
cleanup() { [ -n "$PID" ] && kill "$PID" 2>/dev/null; rm -rf "$DIR"; }
trap cleanup EXIT

TASKGRAPH_SOCKET_DIR="$DIR" "$ATTACH_DEMO_BIN" > "$DIR/out" &
PID=$!
n=200
while [ $n -gt 0 ] && ! grep -q '^serving at ' "$DIR/out" 2>/dev/null; do sleep 0.05; n=$((n - 1)); done
SOCKET=$(sed -n 's/^serving at //p' "$DIR/out")
[ "$SOCKET" = "$DIR/$PID.sock" ] && ok "serves at \$TASKGRAPH_SOCKET_DIR/<pid>.sock" || bad "socket path '$SOCKET'"
[ "$(stat -c %a "$SOCKET" 2>/dev/null)" = 600 ] && ok "socket is 0600" || bad "socket mode"

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
grep -q '^header taskgraph-log attach-demo '"$PID"'$' "$DIR/client" && ok "header names the program and pid" || bad "header"
grep -q '^snapshot 29 nodes$' "$DIR/client" && ok "snapshot of the 29 nodes" || bad "snapshot"
grep -q '^cancel attach$' "$DIR/client" && ok "cancel comes back with source attach" || bad "cancel event"
grep -q '^state cancelled$' "$DIR/client" && ok "batch 2 cancelled" || bad "batch state"
grep -q '^error line True$' "$DIR/client" && ok "unknown command gets an error line" || bad "error line"
grep -q '^end cancelled$' "$DIR/client" && ok "final end after cancelling the root" || bad "end"
grep -q '^closed True$' "$DIR/client" && ok "connection closed after end" || bad "close"
wait "$PID"; status=$?
PID=
[ $status -eq 130 ] && ok "exit status 130" || bad "exit status $status"
grep -q '^cancelled: batch 2 (attach)$' "$DIR/out" && ok "program reported the batch cancel" || bad "program output"
grep -q '^cancelled: attach-demo (attach)$' "$DIR/out" && ok "program reported the root cancel" || bad "program output (root)"
[ ! -e "$SOCKET" ] && ok "socket file removed" || bad "socket left behind"

# The same program against a viewer written from the spec alone (Tests/attach/spec_viewer.py).
TASKGRAPH_SOCKET_DIR="$DIR" "$ATTACH_DEMO_BIN" > "$DIR/out" &
PID=$!
n=200
while [ $n -gt 0 ] && ! grep -q '^serving at ' "$DIR/out" 2>/dev/null; do sleep 0.05; n=$((n - 1)); done
SOCKET=$(sed -n 's/^serving at //p' "$DIR/out")
python3 "$ROOT/Tests/attach/spec_viewer.py" "$SOCKET" "$PID" > "$DIR/client" 2>&1
grep -q '^ALL OK' "$DIR/client" && ok "a viewer written from attach.md alone: every check" || bad "spec viewer: $(grep -c '^FAIL' "$DIR/client") checks failed"
wait "$PID"; status=$?
PID=
[ $status -eq 130 ] && ok "exit status 130 after the spec viewer's cancel" || bad "exit status $status (spec viewer)"

echo "e2e-attach-demo: $pass passed, $fail failed"
[ $fail -eq 0 ]
