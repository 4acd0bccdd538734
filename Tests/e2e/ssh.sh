#!/usr/bin/env bash
# End-to-end tests of `taskview attach --ssh HOST` (scale.md "Remote attach over SSH"): a
# real sshd on 127.0.0.1 (a key made for the test), a program serving its graph
# (Tests/attach/fake_server.py), the dashboard attached through the forward in tmux.
# Usage: bash Tests/e2e/ssh.sh TASKVIEW_BIN
# Needs sshd (Debian's openssh-server), ssh, ssh-keygen, tmux and python3.
# Prints one line per test and finally "ssh-e2e: N passed, M failed".
set -u

E2E=ssh-e2e
. "$(dirname "$0")/lib.sh"
HERE=$(cd "$(dirname "$0")/.." && pwd)
e2e_bin "${1:?usage: ssh.sh TASKVIEW_BIN}"
SSHD=$(command -v sshd || echo /usr/sbin/sshd)
[ -x "$SSHD" ] || e2e_die "sshd is not installed (apt-get install openssh-server)"
e2e_need tmux python3 ssh ssh-keygen

e2e_work taskview-ssh
SOCKETS="$WORK/sockets"
mkdir -m 700 "$SOCKETS" "$WORK/tmp" "$WORK/bin"
ln -s "$BIN" "$WORK/bin/taskview"
PIDS=()
e2e_before_rm() {
    for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
    wait 2>/dev/null
}
e2e_tmux

# An sshd of the test's own on a free port, taking only the test's key. Sessions get
# TASKGRAPH_SOCKET_DIR and a PATH whose first directory holds this taskview (a link the
# test removes to try a host without taskview).
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
ssh-keygen -q -t ed25519 -N '' -f "$WORK/host_key" || e2e_die "ssh-keygen failed"
ssh-keygen -q -t ed25519 -N '' -f "$WORK/id" || e2e_die "ssh-keygen failed"
cp "$WORK/id.pub" "$WORK/authorized_keys"
[ "$(id -u)" -ne 0 ] || mkdir -p /run/sshd
cat > "$WORK/sshd_config" <<EOF
ListenAddress 127.0.0.1
Port $PORT
HostKey $WORK/host_key
AuthorizedKeysFile $WORK/authorized_keys
StrictModes no
UsePAM no
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitRootLogin prohibit-password
AllowStreamLocalForwarding yes
SetEnv TASKGRAPH_SOCKET_DIR=$SOCKETS PATH=$WORK/bin:/usr/bin:/bin
EOF
"$SSHD" -D -e -f "$WORK/sshd_config" 2> "$WORK/sshd.log" &
PIDS+=("$!")
export TASKVIEW_SSH_COMMAND="ssh -F /dev/null -p $PORT -i $WORK/id -o IdentitiesOnly=yes -o BatchMode=yes -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR"
export TMPDIR="$WORK/tmp"
up=0
for _ in $(seq 1 100); do
    if $TASKVIEW_SSH_COMMAND 127.0.0.1 true 2>/dev/null; then up=1; break; fi
    sleep 0.1
done
[ $up -eq 1 ] || { sed 's/^/  | /' "$WORK/sshd.log"; e2e_die "sshd did not start"; }

# start_program NAME: a serving program in SOCKETS; sets PROG_PID, PROG_SOCK, PROG_OUT.
start_program() {
    PROG_OUT="$WORK/$1.out"
    python3 "$HERE/attach/fake_server.py" "$SOCKETS/$1.sock" --name "$1" > "$PROG_OUT" 2>&1 &
    PROG_PID=$!
    PIDS+=("$PROG_PID")
    wait_file "$PROG_OUT" '^serving at ' 60 || return 1
    PROG_SOCK=$(sed -n 's/^serving at //p' "$PROG_OUT" | head -1)
}

tmp_empty() { [ -z "$(ls -A "$WORK/tmp")" ]; }

# Nothing of a session is left (within 10 s): no ssh forward, no temporary directory.
nothing_left() {
    local left
    poll 10 tmp_empty
    left=$(ls -A "$WORK/tmp")
    [ -z "$left" ] || { echo "  left in TMPDIR: $left"; return 1; }
    if pgrep -f -- "-L $WORK/tmp/" >/dev/null; then echo "  an ssh forward is still running"; return 1; fi
}

test_list_with_remote_taskview() {
    start_program listed || return 1
    local out status
    out=$("$BIN" attach --ssh 127.0.0.1 --list 2>&1); status=$?
    [ $status -eq 0 ] || { echo "  exit $status: $out"; return 1; }
    echo "$out" | grep -q "^[0-9]*  listed  $PROG_SOCK  started " || { echo "  no line for the program: $out"; return 1; }
    nothing_left || return 1
    kill "$PROG_PID"
}

