#!/usr/bin/env bash
# End-to-end: what each node costs (docs/taskview.md, "What each node costs"): `u` shows the
# CPU and RSS columns; a command holding 64 MiB through a `setsid` grandchild shows it in its
# row and its group's (the largest peak below it), and a running command's CPU as a share of
# a core; `u` hides them again; the report's JSON lists them; nothing is left after quitting.
# Usage: bash Tests/e2e/usage.sh PATH-TO-TASKVIEW
set -u

E2E=usage-e2e
. "$(dirname "$0")/lib.sh"
e2e_bin "${1:?usage: usage.sh PATH-TO-TASKVIEW}"
e2e_need tmux python3
e2e_work taskview-usage-e2e
e2e_before_rm() { kill_pid_files "$WORK"/pids; }
e2e_tmux
mkdir -p "$WORK/pids"

# hold.sh: a setsid grandchild that records its pid, touches 64 MiB and waits for ../go.
cat > "$WORK/hold.sh" <<SH
setsid sh -c 'echo \$\$ > "$WORK/pids/hold"; exec python3 -c "
import os, time
b = b\"x\" * (64 << 20)
while not os.path.exists(\"$WORK/go\"): time.sleep(0.05)
"' &
wait
SH
cat > "$WORK/s.json" <<JSON
{"kind":"concurrent","name":"work","children":[
  {"kind":"command","name":"hold","run":["sh","$WORK/hold.sh"]},
  {"kind":"command","name":"spin","run":["sh","-c","echo \$\$ > $WORK/pids/spin; while [ ! -f $WORK/go ]; do sleep 0.1; done"]}
]}
JSON

columns_show_and_hide() {
    shell $NAME 100 12
    sleep 0.3
    keys $NAME "cd '$WORK' && '$BIN' run s.json --record '$WORK/run.jsonl'; echo EXIT=\$?" Enter
    wait_for $NAME 'hold' 10 || return 1
    off_screen $NAME 'MiB' || { echo "  columns shown before u"; show $NAME; return 1; }
    keys $NAME u
    wait_for $NAME 'CPU RSS' 5 || return 1
    # 64 MiB and more (the interpreter's own), within a few seconds of sampling.
    wait_for $NAME 'hold .* +(6[4-9]|[7-9][0-9])MiB' 15 || return 1
    wait_for $NAME 'work .* +(6[4-9]|[7-9][0-9])MiB' 5 || return 1
    # The polling loop: a share of a core while it runs.
    wait_for $NAME 'spin .* +[0-9]+%  +[0-9.]+[KM]iB' 10 || return 1
    keys $NAME u
    wait_gone $NAME 'MiB' 5 || return 1
    touch "$WORK/go"
    wait_for $NAME 'finished' 30 || return 1
    keys $NAME q
    wait_for $NAME '^EXIT=0' 30 || return 1
    pids_gone "$WORK/pids" || return 1
    # The log recorded usage lines; the report lists both commands by CPU and by memory.
    in_file "$WORK/run.jsonl" '"ev":"usage","id":[0-9]+,"cpu":[0-9.e-]+,"rss":[0-9]+\}' || { echo "  no usage line"; return 1; }
    "$BIN" report "$WORK/run.jsonl" --format json > "$WORK/report.json" || return 1
    in_file "$WORK/report.json" '"memory":\[\{"path":"work/hold","bytes":[0-9]{8,}\}' \
        || { echo "  report:"; cat "$WORK/report.json"; return 1; }
    in_file "$WORK/report.json" '"cpu":\[\{"path":"work/(hold|spin)","seconds":' \
        || { echo "  report:"; cat "$WORK/report.json"; return 1; }
}

run_test columns_show_and_hide

e2e_summary
