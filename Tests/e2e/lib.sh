# Helpers shared by the end-to-end scripts in Tests/e2e: sourced, not run. POSIX sh (replay.sh
# is an sh script), so no arrays here.
#
# A script sets E2E (the word its summary and error lines start with), sources this file with
#   . "$(dirname "$0")/lib.sh"
# and then, as it needs:
#   e2e_bin PATH         BIN: PATH made absolute; ends the script unless it is executable
#   e2e_need CMD...      ends the script unless every CMD is installed
#   e2e_work LABEL       WORK: a new temporary directory; at exit the tmux server ends, the
#                        script's own e2e_before_rm runs (if it defines one), WORK is removed
#   e2e_tmux             a tmux server on SOCK ($WORK/tmux.sock) kept alive by an idle session
# Its tests run with run_test; e2e_summary prints the counts and is the script's exit status.

export LC_ALL=C.UTF-8
PASSED=0
FAILED=0
NAME=

# e2e_die MESSAGE: "E2E: MESSAGE", the counts with one more failure, exit 1.
e2e_die() {
    echo "$E2E: $*"
    echo "$E2E: $PASSED passed, $((FAILED + 1)) failed"
    exit 1
}

e2e_bin() {
    BIN=$1
    case "$BIN" in /*) ;; *) BIN="$PWD/$BIN" ;; esac
    [ -x "$BIN" ] || e2e_die "not executable: $BIN"
}

e2e_need() {
    local c
    for c in "$@"; do command -v "$c" >/dev/null || e2e_die "$c is not installed"; done
}

e2e_work() {
    WORK=$(mktemp -d "${TMPDIR:-/tmp}/$1.XXXXXX")
    SOCK="$WORK/tmux.sock"
    trap e2e_cleanup EXIT
}

e2e_cleanup() {
    t kill-server >/dev/null 2>&1
    if command -v e2e_before_rm >/dev/null; then e2e_before_rm; fi
    rm -rf "$WORK"
}

e2e_tmux() { t new-session -d -s keep -x 80 -y 10 "sleep 100000"; }

# run_test NAME [COMMAND...]: runs COMMAND (default: NAME as a command) with NAME set, prints
# "ok   NAME" or "FAIL NAME", counts it, and ends the tmux session called NAME if there is one.
# ONLY="name ..." runs only the tests named.
run_test() {
    NAME=$1
    [ $# -gt 1 ] && shift
    case " ${ONLY:-$NAME} " in *" $NAME "*) ;; *) return 0 ;; esac
    if "$@"; then
        PASSED=$((PASSED + 1)); echo "ok   $NAME"
    else
        FAILED=$((FAILED + 1)); echo "FAIL $NAME"
    fi
    t kill-session -t "=$NAME" >/dev/null 2>&1
}

e2e_summary() {
    echo "$E2E: $PASSED passed, $FAILED failed"
    [ "$FAILED" -eq 0 ]
}

t() { tmux -S "$SOCK" -f /dev/null "$@"; }

# shell SESSION WIDTH HEIGHT [ENV...]: a session of that size running a plain bash in a
# 256-colour terminal (ENV: more NAME=VALUE for it).
shell() {
    local s=$1 w=$2 h=$3
    shift 3
    t new-session -d -s "$s" -x "$w" -y "$h" "env TERM=tmux-256color $* bash --norc --noprofile"
}

# keys SESSION KEY...: tmux send-keys to the session.
keys() {
    local s=$1
    shift
    t send-keys -t "$s" "$@"
}

screen() { t capture-pane -t "$1" -p; }

# show SESSION: the screen, indented under a failure's message.
show() { screen "$1" | sed 's/^/  | /'; }

# poll SECONDS COMMAND...: runs COMMAND every 50 ms until it succeeds (status 0) or SECONDS pass.
poll() {
    local n=$(($1 * 20)) i=0
    shift
    while [ $i -lt $n ]; do
        "$@" && return 0
        sleep 0.05
        i=$((i + 1))
    done
    return 1
}

on_screen() { screen "$1" | grep -qE -- "$2"; }
off_screen() { ! on_screen "$@"; }
in_file() { grep -qE -- "$2" "$1" 2>/dev/null; }

# cancel_prompt SESSION: in an attach dashboard, down to the first node below the program's
# root (cancelling the root would end the program) and `x`, one row further on each try,
# until a prompt to cancel a node of a program is drawn; prints that node's name (nothing
# after 15 tries). Each step is awaited: a busy machine draws late, and a key pressed before
# the prompt is drawn answers it.
cancel_prompt() {
    local s=$1 i=0 name=""
    keys $s j
    while [ $i -lt 15 ] && [ -z "$name" ]; do
        keys $s j x
        i=$((i + 1))
        poll 10 on_screen $s '\[y/N\]' || continue
        name=$(screen $s | sed -n 's/.*Cancel \(.*\) in .* (pid [0-9]*)\( and its [0-9]* running subtasks\{0,1\}\| (it is running)\)\{0,1\}? \[y\/N\].*/\1/p' | head -1)
        [ -n "$name" ] || { keys $s n; poll 10 off_screen $s '\[y/N\]'; }
    done
    printf '%s' "$name"
}

# wait_for SESSION REGEX [SECONDS]: REGEX on the screen within SECONDS (30); else the screen.
wait_for() {
    poll "${3:-30}" on_screen "$1" "$2" && return 0
    echo "  timed out after ${3:-30}s waiting for /$2/ on screen:"
    show "$1"
    return 1
}

# wait_gone SESSION REGEX [SECONDS]: REGEX off the screen within SECONDS (30); else the screen.
wait_gone() {
    poll "${3:-30}" off_screen "$1" "$2" && return 0
    echo "  timed out after ${3:-30}s waiting for /$2/ to go:"
    show "$1"
    return 1
}

# wait_file FILE REGEX [SECONDS]: a line of FILE matches REGEX within SECONDS (30); else its end.
wait_file() {
    poll "${3:-30}" in_file "$1" "$2" && return 0
    echo "  timed out after ${3:-30}s waiting for /$2/ in $1:"
    sed 's/^/  | /' "$1" 2>/dev/null | tail -5
    return 1
}

# taskview_pid SESSION: the pid of the program the session's shell runs.
taskview_pid() {
    local shell_pid p
    shell_pid=$(t display-message -p -t "$1" '#{pane_pid}')
    for p in /proc/[0-9]*; do
        [ "$(awk '{print $4}' "$p/stat" 2>/dev/null)" = "$shell_pid" ] && { echo "${p#/proc/}"; return; }
    done
}

# pids_gone DIR [FILE...]: the process of every pid file in DIR (or of the FILEs named) ends
# within 30 s each.
pids_gone() {
    local dir=$1 f
    shift
    [ $# -eq 0 ] && set -- $(ls "$dir")
    for f in "$@"; do
        poll 30 not_running "$dir/$f" || { echo "  process $f ($(cat "$dir/$f")) still runs"; return 1; }
    done
}

not_running() { ! kill -0 "$(cat "$1")" 2>/dev/null; }

# kill_pid_files DIR...: SIGKILL to the process of every pid file in each DIR (cleanup).
kill_pid_files() {
    local d f
    for d in "$@"; do
        for f in "$d"/*; do [ -f "$f" ] && kill -KILL "$(cat "$f")" 2>/dev/null; done
    done
    return 0
}
