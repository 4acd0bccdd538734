#!/usr/bin/env bash
# L1 (Benchmarks/README.md): a Hummingbird 2 server (Examples/async-server, release) under wrk,
# measured alone; with a release `taskview attach` reading it (headless, no log); attached and
# recording (headless, --record); the live dashboard recording in a detached 160x48 tmux
# session; and with a headless viewer stopped (SIGSTOP) all along, which must not slow the
# program. Rounds are interleaved (every mode once per round, a fresh server each time).
#
#   bash Benchmarks/attach-load.sh [SECONDS] [ROUNDS]     # default 10 s, 3 rounds
#   MODES="alone live" bash Benchmarks/attach-load.sh      # a subset of the modes
#
# Needs: wrk, tmux, curl; TASKVIEW_BIN (default .build/release/taskview) and SERVER_BIN
# (default Examples/async-server/.build/release/async-server), both release builds.
# Per mode: requests/s (wrk, GET /work/0, 1 thread, 16 connections), its ratio to alone, the
# viewer's CPU (utime + stime from /proc/PID/stat) per 1,000 events recorded (lines of its log)
# and per 1,000 requests, and the lag: a marker request (/work/1) sent 0.5 s before the load
# ends, timed from sending it until the viewer's output (headless) or log (live) names it.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SECS=${1:-10}
ROUNDS=${2:-3}
TV=${TASKVIEW_BIN:-$ROOT/.build/release/taskview}
SERVER=${SERVER_BIN:-$ROOT/Examples/async-server/.build/release/async-server}
for c in wrk tmux curl; do command -v $c >/dev/null || { echo "attach-load: $c is not installed"; exit 1; }; done
[ -x "$TV" ] && [ -x "$SERVER" ] || { echo "attach-load: needs $TV and $SERVER (release builds)"; exit 1; }

WORK=$(mktemp -d "${TMPDIR:-/tmp}/attach-load.XXXXXX")
export TASKGRAPH_SOCKET_DIR="$WORK/sockets"
mkdir -m 700 "$TASKGRAPH_SOCKET_DIR"
TMUX_SOCK="$WORK/tmux.sock"
SERVER_PID=
VIEWER_PID=
cleanup() {
    tmux -S "$TMUX_SOCK" kill-server >/dev/null 2>&1
    [ -n "$VIEWER_PID" ] && kill "$VIEWER_PID" 2>/dev/null
    [ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null
    wait 2>/dev/null
    rm -rf "$WORK"
}
trap cleanup EXIT
TICKS=$(getconf CLK_TCK)
now() { date +%s.%N; }
# utime + stime of a process, in seconds.
cpu_of() { awk -v t="$TICKS" '{ sub(/^.*\) /, ""); print ($12 + $13) / t }' "/proc/$1/stat" 2>/dev/null || echo 0; }

start_server() {
    PORT=$((20000 + RANDOM % 20000))
    "$SERVER" "$PORT" > "$WORK/server.out" 2>&1 &
    SERVER_PID=$!
    local i=0
    until grep -qs 'serving its graph at' "$WORK/server.out" && curl -s -o /dev/null "http://127.0.0.1:$PORT/work/0"; do
        sleep 0.1; i=$((i + 1))
        [ $i -gt 300 ] && { echo "attach-load: the server did not start"; cat "$WORK/server.out"; exit 1; }
    done
    SOCKET=$(sed -n 's/.*serving its graph at //p' "$WORK/server.out")
}

stop_server() {
    kill "$SERVER_PID" 2>/dev/null
    wait "$SERVER_PID" 2>/dev/null
    SERVER_PID=
}

# start_viewer MODE: sets VIEWER_PID and WATCH (the file that names the marker once seen).
start_viewer() {
    rm -f "$WORK/viewer.out" "$WORK/viewer.log"
    case $1 in
    attached)
        "$TV" attach --headless --no-record "$SOCKET" > "$WORK/viewer.out" 2>&1 &
        VIEWER_PID=$!; WATCH="$WORK/viewer.out" ;;
    recording)
        "$TV" attach --headless --record "$WORK/viewer.log" "$SOCKET" > "$WORK/viewer.out" 2>&1 &
        VIEWER_PID=$!; WATCH="$WORK/viewer.out" ;;
    stopped)
        "$TV" attach --headless --no-record "$SOCKET" > "$WORK/viewer.out" 2>&1 &
        VIEWER_PID=$!; WATCH="$WORK/viewer.out" ;;
    live)
        tmux -S "$TMUX_SOCK" new-session -d -s live -x 160 -y 48 \
            "exec env TERM=tmux-256color '$TV' attach --record '$WORK/viewer.log' '$SOCKET'"
        VIEWER_PID=$(tmux -S "$TMUX_SOCK" list-panes -t live -F '#{pane_pid}')
        WATCH="$WORK/viewer.log" ;;
    esac
    local i=0
    until [ -s "$WATCH" ]; do sleep 0.05; i=$((i + 1)); [ $i -gt 200 ] && break; done
}

stop_viewer() {
    [ -z "$VIEWER_PID" ] && return
    if [ "$1" = live ]; then
        tmux -S "$TMUX_SOCK" send-keys -t live q
        local i=0
        while kill -0 "$VIEWER_PID" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
        tmux -S "$TMUX_SOCK" kill-server >/dev/null 2>&1
    else
        kill -INT "$VIEWER_PID" 2>/dev/null
        wait "$VIEWER_PID" 2>/dev/null
    fi
    VIEWER_PID=
}

