#!/usr/bin/env bash
# The README's code blocks, each run as a user would (every code block in it runs in a
# test):
#   ```swift  the same text is in Examples/readme (built and run here) or in a test under Tests/
#             (the Package.swift fragment excepted: it names this repository's URL);
#   ```json   a scenario: `taskview run FILE --headless` succeeds;
#   ```sh     each `taskview` line parses (`--help` appended; `demo --list` runs as written).
# Then the README's program (Examples/readme, "hasher") runs and `taskview attach --headless`
# watches it to the end.
# Usage: bash Tests/e2e/readme.sh TASKVIEW_BIN. Prints `e2e-readme: N passed, M failed`.
set -u
E2E=e2e-readme
. "$(dirname "$0")/lib.sh"
BIN=$(realpath "${1:?usage: readme.sh TASKVIEW_BIN}")
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
e2e_work taskview-readme
DIR=$WORK
# out_tail: the end of the last command's output, under a failure's line.
out_tail() { [ -f "$DIR/out" ] && sed 's/^/    | /' "$DIR/out" | tail -30; }
PID=
e2e_before_rm() { [ -n "$PID" ] && kill "$PID" 2>/dev/null; }

# The swift blocks are checked here; the json and sh blocks are written to $DIR for the tests
# below.
swift_blocks_in_sources() {
python3 - "$ROOT" "$DIR" <<'PY'
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
        norm = lambda t: "\n".join(line.strip() for line in t.splitlines())  # indentation aside
        found = any(norm(body) in norm(s) for s in sources)
        if not found:
            print("  swift block '" + body.splitlines()[0] + "' is in neither Examples/readme nor Tests")
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
}
run_test "the README's swift blocks are in Examples/readme or Tests" swift_blocks_in_sources

# pipeline_succeeds FILE: FILE (as release.json) runs headless and nothing fails.
pipeline_succeeds() {
    cp "$1" "$DIR/release.json"
    (cd "$DIR" && "$BIN" run release.json --headless --no-record > "$DIR/out" 2>&1) \
        && grep -q '^Summary: .* 0 failed' "$DIR/out" || { out_tail; return 1; }
}
for f in "$DIR"/block*.json; do
    [ -e "$f" ] || continue
    run_test "README pipeline $(basename "$f") runs and succeeds" pipeline_succeeds "$f"
done

# parses ARGS: `taskview ARGS --help` (`demo --list` as written) exits 0.
parses() {
    case "$1" in
        "demo --list") set -- demo --list ;;
        *) eval "set -- $1 --help" ;;
    esac
    "$BIN" "$@" > "$DIR/out" 2>&1 || { echo "  exit $?"; out_tail; return 1; }
}
while read -r args; do
    run_test "taskview $args (parses)" parses "$args"
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
attach_saw_success() {
    grep -q 'hash part 8' "$DIR/out" && grep -q 'hash: succeeded' "$DIR/out" \
        || { echo "  taskview attach exited $status"; out_tail; return 1; }
}
hasher_printed() {
    [ $hstatus -eq 0 ] && grep -qx 'hashed 8 parts' "$DIR/hasher.out" \
        || { echo "  the program exited $hstatus"; sed 's/^/    | /' "$DIR/hasher.out" | tail -30; return 1; }
}
run_test "taskview attach saw the README's program run to success" attach_saw_success
run_test "the README's program printed 'hashed 8 parts'" hasher_printed

e2e_summary
