# A viewer written from docs/log-format.md alone (not from our code): checks the
# served stream (header, gapless seq, t never going back, snapshot parts and fields), the
# error line for every malformed or hostile command, a connection closed on a line over
# 64 KiB, on bytes that are not UTF-8 and on bytes that are not JSON, the 16-viewer limit,
# a cancel coming back with source "attach", and the final snapshot and `end` with nothing
# left executing. Usage: spec_viewer.py SOCKET PID (Examples/attach-demo). Prints "ALL OK".
import json, socket, sys, time, re
path, pid = sys.argv[1], int(sys.argv[2])
fails = []
def check(c, msg):
    print(("ok   " if c else "FAIL ") + msg)
    if not c: fails.append(msg)
def connect():
    s = socket.socket(socket.AF_UNIX); s.settimeout(20); s.connect(path); return s, s.makefile("rb")
s, f = connect()
h = json.loads(f.readline())
check(h.get("format") == "taskgraph-log" and h.get("version") == 1, "header format/version")
check(isinstance(h.get("created"), str) and re.match(r"\d{4}-\d\d-\d\dT", h["created"]), "created ISO 8601: %r" % h.get("created"))
check(h.get("pid") == pid and isinstance(h.get("name"), str) and isinstance(h.get("producer"), str), "pid/name/producer %r" % h)
seq = 0; lastT = -1; nodes = {}
def read():
    global seq, lastT
    line = f.readline()
    if not line: return None
    o = json.loads(line)
    if "seq" in o:
        if o["seq"] != seq + 1: check(False, "seq gap %d -> %d" % (seq, o["seq"]))
        seq = o["seq"]
        if o["t"] < lastT: check(False, "t goes back %r -> %r" % (lastT, o["t"]))
        lastT = o["t"]
    return o
parts = None
while True:
    o = read()
    assert o["ev"] == "snapshot", o
    ids = [n["id"] for n in o["nodes"]]
    check(ids == sorted(ids), "snapshot part ascending ids")
    for n in o["nodes"]:
        missing = {"id","kind","name","weight","state","fraction"} - set(n)
        if missing: check(False, "node fields missing %s in %r" % (missing, n))
        nodes[n["id"]] = n
    if o["part"] == o["parts"]: break
check(seq == o["parts"], "snapshot seqs start at 1")
print("nodes", len(nodes))
byname = {n["name"]: n["id"] for n in nodes.values()}
def send(b): s.sendall(b)
def until(pred, limit=20000):
    for _ in range(limit):
        o = read()
        if o is None: return None
        if pred(o): return o
    return None
for bad in [b'{"cmd":"pause"}\n', b'{"cmd":"cancel","id":1e300}\n', b'{"cmd":"cancel","id":-1}\n',
            b'{"cmd":"cancel","id":"x"}\n', b'{"cmd":"cancel","id":99999999999999999999999}\n',
            b'{"cmd":"cancel"}\n', b'[1,2]\n', b'{"cmd":"cancel","id":123456789}\n', b'{}\n',
            b'{"cmd":"cancel","id":1,"cmd":"x"}\n', b'  {"cmd" : "pause"}  \n']:
    send(bad)
    o = until(lambda o: o["ev"] in ("error",))
    check(o is not None and isinstance(o.get("message"), str), "error line for %r: %r" % (bad, o and o.get("message")))
# cancel batch 2
send((json.dumps({"cmd":"cancel","id":byname["batch 2"]})+"\n").encode())
o = until(lambda o: o["ev"] == "cancel" and o["id"] == byname["batch 2"])
check(o is not None and o["source"] == "attach", "cancel event source attach")
# other connections: over-long line, bad UTF-8, non-JSON
for payload, what in [(b'{"cmd":"' + b"a" * 70000 + b'"}\n', "line over 64 KiB"), (b'\xff\xfe\n', "bytes not UTF-8"), (b'hello\n', "not JSON")]:
    s2, f2 = connect()
    f2.readline()
    s2.sendall(payload)
    s2.settimeout(10)
    closed = False
    try:
        while True:
            d = s2.recv(65536)
            if not d: closed = True; break
    except Exception as e:
        print("   ", what, e)
    check(closed, "connection closed on " + what)
    s2.close()
# 16 viewers max
extra = []
for i in range(17):
    x = socket.socket(socket.AF_UNIX); x.settimeout(10); x.connect(path); extra.append(x)
time.sleep(1)
refused = 0
for x in extra:
    x.settimeout(2)
    try:
        first = x.makefile("rb").readline()
        if b'"error"' in first and b"seq" not in first: refused += 1
    except Exception: pass
check(refused == 2, "viewers over 16 refused with an error line (%d of 17 extra with 1 open)" % refused)
for x in extra: x.close()
# still alive: cancel the root, expect final snapshot and end
send((json.dumps({"cmd":"cancel","id":byname["attach-demo"]})+"\n").encode())
o = until(lambda o: o["ev"] == "end", 10**6)
check(o is not None and o["summary"]["outcome"] == "cancelled" and o["summary"]["executing"] == 0,
      "end with outcome cancelled, nothing executing: %r" % (o and o["summary"]))
check(f.readline() == b"", "closed after end")
print("FAILED" if fails else "ALL OK", len(fails))
