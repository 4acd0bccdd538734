#!/usr/bin/env bash
# Issue 35: whom `taskview attach` trusts, and discovery that never hangs.
# Usage: bash Tests/e2e/trust.sh TASKVIEW_BIN
#   1. (any user) a stopped program whose queue of connections is full: `attach --list`
#      returns within 3 s, lists it `not answering` and lists a healthy program.
#   2. (root only: it plays two other users with setpriv; skipped with the reason otherwise)
#      uid 65534 (nobody, the attacker) owns a 0777 /tmp/taskgraph-<victim uid> with a fake
#      program in it; the victim (uid 4242, no account needed) must refuse the directory
#      (`attach --list`, `attach PID`), refuse the attacker's and root's programs by explicit
#      path (peer uid), refuse a private directory under a 0777 parent without the sticky bit,
#      and still list its own program in a proper directory.
# Prints one line per test and finally "trust-e2e: N passed, M failed".
set -u

E2E=trust-e2e
. "$(dirname "$0")/lib.sh"
HERE=$(cd "$(dirname "$0")/.." && pwd)
e2e_bin "${1:?usage: trust.sh TASKVIEW_BIN}"
e2e_need python3
FAKE="$HERE/attach/fake_server.py"
# Other users cannot run a python3 under root's home (pyenv shims): the system one for them.
OTHER_PY=/usr/bin/python3

e2e_work taskview-trust
chmod 755 "$WORK"
# The other uids run a copy in the work directory: the clone may sit where only we can read
# (a `mktemp -d` directory is 0700).
cp "$FAKE" "$WORK/fake_server.py" && chmod 644 "$WORK/fake_server.py"
FAKE="$WORK/fake_server.py"
unset XDG_RUNTIME_DIR
PIDS=()
STOPPED=()
VICTIM=4242
ATTACKER=65534

e2e_before_rm() {
    for p in "${STOPPED[@]}"; do kill -CONT "$p" 2>/dev/null; done
    for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
    wait 2>/dev/null
    [ "$(id -u)" -eq 0 ] && rm -rf "/tmp/taskgraph-$VICTIM"
}

# setup_failed NAME: a step the tests need did not work, counted as a failed test.
setup_failed() { run_test "$1" false; }
# why TEXT...: a failed check's evidence, indented; returns 1.
why() { for l in "$@"; do echo "  $l"; done; return 1; }

# fake AS_PREFIX SOCKET NAME: starts Tests/attach/fake_server.py (as the user the prefix
# says) and waits until it serves; sets FAKE_PID.
fake() {
    local prefix=$1 sock=$2 name=$3 out="$WORK/$3.out" py=python3
    [ -n "$prefix" ] && py=$OTHER_PY
    $prefix $py "$FAKE" "$sock" --name "$name" --duration 600 > "$out" 2>&1 &
    FAKE_PID=$!
    PIDS+=("$FAKE_PID")
    wait_file "$out" '^serving at ' 15 || { sed 's/^/  | /' "$out"; return 1; }
}

# run_tv PREFIX OUT ERR ARGS...: runs taskview (as the prefix says, at most 10 s), sets RC.
run_tv() {
    local prefix=$1 out=$2 err=$3; shift 3
    (cd "$WORK" && timeout 10 $prefix "$BIN" "$@" > "$out" 2> "$err" < /dev/null)
    RC=$?
}

# --- 1. discovery with a stopped program --------------------------------------------------
DIR1="$WORK/sockets"
mkdir -m 700 "$DIR1"
fake "" "$DIR1/111.sock" healthy || setup_failed "stopped program: setup"
fake "" "$DIR1/222.sock" stopped || setup_failed "stopped program: setup"
STOPPED_PID=$FAKE_PID
kill -STOP "$STOPPED_PID"
STOPPED+=("$STOPPED_PID")
# Fill its queue of connections: connect until the kernel says EAGAIN, keep them open.
python3 - "$DIR1/222.sock" > "$WORK/filler.out" 2>&1 <<'EOF' &
import socket, sys, time
held = []
for _ in range(1000):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.setblocking(False)
    try:
        s.connect(sys.argv[1])
    except BlockingIOError:
        break
    held.append(s)
