#!/usr/bin/env python3
"""Writes a replay log of one chain of N nested scopes (node i's parent is node i-1).

Usage: deep-chain.py N [FILE]. Every node starts, reports progress, then the chain
completes from the innermost node out; a final snapshot (in parts of at most 1 MiB) and
`end` close it, as `Graph.record(to:)` writes them (docs/log-format.md).
"""
import sys

n = int(sys.argv[1])
out = open(sys.argv[2], "w") if len(sys.argv) > 2 else sys.stdout
w = out.write
w('{"format":"taskgraph-log","version":1,"created":"2026-01-01T00:00:00Z","producer":"deep-chain.py"}\n')
seq = 0


def line(t, rest):
    global seq
    seq += 1
    w('{"seq":%d,"t":%s,"ev":%s}\n' % (seq, t, rest))


line(0, '"snapshot","part":1,"parts":1,"nodes":[]')
for i in range(n):
    parent = ',"parent":%d' % (i - 1) if i else ""
    line(0, '"add","id":%d,"kind":"scope","name":"level %d","weight":1%s' % (i, i, parent))
    line(0, '"state","id":%d,"state":"executing"' % i)
line(1, '"progress","id":%d,"fraction":0.5,"info":"half"' % (n - 1))
for i in reversed(range(n)):
    line(2, '"state","id":%d,"state":"completed"' % i)
nodes = []
for i in range(n):
    parent = ',"parent":%d' % (i - 1) if i else ""
    nodes.append('{"id":%d,"kind":"scope"%s,"name":"level %d","weight":1,"state":"completed",'
                 '"failed":false,"fraction":1,"started":0,"ended":2}' % (i, parent, i))
parts, cur, size = [], [], 0
for s in nodes:
    if cur and size + len(s) > 1_000_000:
        parts.append(cur)
        cur, size = [], 0
    cur.append(s)
    size += len(s) + 1
parts.append(cur)
for k, p in enumerate(parts):
    line(2, '"snapshot","part":%d,"parts":%d,"nodes":[%s]' % (k + 1, len(parts), ",".join(p)))
line(2, '"end","summary":{"succeeded":%d,"failed":0,"cancelled":0,"skipped":0,"notExecuted":0,'
     '"executing":0,"duration":2,"outcome":"succeeded"}' % n)
