#!/usr/bin/env python3
"""R1 (issue 44): a Hummingbird-style server handles 1,000,000 requests with a release viewer
attached and recording.

`server-bench` (this package, release) runs 8 workers in process, each request a GraphTracer
span with three `withGraphTask` scopes, on a graph with `Retention(maxFinishedRoots: 1000)`,
served. A release `taskview attach --record` runs in a detached 160x48 tmux session; the
server starts once the viewer shows it. While the requests run, the driver presses `?` every
100 ms and polls `tmux capture-pane` until the help overlay has appeared (or, on the next `?`,
gone): that is one key latency, as C5 measures it. Resident memory: the server's (VmRSS,
printed by server-bench at 10,000 requests and every 100,000) and the viewer's (sampled after
every key). Goals: both within 50 MiB of their size after the first 10,000 requests; every
key answered within 100 ms. At the end, `taskview report` of the recording must count every
request.

    python3 Benchmarks/server-scale.py [REQUESTS]        # default 1000000

TASKVIEW_BIN (default .build/release/taskview) and SERVER_BENCH_BIN (default
.build-bench/release/server-bench, from `swift build -c release --package-path Benchmarks
--scratch-path .build-bench --product server-bench`) must be release builds. Needs tmux.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TV = os.environ.get("TASKVIEW_BIN", os.path.join(ROOT, ".build/release/taskview"))
SERVER = os.environ.get("SERVER_BENCH_BIN", os.path.join(ROOT, ".build-bench/release/server-bench"))
REQUESTS = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
HELP = "Keys (any key closes this help)"


def fail(message):
    print("server-scale: " + message, file=sys.stderr)
    sys.exit(1)


for path in (TV, SERVER):
    if not os.access(path, os.X_OK):
        fail("needs %s (a release build)" % path)
if shutil.which("tmux") is None:
    fail("tmux is not installed")

work = tempfile.mkdtemp(prefix="server-scale.")
socket = os.path.join(work, "server.sock")
log = os.path.join(work, "run.jsonl")
tmux_socket = os.path.join(work, "tmux.sock")


def tmux(*args):
    return subprocess.run(
        ["tmux", "-S", tmux_socket, "-f", "/dev/null", *args], capture_output=True, text=True,
        env={**os.environ, "LC_ALL": "C.UTF-8"}).stdout


def rss_kib(pid):
    """VmRSS of pid in KiB; None once it has exited."""
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


server = subprocess.Popen([SERVER, str(REQUESTS), socket], stdout=subprocess.PIPE, text=True)
marks = []  # (requests, server KiB, seconds), as server-bench prints them
dropped_roots = []  # what the server's retention dropped, per root name, at the end
finished = threading.Event()


def read_server():
    for line in server.stdout:
        m = re.match(r"requests (\d+) rss (\d+) KiB at ([\d.]+) s", line)
        if m:
            marks.append((int(m.group(1)), int(m.group(2)), float(m.group(3))))
        elif re.match(r"dropped .*: \d+ succeeded", line):
            dropped_roots.append(int(re.search(r": (\d+) succeeded", line).group(1)))
        elif line.startswith("done "):
            print("  " + line.strip(), file=sys.stderr)
            finished.set()
    finished.set()


threading.Thread(target=read_server, daemon=True).start()
try:
    for _ in range(300):
        if os.path.exists(socket):
            break
        time.sleep(0.05)
    else:
        fail("server-bench did not start serving")
    tmux("new-session", "-d", "-x", "160", "-y", "48", "-s", "r1",
         "exec '%s' attach '%s' --record '%s' --exit-when-done" % (TV, socket, log))
    viewer = int(tmux("display-message", "-p", "-t", "r1", "#{pane_pid}").strip())
    for _ in range(200):
        if "server-bench" in tmux("capture-pane", "-p", "-t", "r1"):
            break
        time.sleep(0.05)
    else:
        fail("the viewer never showed the server")
    open(socket + ".go", "w").close()
    start = time.monotonic()

    latencies, timeouts, viewer_rss = [], 0, []  # viewer_rss: (requests done so far, KiB)
    shown = False
    while not finished.is_set():
        pressed = time.monotonic()
        tmux("send-keys", "-t", "r1", "?")
        shown = not shown
        answered = None
        while time.monotonic() - pressed < 5:
            if (HELP in tmux("capture-pane", "-p", "-t", "r1")) == shown:
                answered = (time.monotonic() - pressed) * 1000
                break
            time.sleep(0.005)
        kib = rss_kib(viewer)
        if kib is not None:
            viewer_rss.append((marks[-1][0] if marks else 0, kib))
        if answered is None:
            if not finished.is_set():
                timeouts += 1
        else:
            latencies.append(answered)
        left = 0.1 - (time.monotonic() - pressed)
        if left > 0:
            time.sleep(left)
    seconds = time.monotonic() - start
    if shown:
        tmux("send-keys", "-t", "r1", "?")
    server.wait(timeout=60)
    for _ in range(600):  # the viewer ends once the program has (--exit-when-done)
        if rss_kib(viewer) is None:
            break
        time.sleep(0.1)
    report = subprocess.run([TV, "report", log, "--format", "json"], capture_output=True, text=True)
finally:
    tmux("kill-server")
    if server.poll() is None:
        server.kill()

if not marks:
    fail("server-bench printed no figures")
base = marks[0][1]
peak = max(k for _, k, _ in marks)
after = [k for n, k in viewer_rss if n >= 10_000]
vbase = after[0] if after else None
vpeak = max(after) if after else None
lat = sorted(latencies)
mib = lambda kib: "%.1f MiB" % (kib / 1024)
print("\n| R1 %d requests, 8 workers, span + 3 scopes each, viewer recording in tmux 160x48 | value |" % REQUESTS)
print("|---|---|")
print("| wall, first request to last | %.1f s (%.0f requests/s) |" % (seconds, REQUESTS / seconds))
print("| server RSS at %d requests, max after | %s, %s (+%s) |" % (marks[0][0], mib(base), mib(peak), mib(peak - base)))
if vbase is not None:
    print("| viewer RSS at 10,000 requests, max after | %s, %s (+%s) |" % (mib(vbase), mib(vpeak), mib(vpeak - vbase)))
if lat:
    print("| key latency: median / 95 %% / max (keys) | %.0f / %.0f / %.0f ms (%d)%s |" % (
        lat[len(lat) // 2], lat[min(len(lat) - 1, len(lat) * 95 // 100)], lat[-1], len(lat),
        ", %d unanswered in 5 s" % timeouts if timeouts else ""))
print("| server RSS by requests | %s |" % ", ".join("%dk: %s" % (n // 1000, mib(k)) for n, k, _ in marks))
by_mark = {}  # the viewer's largest RSS while the server's last figure was at n requests
for n, k in viewer_rss:
    by_mark[n] = max(k, by_mark.get(n, 0))
print("| viewer RSS by requests | %s |" % ", ".join("%dk: %s" % (n // 1000, mib(k)) for n, k in sorted(by_mark.items())))
# One truth: a dropped request counts once, a kept one as its span and three scopes.
expected = sum(dropped_roots) + (REQUESTS - sum(dropped_roots)) * 4
try:
    counted = json.loads(report.stdout)["counts"]["succeeded"]
except (ValueError, KeyError, TypeError):
    counted = None
print("| recording: %s; `report` counts succeeded | %s (the server's own: %d) |" % (
    mib(os.path.getsize(log) // 1024) if os.path.exists(log) else "none", counted, expected))
ok_mem = peak - base <= 50 * 1024 and (vpeak is None or vpeak - vbase <= 50 * 1024)
ok_keys = bool(lat) and timeouts == 0 and lat[-1] <= 105
print("| targets | RSS within 50 MiB: %s; keys <= 100 ms: %s; counts agree: %s |" % (
    "PASS" if ok_mem else "MISS", "PASS" if ok_keys else "MISS", "PASS" if counted == expected else "MISS"))
if os.environ.get("SERVER_SCALE_KEEP"):
    print("kept " + work)
else:
    shutil.rmtree(work, ignore_errors=True)
