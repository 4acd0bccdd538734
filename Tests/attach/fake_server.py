#!/usr/bin/env python3
"""A stand-in for a program that serves its graph (docs/log-format.md), for taskview's viewer tests.

Listens on a Unix socket and speaks the protocol: header (with pid and name), a snapshot,
live events; reads {"cmd":"cancel","id":N} lines (a cancel event and cancelled states come
back, and stdout says "cancelled: NAME (attach)"), answers anything else with an error line.

  fake_server.py SOCKET [--name NAME] [--no-cancel] [--exit-after S] [--drop-after S]
                        [--resync-after S] [--id-base N] [--duration S]

--exit-after: final snapshot + end, then exit 0 (--finish-as: the root first settles so:
succeeded, failed or cancelled; without it the root is still executing at end).  --drop-after: close without end (killed).
--resync-after: send {"ev":"resync","skipped":7} and a fresh snapshot to every viewer.
"""
import argparse, json, os, socket, sys, threading, time

p = argparse.ArgumentParser()
p.add_argument("socket")
p.add_argument("--name", default="fake-server")
p.add_argument("--no-cancel", action="store_true")
p.add_argument("--exit-after", type=float)
p.add_argument("--finish-as", choices=["succeeded", "failed", "cancelled"])
p.add_argument("--drop-after", type=float)
p.add_argument("--resync-after", type=float)
p.add_argument("--id-base", type=int, default=0)
p.add_argument("--duration", type=float, default=60)
p.add_argument("--bulk", type=int, default=0, help="that many more leaves under a group 'bulk'")
args = p.parse_args()

B = args.id_base
START = time.monotonic()
lock = threading.Lock()
viewers = []          # Viewer objects
nodes = {}            # id -> dict(kind,name,weight,parent,index,state,fraction,children)
roots = []


def now():
    return round(time.monotonic() - START, 3)


def add(i, kind, name, parent=None, state="executing"):
    n = dict(id=i, kind=kind, name=name, weight=1, parent=parent, state=state, fraction=0.0, children=[])
    nodes[i] = n
    if parent is None:
        roots.append(i)
    else:
        n["index"] = len(nodes[parent]["children"])
        nodes[parent]["children"].append(i)
    return n


add(B + 0, "concurrent", "batch")
add(B + 1, "task", "job 1", B + 0)
add(B + 2, "task", "job 2", B + 0)
add(B + 3, "concurrent", "downloads", B + 0)
add(B + 4, "task", "download a", B + 3)
add(B + 5, "task", "download b", B + 3)
if args.bulk:
    add(B + 100, "concurrent", "bulk", B + 0)
    for k in range(args.bulk):
        add(B + 101 + k, "task", f"leaf {k}", B + 100, state="notExecuted")


class Viewer:
    def __init__(self, conn):
        self.conn = conn
        self.seq = 0
        self.alive = True

    def send(self, obj, seq=True):
        if seq:
            self.seq += 1
            obj = dict([("seq", self.seq), ("t", now())] + list(obj.items()))
        try:
            self.conn.sendall((json.dumps(obj, separators=(",", ":"), ensure_ascii=False) + "\n").encode())
        except OSError:
            self.alive = False

    def snapshot(self):
        out = []
        for i in sorted(nodes):
            n = nodes[i]
            d = dict(id=i, kind=n["kind"], name=n["name"], weight=n["weight"], state=n["state"],
                     fraction=n["fraction"])
            if n.get("failed"):
                d["failed"] = True
                d["message"] = "boom"
            if n["parent"] is not None:
                d["parent"] = n["parent"]
                d["index"] = n["index"]
            out.append(d)
        parts = [out[k:k + 5000] for k in range(0, len(out), 5000)] or [[]]
        t = now()
        for k, chunk in enumerate(parts):   # no line over 1 MiB
            self.seq += 1
            self.conn.sendall((json.dumps({"seq": self.seq, "t": t, "ev": "snapshot", "part": k + 1,
                                           "parts": len(parts), "nodes": chunk},
                                          separators=(",", ":")) + "\n").encode())


def broadcast(obj):
    for v in list(viewers):
        v.send(dict(obj))


def subtree(i):
    out = [i]
    for c in nodes[i]["children"]:
        out += subtree(c)
    return out