print("full after %d" % len(held), flush=True)
time.sleep(600)
EOF
PIDS+=("$!")
wait_file "$WORK/filler.out" '^full after' 30 || setup_failed "stopped program: filling its queue"
t0=$(date +%s%N)
TASKGRAPH_SOCKET_DIR="$DIR1" run_tv "" "$WORK/list1.out" "$WORK/list1.err" attach --list
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
check_1() {
    [ $RC -eq 0 ] && [ $ms -lt 3000 ] \
    && grep -qE "^[0-9]+  healthy  $DIR1/111.sock  started .* tasks \(" "$WORK/list1.out" \
    && grep -qxF "222  ?  $DIR1/222.sock  not answering" "$WORK/list1.out" \
        || why "attach --list with a stopped program (exit $RC after ${ms} ms)" "$(cat "$WORK/list1.out" "$WORK/list1.err")"
}
run_test "attach --list with a stopped program whose queue is full: returns in ${ms} ms, lists it not answering and the healthy one" check_1
# Attaching by PID says so at once instead of hanging in connect().
TASKGRAPH_SOCKET_DIR="$DIR1" run_tv "" "$WORK/pid1.out" "$WORK/pid1.err" attach --headless --no-record 222
check_2() {
    [ $RC -eq 2 ] && grep -qF "$DIR1/222.sock: not answering" "$WORK/pid1.err" \
        || why "attach PID of a stopped program (exit $RC)" "$(cat "$WORK/pid1.out" "$WORK/pid1.err")"
}
run_test "attach PID of a stopped program: exit 2, not answering" check_2
kill -CONT "$STOPPED_PID"
kill "$STOPPED_PID" 2>/dev/null

# --- 2. a second uid ------------------------------------------------------------------------
if [ "$(id -u)" -ne 0 ]; then
    echo "skip second-uid tests: they need root to play two other users (running as uid $(id -u))"
elif ! command -v setpriv >/dev/null; then
    echo "skip second-uid tests: setpriv (util-linux) is not installed"
elif [ ! -x "$OTHER_PY" ]; then
    echo "skip second-uid tests: $OTHER_PY (for the other users' fake programs) is not installed"