# A host without taskview on its PATH: the socket directory is listed instead.
test_list_without_remote_taskview() {
    start_program bare || return 1
    local out status
    rm "$WORK/bin/taskview"
    out=$("$BIN" attach --ssh 127.0.0.1 --list 2>&1); status=$?
    ln -s "$BIN" "$WORK/bin/taskview"
    [ $status -eq 0 ] || { echo "  exit $status: $out"; return 1; }
    echo "$out" | grep -qF -- "?  ?  $PROG_SOCK" || { echo "  no socket line: $out"; return 1; }
    kill "$PROG_PID"
}

test_attach_cancel_quit() {
    local s=$NAME # run_test ends the session, also when a step fails
    start_program remote || return 1
    local pid
    pid=$("$BIN" attach --ssh 127.0.0.1 --list | sed -n "s/^\([0-9]*\)  remote  .*/\1/p" | head -1)
    [ -n "$pid" ] || { echo "  the program is not listed"; return 1; }
    shell $s 120 30 "TMPDIR='$WORK/tmp'" "TASKVIEW_SSH_COMMAND='$TASKVIEW_SSH_COMMAND'"
    sleep 0.3
    keys $s "'$BIN' attach --ssh 127.0.0.1 --no-record $pid; echo EXIT=\$?" Enter
    wait_for $s 'remote \(pid [0-9]+\) .*connected' 30 || { show $s; return 1; }
    local name
    name=$(cancel_prompt $s)
    [ -n "$name" ] || { echo "  no cancel prompt"; show $s; return 1; }
    keys $s y
    wait_file "$PROG_OUT" "^cancelled: .*\(attach\)" 20 || { echo "  the cancel did not reach the program"; return 1; }
    wait_for $s "⊘ $name" 20 || return 1
    keys $s q
    wait_for $s '^EXIT=[0-9]+' 20 || return 1
    screen $s | grep -q '^EXIT=130' || { echo "  quitting while the program runs did not exit 130"; show $s; return 1; }
    nothing_left || return 1
    kill -0 "$PROG_PID" 2>/dev/null || { echo "  quitting the viewer ended the program"; return 1; }
    kill "$PROG_PID"
}

test_headless_through_ssh() {
    start_program headless || return 1
    local pid
    pid=$("$BIN" attach --ssh 127.0.0.1 --list | sed -n "s/^\([0-9]*\)  headless  .*/\1/p" | head -1)
    ( sleep 2; kill "$PROG_PID" ) &
    timeout 30 "$BIN" attach --ssh 127.0.0.1 --headless --no-record "$pid" > "$WORK/headless.out" 2>&1
    local status=$?
    [ $status -eq 1 ] || { echo "  exit $status, want 1 (the program was killed)"; cat "$WORK/headless.out"; return 1; }
    grep -qE '^\[[0-9.]+\] #0 batch: executing$' "$WORK/headless.out" || { echo "  no state line"; cat "$WORK/headless.out"; return 1; }
    nothing_left
}

test_unreachable_host() {
    local err status
    err=$(TASKVIEW_SSH_COMMAND="ssh -F /dev/null -p 1 -o BatchMode=yes -o ConnectTimeout=5" "$BIN" attach --ssh 127.0.0.1 --no-record 2>&1 >/dev/null); status=$?
    [ $status -eq 2 ] || { echo "  exit $status, want 2"; return 1; }
    echo "$err" | grep -q 'Connection refused' || { echo "  not ssh's own error: $err"; return 1; }
    nothing_left
}

test_no_such_pid() {
    local err status
    err=$("$BIN" attach --ssh 127.0.0.1 --no-record 999999999 2>&1 >/dev/null); status=$?
    [ $status -eq 2 ] || { echo "  exit $status, want 2"; return 1; }
    echo "$err" | grep -q 'no program with pid 999999999 serves its graph on 127.0.0.1' || { echo "  $err"; return 1; }
    "$BIN" attach --ssh=-oProxyCommand=x --list >/dev/null 2>"$WORK/bad.err"; status=$?
    [ $status -eq 2 ] && grep -q 'not a host name' "$WORK/bad.err" || { echo "  an option as host: exit $status"; return 1; }
    nothing_left
}

run_test list_with_remote_taskview test_list_with_remote_taskview
run_test list_without_remote_taskview test_list_without_remote_taskview
run_test attach_cancel_quit test_attach_cancel_quit
run_test headless_through_ssh test_headless_through_ssh
run_test unreachable_host test_unreachable_host
run_test no_such_pid test_no_such_pid
e2e_summary