# one MODE: one measurement; appends "MODE RPS CPU EVENTS REQUESTS LAG STATUS" to results.
one() {
    local mode=$1 cpu=0 events=0 lag=- status=-
    rm -f "$WORK/viewer.out" "$WORK/viewer.log"
    start_server
    [ "$mode" != alone ] && start_viewer "$mode"
    [ "$mode" = stopped ] && kill -STOP "$VIEWER_PID"
    local cpu0=0
    [ -n "$VIEWER_PID" ] && cpu0=$(cpu_of "$VIEWER_PID")
    wrk -t1 -c16 -d"${SECS}s" "http://127.0.0.1:$PORT/work/0" > "$WORK/wrk.out" 2>&1 &
    local wrk_pid=$!
    if [ "$mode" != alone ] && [ "$mode" != stopped ]; then
        sleep "$(echo "$SECS - 0.5" | bc)"
        # The marker's line reaches WATCH once the viewer has applied the events before it.
        ( timeout 60 tail -s 0.01 -c 0 -F "$WATCH" 2>/dev/null | grep -m1 -qF 'handle 1 ms'; now > "$WORK/seen" ) &
        local watcher=$!
        sleep 0.05
        local sent
        sent=$(now)
        curl -s -o /dev/null "http://127.0.0.1:$PORT/work/1"
        wait "$wrk_pid"
        wait "$watcher"
        lag=$(echo "$(cat "$WORK/seen") - $sent" | bc)
        sleep 1 # the tail of the load drains
        cpu=$(echo "$(cpu_of "$VIEWER_PID") - $cpu0" | bc)
    else
        wait "$wrk_pid"
    fi
    local rps requests
    rps=$(awk '/^Requests\/sec/ { print $2 }' "$WORK/wrk.out")
    requests=$(awk '/requests in/ { print $1 }' "$WORK/wrk.out")
    [ "$mode" = stopped ] && kill -CONT "$VIEWER_PID"
    stop_viewer "$mode"
    if [ -f "$WORK/viewer.log" ]; then events=$(grep -c '^{"seq"' "$WORK/viewer.log"); fi
    [ -f "$WORK/viewer.out" ] && status=$(grep -o 'resynced ([0-9]* skipped)\|connected' "$WORK/viewer.out" | tail -1 | tr ' ' _)
    [ -z "$status" ] && status=-
    stop_server
    echo "$mode ${rps:-0} $cpu $events ${requests:-0} $lag $status" >> "$WORK/results"
    echo "  $mode: ${rps:-0} requests/s, viewer CPU ${cpu}s, $events events, lag ${lag}s, $status" >&2
}

echo "attach-load: $ROUNDS rounds of $SECS s, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
for r in $(seq 1 "$ROUNDS"); do
    echo "round $r" >&2
    for mode in ${MODES:-alone attached recording live stopped}; do one "$mode"; done
done

# Medians per mode; events per request from the recorded runs (attached, unrecorded, is
# charged the same number of events).
awk '
function median(a, n,   i, j, t) {
    for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
{
    n[$1]++; rps[$1, n[$1]] = $2; lag[$1, n[$1]] = $6
    if ($4 > 0) { epr[$1, n[$1]] = $4 / $5; cpk[$1, n[$1]] = 1000 * $3 / $4 }
    cpu[$1] += $3; req[$1] += $5
    if ($4 > 0) { ev[$1] += $4; evreq[$1] += $5 }
}
END {
    for (k = 1; k <= n["alone"]; k++) a[k] = rps["alone", k]
    alone = median(a, n["alone"])
    perreq = evreq["recording"] > 0 ? ev["recording"] / evreq["recording"] : 0
    printf "| Mode | requests/s (median of %d) | ÷ alone | viewer CPU per 1,000 events recorded | per 1,000 requests | events recorded per request | lag at the end of the load (median, max) |\n", n["alone"]
    print "|---|---:|---:|---:|---:|---:|---|"
    split("alone attached recording live stopped", modes, " ")
    for (m = 1; m <= 5; m++) {
        mode = modes[m]; if (!n[mode]) continue
        delete a; for (k = 1; k <= n[mode]; k++) a[k] = rps[mode, k]
        med = median(a, n[mode])
        if (mode == "alone") { printf "| %s | %.0f | 1.00× | | | | |\n", mode, med; continue }
        if (mode == "stopped") { printf "| %s | %.0f | %.2f× | | | | |\n", mode, med, med / alone; continue }
        events = ev[mode] > 0 ? ev[mode] : perreq * req[mode]
        delete l; mx = 0; for (k = 1; k <= n[mode]; k++) { l[k] = lag[mode, k]; if (l[k] > mx) mx = l[k] }
        perk = 0; if (events > 0) perk = 1000 * 1000 * cpu[mode] / events
        per = perreq; note = " (as recording)"
        if (ev[mode] > 0) { per = ev[mode] / evreq[mode]; note = "" }
        printf "| %s | %.0f | %.2f× | %.1f ms | %.0f ms | %.1f%s | %.2f s, %.2f s |\n", mode, med, med / alone, perk, \
            1000 * 1000 * cpu[mode] / req[mode], per, note, median(l, n[mode]), mx
    }
}' "$WORK/results"
