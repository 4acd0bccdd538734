#!/usr/bin/env bash
# The README's code blocks, each run as a user would (docs.md: every code block in it runs in
# a test):
#   ```swift  the same text is in Examples/readme (built and run here) or in a test under Tests/
#             (the Package.swift fragment excepted: it names this repository's URL);
#   ```json   a scenario: `taskview run FILE --headless` succeeds;
#   ```sh     each `taskview` line parses (`--help` appended; `demo --list` runs as written).
# Then the README's program (Examples/readme, "hasher") runs and `taskview attach --headless`
# watches it to the end.
# Usage: bash Tests/e2e/readme.sh TASKVIEW_BIN. Prints `e2e-readme: N passed, M failed`.
set -u
BIN=$(realpath "${1:?usage: readme.sh TASKVIEW_BIN}")
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
DIR=$(mktemp -d)
chmod 700 "$DIR"
pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok: $1"; }
bad() {
    fail=$((fail + 1))
    echo "FAIL: $1"
    [ -f "$DIR/out" ] && sed 's/^/    | /' "$DIR/out" | tail -30
}
PID=
cleanup() { [ -n "$PID" ] && kill "$PID" 2>/dev/null; rm -rf "$DIR"; }
trap cleanup EXIT

python3 - "$ROOT" "$DIR" <<'PY' || fail=$((fail + 1))
import os, re, sys
root, out = sys.argv[1], sys.argv[2]
readme = open(os.path.join(root, "README.md"), encoding="utf-8").read()
sources = []
for top in ("Tests", "Examples/readme/Sources"):
    for d, _, files in os.walk(os.path.join(root, top)):
        sources += [open(os.path.join(d, f), encoding="utf-8").read() for f in files if f.endswith(".swift")]
n = 0
for lang, body in re.findall(r"```(\w*)\n(.*?)```", readme, re.S):
    if lang == "swift":
        if body.startswith("// Package.swift"):
            continue
        found = any(body in s for s in sources)
        print(("ok" if found else "FAIL") + ": swift block '" + body.splitlines()[0] + "' is in Examples/readme or Tests")
        if not found:
            sys.exit(1)
    elif lang == "json":
        n += 1
        open(os.path.join(out, "block%d.json" % n), "w").write(body)
    elif lang == "sh":
        with open(os.path.join(out, "commands"), "a") as f:
            for line in body.splitlines():
                line = line.split("#")[0].strip()
                m = re.match(r"^(?:swift run )?taskview (.*)$", line)
                if m:
                    f.write(m.group(1).strip() + "\n")
PY

for f in "$DIR"/block*.json; do
    [ -e "$f" ] || continue
    cp "$f" "$DIR/release.json"
    if (cd "$DIR" && "$BIN" run release.json --headless --no-record > "$DIR/out" 2>&1) && grep -q '^Summary: .* 0 failed' "$DIR/out"; then
        ok "README pipeline $(basename "$f") runs and succeeds"
    else
        bad "README pipeline $(basename "$f")"
    fi
done

while read -r args; do
    case "$args" in
        "demo --list") set -- demo --list ;;
        *) eval "set -- $args --help" ;;
    esac
    if "$BIN" "$@" > "$DIR/out" 2>&1; then ok "taskview $args (parses)"; else bad "taskview $args: exit $?"; fi
done < "$DIR/commands"

# The README's program, watched to its end by taskview attach.
HASHER=${HASHER_BIN:-}
if [ -z "$HASHER" ]; then
    swift build --package-path "$ROOT/Examples/readme" 2>&1 | grep -E 'error|warning: '
    HASHER=$(swift build --package-path "$ROOT/Examples/readme" --show-bin-path)/hasher
fi
mkdir -m 700 "$DIR/sock"
TASKGRAPH_SOCKET_DIR="$DIR/sock" "$HASHER" > "$DIR/hasher.out" 2>&1 &
PID=$!
n=200
while [ $n -gt 0 ] && [ ! -S "$DIR/sock/$PID.sock" ]; do sleep 0.05; n=$((n - 1)); done
TASKGRAPH_SOCKET_DIR="$DIR/sock" timeout 60 "$BIN" attach --headless --no-record "$PID" > "$DIR/out" 2>&1
status=$?
wait "$PID"
hstatus=$?
PID=
grep -q 'hash part 8' "$DIR/out" && grep -q 'hash: succeeded' "$DIR/out" \
    && ok "taskview attach saw the README's program run to success (exit $status)" || bad "attach to the README's program (exit $status)"
[ $hstatus -eq 0 ] && grep -qx 'hashed 8 parts' "$DIR/hasher.out" && ok "the README's program printed 'hashed 8 parts'" \
    || { cp "$DIR/hasher.out" "$DIR/out"; bad "the README's program (exit $hstatus)"; }

echo "e2e-readme: $pass passed, $fail failed"
[ $fail -eq 0 ]