def cancel(i, viewer):
    if args.no_cancel:
        viewer.send({"ev": "error", "message": "this program does not allow cancel"}, seq=False)
        return
    if i not in nodes:
        viewer.send({"ev": "error", "message": f"no node {i}"}, seq=False)
        return
    with lock:
        broadcast({"ev": "cancel", "id": i, "source": "attach"})
        for j in reversed(subtree(i)):
            if nodes[j]["state"] in ("executing", "notExecuted"):
                nodes[j]["state"] = "cancelled"
                broadcast({"ev": "state", "id": j, "state": "cancelled"})
    print(f"cancelled: {nodes[i]['name']} (attach)", flush=True)


def serve(conn):
    v = Viewer(conn)
    with lock:
        v.send({"format": "taskgraph-log", "version": 1, "created": "2026-11-23T00:00:00Z",
                "producer": args.name, "pid": os.getpid(), "name": args.name}, seq=False)
        v.snapshot()
        viewers.append(v)
    buf = b""
    while v.alive:
        try:
            data = conn.recv(4096)
        except OSError:
            break
        if not data:
            break
        buf += data
        while b"\n" in buf:
            line, buf = buf.split(b"\n", 1)
            try:
                cmd = json.loads(line)
                if cmd.get("cmd") == "cancel" and isinstance(cmd.get("id"), int):
                    cancel(cmd["id"], v)
                    continue
            except Exception:
                pass
            v.send({"ev": "error", "message": "unknown command"}, seq=False)
    with lock:
        if v in viewers:
            viewers.remove(v)


def ticker():
    step = 0
    while True:
        time.sleep(0.1)
        step += 1
        t = now()
        with lock:
            for i in (B + 1, B + 2, B + 4, B + 5):
                n = nodes[i]
                if n["state"] == "executing":
                    n["fraction"] = min(1.0, round(n["fraction"] + 0.002, 3))
                    broadcast({"ev": "progress", "id": i, "fraction": n["fraction"]})
            if step == 10:
                add(B + 6, "task", "late job", B + 0)
                broadcast({"ev": "add", "id": B + 6, "kind": "task", "name": "late job", "weight": 1,
                           "parent": B + 0, "index": 3})
                broadcast({"ev": "state", "id": B + 6, "state": "executing"})
            if args.resync_after and abs(t - args.resync_after) < 0.05:
                for v in viewers:
                    v.send({"ev": "resync", "skipped": 7})
                    v.snapshot()
            if args.exit_after and t >= args.exit_after:
                if args.finish_as:
                    for j in reversed(subtree(B)):
                        if nodes[j]["state"] not in ("executing", "notExecuted"):
                            continue
                        if args.finish_as == "cancelled":
                            nodes[j]["state"] = "cancelled"
                            broadcast({"ev": "state", "id": j, "state": "cancelled"})
                        elif args.finish_as == "failed" and j == B:
                            nodes[j]["state"] = "completed"
                            nodes[j]["failed"] = True
                            broadcast({"ev": "state", "id": j, "state": "completed", "failed": True,
                                       "message": "boom"})
                        else:
                            nodes[j]["state"] = "completed"
                            broadcast({"ev": "state", "id": j, "state": "completed"})
                for v in viewers:
                    v.snapshot()
                    v.send({"ev": "end", "summary": {"succeeded": 0, "failed": 0, "cancelled": 0, "skipped": 0,
                                                      "notExecuted": 0, "executing": len(nodes),
                                                      "duration": t, "outcome": "unfinished"}})
                finish(0)
            if args.drop_after and t >= args.drop_after:
                finish(0)
            if t >= args.duration:
                finish(0)


def finish(code):
    for v in viewers:
        try:
            v.conn.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
    try:
        os.unlink(args.socket)
    except OSError:
        pass
    sys.stdout.flush()
    os._exit(code)


if os.path.exists(args.socket):
    os.unlink(args.socket)
srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
srv.bind(args.socket)
os.chmod(args.socket, 0o600)
srv.listen(16)
print(f"serving at {args.socket}", flush=True)
threading.Thread(target=ticker, daemon=True).start()
try:
    while True:
        c, _ = srv.accept()
        threading.Thread(target=serve, args=(c,), daemon=True).start()
except KeyboardInterrupt:
    finish(130)