else
    AS_ATTACKER="setpriv --reuid=$ATTACKER --regid=$ATTACKER --clear-groups"
    AS_VICTIM="setpriv --reuid=$VICTIM --regid=$VICTIM --clear-groups"

    # The attacker's directory where the victim's default directory should be.
    TRAP="/tmp/taskgraph-$VICTIM"
    rm -rf "$TRAP"
    $AS_ATTACKER mkdir -m 777 "$TRAP" && $AS_ATTACKER chmod 777 "$TRAP"
    fake "$AS_ATTACKER" "$TRAP/777.sock" attacker || setup_failed "second uid: attacker's program"
    $AS_ATTACKER chmod 666 "$TRAP/777.sock"
    NOT_OURS="not using $TRAP: the directory is owned by uid $ATTACKER, not by this user (uid $VICTIM)"

    run_tv "$AS_VICTIM" "$WORK/v-list.out" "$WORK/v-list.err" attach --list
    check_3() {
        [ $RC -eq 0 ] && [ ! -s "$WORK/v-list.out" ] && grep -qxF "taskview: $NOT_OURS" "$WORK/v-list.err" \
            || why "attach --list with the attacker's directory (exit $RC)" "$(cat "$WORK/v-list.out" "$WORK/v-list.err")"
    }
    run_test "attach --list refuses the attacker's $TRAP (named on stderr, nothing listed)" check_3
    run_tv "$AS_VICTIM" "$WORK/v-pid.out" "$WORK/v-pid.err" attach --headless --no-record 777
    check_4() {
        [ $RC -eq 2 ] && ! grep -q batch "$WORK/v-pid.out" && grep -qxF "taskview: $NOT_OURS" "$WORK/v-pid.err" \
            || why "attach PID with the attacker's directory (exit $RC)" "$(cat "$WORK/v-pid.out" "$WORK/v-pid.err")"
    }
    run_test "attach PID refuses the attacker's directory (exit 2)" check_4
    run_tv "$AS_VICTIM" "$WORK/v-plain.out" "$WORK/v-plain.err" attach --headless --no-record
    check_5() {
        [ $RC -eq 2 ] && ! grep -q batch "$WORK/v-plain.out" && grep -qxF "taskview: $NOT_OURS" "$WORK/v-plain.err" \
            || why "plain attach with the attacker's directory (exit $RC)" "$(cat "$WORK/v-plain.out" "$WORK/v-plain.err")"
    }
    run_test "plain attach refuses the attacker's directory (exit 2)" check_5

    # Explicit paths: the attacker's program and root's, each in a directory anyone may enter.
    mkdir -m 755 "$WORK/attacker" && chown $ATTACKER:$ATTACKER "$WORK/attacker"
    fake "$AS_ATTACKER" "$WORK/attacker/1.sock" attacker2 || setup_failed "second uid: attacker's second program"
    $AS_ATTACKER chmod 666 "$WORK/attacker/1.sock"
    mkdir -m 755 "$WORK/root"
    fake "" "$WORK/root/1.sock" rootprog || setup_failed "second uid: root's program"
    chmod 666 "$WORK/root/1.sock"
    for who in attacker:$ATTACKER root:0; do
        dir=${who%%:*} uid=${who##*:}
        run_tv "$AS_VICTIM" "$WORK/v-$dir.out" "$WORK/v-$dir.err" attach --headless --no-record "$WORK/$dir/1.sock"
        want="taskview: $WORK/$dir/1.sock: refused: the program runs as another user (uid $uid)"
        check_6() {
            [ $RC -eq 2 ] && ! grep -q batch "$WORK/v-$dir.out" && grep -qxF "$want" "$WORK/v-$dir.err" \
                || why "attach PATH of $dir's program (exit $RC)" "$(cat "$WORK/v-$dir.out" "$WORK/v-$dir.err")"
        }
        run_test "attach PATH refuses $dir's program (uid $uid): peer check" check_6
    done

    # A private directory of the victim's under a 0777 parent without the sticky bit.
    mkdir -m 777 "$WORK/open" && chmod 777 "$WORK/open"
    $AS_VICTIM mkdir -m 700 "$WORK/open/leaf"
    fake "$AS_VICTIM" "$WORK/open/leaf/5.sock" leafprog || setup_failed "second uid: victim's program under 0777"
    TASKGRAPH_SOCKET_DIR="$WORK/open/leaf" run_tv "$AS_VICTIM" "$WORK/v-open.out" "$WORK/v-open.err" attach --list
    want="taskview: not using $WORK/open/leaf: its parent $WORK/open may be written by anyone and has no sticky bit (mode 0777)"
    check_7() {
        [ $RC -eq 0 ] && [ ! -s "$WORK/v-open.out" ] && grep -qxF "$want" "$WORK/v-open.err" \
            || why "private directory under a 0777 parent (exit $RC)" "$(cat "$WORK/v-open.out" "$WORK/v-open.err")"
    }
    run_test "attach --list refuses a private directory under a 0777 parent without the sticky bit" check_7

    # The victim's own program in its own private directory is still listed.
    mkdir -m 700 "$WORK/mine" && chown $VICTIM:$VICTIM "$WORK/mine"
    fake "$AS_VICTIM" "$WORK/mine/6.sock" mine || setup_failed "second uid: victim's own program"
    TASKGRAPH_SOCKET_DIR="$WORK/mine" run_tv "$AS_VICTIM" "$WORK/v-mine.out" "$WORK/v-mine.err" attach --list
    check_8() {
        [ $RC -eq 0 ] && grep -qE "^[0-9]+  mine  $WORK/mine/6.sock  started" "$WORK/v-mine.out" \
            || why "the victim's own program (exit $RC)" "$(cat "$WORK/v-mine.out" "$WORK/v-mine.err")"
    }
    run_test "the victim's own program in its own directory is listed" check_8
fi

e2e_summary
