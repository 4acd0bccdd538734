#!/usr/bin/env bash
# D1 (issue 43): `taskview diff` of two 1,000,000-event logs. Generates two runs of one
# graph (python3), as a recorder writes it: a root, 200 groups of 714 steps, each step added,
# given its parent, started, 3 progress events, ended (7 events); the second run's times drift, some steps fail, a group is
# renamed (removed + added). Times `taskview diff A B` (text and --format json), whole
# process. Goal: under 2 s on the 2-core machine.
# Usage: bash Benchmarks/diff-scale.sh PATH-TO-TASKVIEW [EVENTS]   (default 1000000)
set -u
bin=${1:?usage: diff-scale.sh PATH-TO-TASKVIEW [EVENTS]}
events=${2:-1000000}
work=$(mktemp -d "${TMPDIR:-/tmp}/diff-scale.XXXXXX")
trap 'rm -rf "$work"' EXIT

for run in 1 2; do
    python3 - "$run" "$events" >"$work/run$run.jsonl" <<'PY'
import random, sys
run, events = int(sys.argv[1]), int(sys.argv[2])
rnd = random.Random(run)
groups = 200
per = max(1, (events // 7) // groups)
out = []  # (time, order, event): written sorted by time, as a recorder writes them
def line(t, rest):
    out.append((round(t, 3), len(out), rest))
line(0, '"snapshot","part":1,"parts":1,"nodes":[]')
line(0, '"add","id":0,"kind":"allSettled","name":"ci","weight":1')
line(0, '"state","id":0,"state":"executing"')
# Ids in the order the nodes are added, as a recorder numbers them.
gid = {}
for g in range(groups):
    name = "group %d" % g if not (run == 2 and g == 7) else "renamed %d" % g
    gid[g] = 1 + g
    line(0, '"add","id":%d,"kind":"allSettled","name":"%s","weight":1' % (gid[g], name))
    line(0, '"parent","id":%d,"parent":0,"index":%d' % (gid[g], g))
    line(0, '"state","id":%d,"state":"executing"' % gid[g])
nid, end, gend = 1 + groups, 0.0, [0.0] * groups
for k in range(per):
    for g in range(groups):
        i = nid; nid += 1
        start = k * 0.01
        took = 0.5 + (k % 7) * 0.1
        if run == 2: took *= rnd.choice((0.5, 1, 1, 1, 1.5, 3))
        line(start, '"add","id":%d,"kind":"task","name":"step %d","weight":1' % (i, k))
        line(start, '"parent","id":%d,"parent":%d,"index":%d' % (i, gid[g], k))
        line(start, '"state","id":%d,"state":"executing"' % i)
        for f in (0.25, 0.5, 0.75):
            line(start + took * f, '"progress","id":%d,"fraction":%s' % (i, f))
        failed = run == 2 and k % 997 == 0
        line(start + took, '"state","id":%d,"state":"completed"%s' % (i, ',"failed":true,"message":"boom"' if failed else ""))
        gend[g] = max(gend[g], start + took)
for g in range(groups):
    line(gend[g], '"state","id":%d,"state":"completed"' % gid[g])
    end = max(end, gend[g])
line(end, '"state","id":0,"state":"completed"')
out.sort()
w = sys.stdout.write
w('{"format":"taskgraph-log","version":1,"created":"2026-01-01T00:00:00Z","producer":"diff-scale.sh"}\n')
for seq, (t, _, rest) in enumerate(out, 1):
    w('{"seq":%d,"t":%.3f,"ev":%s}\n' % (seq, t, rest))
PY
done
n1=$(($(wc -l <"$work/run1.jsonl") - 2))
echo "| case | events per log | wall | CPU | max RSS |"
echo "|---|---:|---:|---:|---:|"
for format in text json; do
    /usr/bin/time -f "%e %U %S %M" -o "$work/time" "$bin" diff "$work/run1.jsonl" "$work/run2.jsonl" --format $format >"$work/out" 2>"$work/err"
    status=$?
    read -r wall user sys rss < <(tail -n 1 "$work/time")
    [ $status -le 1 ] && [ -s "$work/out" ] || wall="FAILED (exit $status: $(head -c 200 "$work/err"))"
    printf '| diff --format %s | %s | %s s | %.2f s | %d MiB |\n' "$format" "$n1" "$wall" "$(echo "$user + $sys" | bc)" "$((rss / 1024))"
done
