#!/usr/bin/env bash
# N1 (issue 42): `needs` at scale. Generates scenarios of zero-duration `work` nodes (python3)
# and times `taskview run FILE --headless --no-record` on each, whole process: reading,
# checking, building, running, the summary and the report. Goal: linear in nodes + edges;
# 20,000 nodes within 8 s, 100,000 within 40 s on the 2-core machine.
# Usage: bash Benchmarks/needs-scale.sh PATH-TO-TASKVIEW [SIZE...]   (default 20000 100000)
# Prints one Markdown row a case: shape, nodes, edges, wall s, CPU s (user + sys), max RSS.
set -u
bin=${1:?usage: needs-scale.sh PATH-TO-TASKVIEW [SIZE...]}
shift
sizes=${*:-20000 100000}
work=$(mktemp -d "${TMPDIR:-/tmp}/needs-scale.XXXXXX")
trap 'rm -rf "$work"' EXIT

echo "| shape | nodes | edges | wall | CPU | max RSS |"
echo "|---|---:|---:|---:|---:|---:|"
for n in $sizes; do
    for shape in fan-in random chain chain-down; do
        python3 - "$shape" "$n" >"$work/s.json" 2>"$work/edges" <<'PY'
import json, random, sys
shape, n = sys.argv[1], int(sys.argv[2])
def w(i, needs=()):
    d = {"kind": "work", "name": f"n{i}", "id": f"n{i}", "duration": 0, "steps": 0}
    if needs: d["needs"] = [f"n{j}" for j in needs]
    return d
if shape == "fan-in":      # one node needs all the others
    kids = [w(i) for i in range(n - 1)] + [w(n - 1, range(n - 1))]
elif shape == "random":    # 3 needs a node, before or after it in the file, no cycle
    rnd = random.Random(1); order = list(range(n)); rnd.shuffle(order)
    rank = {v: k for k, v in enumerate(order)}
    kids = [w(i, sorted({order[rnd.randrange(rank[i])] for _ in range(3)}) if rank[i] else ()) for i in range(n)]
elif shape == "chain":     # each needs the one before it
    kids = [w(i, [i - 1] if i else ()) for i in range(n)]
else:                      # chain-down: each needs the one after it in the file
    kids = [w(i, [i + 1] if i + 1 < n else ()) for i in range(n)]
json.dump({"kind": "concurrent", "name": shape, "children": kids}, sys.stdout)
print(sum(len(k.get("needs", [])) for k in kids), file=sys.stderr)
PY
        edges=$(cat "$work/edges")
        /usr/bin/time -f "%e %U %S %M" -o "$work/time" "$bin" run "$work/s.json" --headless --no-record >"$work/out" 2>&1
        status=$?
        read -r wall user sys rss < <(tail -n 1 "$work/time") # after "Command terminated by ..."
        wall="$wall s"
        summary=$(grep '^Summary: ' "$work/out" | head -1)
        [ $status -eq 0 ] && [ "$summary" = "Summary: $((n + 1)) succeeded, 0 failed, 0 cancelled, 0 skipped, 0 not executed, 0 executing" ] \
            || wall="FAILED (exit $status)"
        printf '| %s | %s | %s | %s | %.2f s | %d MiB |\n' "$shape" "$n" "$edges" "$wall" \
            "$(echo "$user + $sys" | bc)" "$((rss / 1024))"
    done
done
