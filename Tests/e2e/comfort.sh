#!/usr/bin/env bash
# End-to-end tests of the comfort keys in a real terminal (tmux, no TTY needed): `n` lands on the
# failure inside a folded branch, `]` seeks a replay to its next marker and the header says
# which, mouse clicks sent as raw X10 and SGR reports select rows, TERM=dumb prints plain lines
# with the periodic running line (live, in a replay at the recording's pace, in attach), Ctrl-C
# ends a plain replay with status 130.
# Usage: bash Tests/e2e/comfort.sh PATH-TO-TASKVIEW
# Prints one line per test and "e2e-comfort: N passed, M failed"; exits non-zero on failure.
set -u

E2E=e2e-comfort
. "$(dirname "$0")/lib.sh"
HERE=$(cd "$(dirname "$0")" && pwd)
e2e_bin "${1:?usage: comfort.sh PATH-TO-TASKVIEW}"
e2e_need tmux
e2e_work taskview-comfort
LOG="$WORK/flaky.jsonl"
e2e_tmux

# wait_hist SESSION REGEX [SECONDS]: as wait_for, in the pane's scrollback too (fast output
# scrolls lines off the screen before a loaded machine looks).
wait_hist() {
    local s=$1 re=$2 limit=${3:-30} i=0
    while [ $i -lt $((limit * 20)) ]; do
        t capture-pane -t "$s" -p -S -1000 | grep -qE -- "$re" && return 0
        sleep 0.05
        i=$((i + 1))
    done
    echo "  timed out after ${limit}s waiting for /$re/ in the pane's history:"
    t capture-pane -t "$s" -p -S -1000 | tail -5 | sed 's/^/  | /'
    return 1
}

# start SESSION TERM COMMAND...: runs COMMAND in a 100x30 pane, then prints EXIT=n.
start() {
    local s=$1 term=$2; shift 2
    t new-session -d -s "$s" -x 100 -y 30 \
        "cd '$WORK' && env TERM=$term $* ; echo EXIT=\$? ; sleep 100000"
}

# The flaky demo recorded once (headless: as fast as the machine allows); the build demo too
# (35 s of recorded time: the plain replays play it at --speed 16).
"$BIN" demo flaky --seed 1 --headless --record "$LOG" >/dev/null 2>&1
BUILD_LOG="$WORK/build.jsonl"
"$BIN" demo build --seed 1 --headless --record "$BUILD_LOG" >/dev/null 2>&1

test_n_into_a_folded_branch() {
    local s=n_into_a_folded_branch
    start $s tmux-256color "'$BIN' demo flaky --no-record --seed 1 --speed 2"
    # Wait for a failure, then fold everything to the root: the failure is out of sight.
    wait_for $s '✗ [1-9]' 40 || return 1
    keys $s 1
    wait_for $s 'Folded to depth 1' 10 || return 1
    screen $s | grep -qE '├─|└─' && { echo "  rows below the root still shown"; return 1; }
    screen $s | grep -qE '▸ flaky service .*✗ [1-9]' || { echo "  the folded root does not count its failures"; show $s; return 1; }
    keys $s n
    wait_for $s '└─|├─' 10 || return 1
    keys $s Enter
    wait_for $s 'State: failed' 10 || return 1
    wait_for $s 'Error: ' 10 || return 1
    keys $s q
    wait_for $s '^EXIT=' 20
}

test_bracket_seeks_to_a_marker() {
    local s=bracket_seeks_to_a_marker
    start $s tmux-256color "'$BIN' replay '$LOG'"
    wait_for $s 'marker 0/[0-9]+' 20 || return 1
    keys $s ' '
    keys $s g ']'
    wait_for $s 'marker 1/[0-9]+' 10 || return 1
    # Paused at the moment; the timeline strip (row 2) shows a failure or cancel marker.
    wait_for $s 'PAUSED' 10 || return 1
    screen $s | sed -n 2p | grep -qE '[━─┃].*[✗⊘]|[✗⊘]' || { echo "  no marker on the timeline strip"; return 1; }
    keys $s ']'
    wait_for $s 'marker 2/[0-9]+' 10 || return 1
    keys $s '['
    wait_for $s 'marker 1/[0-9]+' 10 || return 1
    keys $s q
    wait_for $s '^EXIT=' 20
}

# click SESSION FORMAT X Y [COUNT]: COUNT left clicks (press and release) at 0-based column X,
# row Y, as the terminal reports them, sent in one write.
click() {
    local s=$1 fmt=$2 x=$3 y=$4 count=${5:-1} k
    if [ "$fmt" = x10 ]; then
        # ESC [ M b x y, each byte 32 + value (coordinates 1-based); release is b=3.
        local cx cy bytes=()
        cx=$(printf '%x' $((33 + x)))
        cy=$(printf '%x' $((33 + y)))
        for ((k = 0; k < count; k++)); do bytes+=(1b 5b 4d 20 "$cx" "$cy" 1b 5b 4d 23 "$cx" "$cy"); done
        keys "$s" -H "${bytes[@]}"
    else
        local seq=""
        for ((k = 0; k < count; k++)); do
            seq+=$'\e'"[<0;$((x + 1));$((y + 1))M"$'\e'"[<0;$((x + 1));$((y + 1))m"
        done
        keys "$s" -l "$seq"
    fi
}

# A paused replay; a click on screen row 4 (the third tree row, under the header and the
# timeline) selects it: Enter then shows that row's node.
mouse_test() {
    local s=$1 term=$2 fmt=$3
    start $s $term "'$BIN' replay '$LOG'"
    wait_for $s 'marker 0/' 20 || return 1
    keys $s ' ' 9
    wait_for $s 'PAUSED' 10 || return 1
    local name
    name=$(screen $s | sed -n 5p | sed -E 's/^[│├└─ ]*. //; s/ {2,}.*//')
    [ -n "$name" ] || { echo "  no third row"; return 1; }
    click $s $fmt 20 4
    sleep 0.4 # past the double-click interval
    keys $s Enter
    # The name as a literal (it may hold regex characters such as parentheses).
    wait_for $s "Name: $(printf '%s' "$name" | sed 's/[][().*+?{}|^$\\]/\\&/g')" 10 || return 1
    keys $s Escape
    # A double click on the first row opens its detail pane at once.
    click $s $fmt 20 2
    click $s $fmt 20 2
    wait_for $s 'Name: flaky service' 10 || return 1
    keys $s q
    wait_for $s '^EXIT=' 20
}

test_mouse_x10() { mouse_test mouse_x10 tmux-256color x10; }
test_mouse_sgr() { mouse_test mouse_sgr xterm-256color sgr; }

test_no_mouse() {
    local s=no_mouse
    start $s tmux-256color "'$BIN' replay --no-mouse '$LOG'"
    wait_for $s 'marker 0/' 20 || return 1
    keys $s ' ' 9
    wait_for $s 'PAUSED' 10 || return 1
    click $s x10 20 4
    sleep 0.4
    keys $s Enter
    # The selection stayed on the first row.
    wait_for $s 'Name: flaky service' 10 || return 1
    keys $s q
    wait_for $s '^EXIT=' 20
}

test_term_dumb_prints_plain_lines() {
    local s=term_dumb_prints_plain_lines
    start $s dumb "'$BIN' demo build --no-record --speed 8"
    wait_for $s '^\[[0-9]+\.[0-9]{3}\] #[0-9]+ build: executing$' 20 || return 1
    local alt
    alt=$(t display-message -p -t $s '#{alternate_on}')
    [ "$alt" = 0 ] || { echo "  curses took the screen (alternate_on=$alt)"; return 1; }
    wait_for $s '^\[10\.000\] running: ' 30 || return 1
    wait_for $s '^EXIT=0' 60 || return 1
    # The summary (and the report after it) may have scrolled off the pane.
    t capture-pane -t $s -p -S -300 | grep -qE '^Summary: ' || { echo "  no summary"; return 1; }
}

test_plain_flag() {
    local s=plain_flag
    start $s tmux-256color "'$BIN' demo flaky --no-record --plain --speed 4 --seed 1"
    wait_for $s '^\[[0-9]+\.[0-9]{3}\] #[0-9]+ flaky service: executing$' 20 || return 1
    [ "$(t display-message -p -t $s '#{alternate_on}')" = 0 ] || { echo "  curses took the screen"; return 1; }
    # The demo's audit step fails (under an allSettled root): exit 1.
    wait_for $s '^EXIT=1' 60 || return 1
    t capture-pane -t $s -p -S -300 | grep -qE '^Summary: ' || { echo "  no summary"; return 1; }
}

# replay --plain: the headless replay's lines at the recording's pace (16 times as fast
# here), a running line every 10 s of recorded time, the recorded root's exit status.
test_replay_plain() {
    local s=replay_plain
    start $s tmux-256color "'$BIN' replay --plain --speed 16 '$BUILD_LOG' > '$WORK/plain.out'"
    wait_for $s '^EXIT=0' 30 || return 1
    [ "$(t display-message -p -t $s '#{alternate_on}')" = 0 ] || { echo "  curses took the screen"; return 1; }
    grep -qE '^\[10\.000\] running: ' "$WORK/plain.out" || { echo "  no running line at 10 s"; return 1; }
    grep -qE '^\[30\.000\] running: link' "$WORK/plain.out" || { echo "  no running line at 30 s"; return 1; }
    "$BIN" replay --headless "$BUILD_LOG" > "$WORK/headless.out" 2>/dev/null
    grep -v '] running: ' "$WORK/plain.out" | cmp -s - "$WORK/headless.out" \
        || { echo "  the lines differ from the headless replay's"; return 1; }
}

# TERM=dumb: the same plain replay on a terminal, lines as they come.
test_replay_term_dumb() {
    local s=replay_term_dumb
    start $s dumb "'$BIN' replay --speed 16 '$BUILD_LOG'"
    wait_hist $s '^\[[0-9]+\.[0-9]{3}\] #[0-9]+ build: executing$' 20 || return 1
    [ "$(t display-message -p -t $s '#{alternate_on}')" = 0 ] || { echo "  curses took the screen"; return 1; }
    wait_hist $s '^\[10\.000\] running: ' 20 || return 1
    wait_for $s '^EXIT=0' 30 || return 1
    wait_hist $s '^Summary: ' 5
}

# Ctrl-C stops a plain replay after a whole line: the summary so far, exit status 130.
test_replay_plain_ctrl_c() {
    local s=replay_plain_ctrl_c
    start $s tmux-256color "'$BIN' replay --plain '$BUILD_LOG'"
    wait_for $s '^\[[0-9]+\.[0-9]{3}\] #[0-9]+ build: executing$' 20 || return 1
    t send-keys -t $s C-c
    wait_for $s '^EXIT=130' 20 || return 1
    # The summary (and the report after it) may have scrolled off the pane; the terminal
    # echoes ^C where it begins.
    t capture-pane -t $s -p -S -300 | grep -qE '^(\^C)?Summary: .* [1-9][0-9]* executing$' \
        || { echo "  no summary of a replay stopped midway"; return 1; }
    wait_for $s '^taskview: replay stopped at [0-9.]+s of [0-9.]+s$' 5
}

# attach --plain (TERM=dumb) to a program: its lines live, and 10 s after attaching what it is
# running; the program's outcome as exit status. The program ends 15 s after it starts: the
# viewer has 5 s to attach (a loaded machine).
test_attach_plain() {
    command -v python3 >/dev/null || { echo "  (skipped: no python3)"; return 0; }
    local s=attach_plain dir="$WORK/sockets"
    mkdir -m 700 "$dir"
    TASKGRAPH_SOCKET_DIR="$dir" python3 "$HERE/../attach/fake_server.py" "$dir/fake.sock" --name fake \
        --exit-after 15 --finish-as succeeded >"$WORK/fake.out" 2>&1 &
    local fake=$! i=0
    while [ $i -lt 600 ] && ! grep -q '^serving at ' "$WORK/fake.out" 2>/dev/null; do sleep 0.05; i=$((i + 1)); done
    start $s dumb "TASKGRAPH_SOCKET_DIR='$dir' '$BIN' attach --no-record '$dir/fake.sock'"
    local ok=0
    wait_for $s '^\[[0-9]+\.[0-9]{3}\] #1 job 1: executing$' 20 \
        && wait_for $s '^\[[0-9]+\.[0-9]{3}\] running: job 1, job 2, download a \(\+[0-9]+\)$' 30 \
        && wait_for $s '^fake \(pid [0-9]+\): exited: succeeded$' 30 \
        && wait_for $s '^EXIT=0' 10 || ok=1
    [ "$(t display-message -p -t $s '#{alternate_on}')" = 0 ] || { echo "  curses took the screen"; ok=1; }
    kill $fake 2>/dev/null
    wait $fake 2>/dev/null
    return $ok
}

test_theme_option() {
    "$BIN" demo flaky --theme nope --no-record --headless >/dev/null 2>&1
    [ $? -eq 2 ] || { echo "  --theme nope not exit 2"; return 1; }
    local s=theme_option
    start $s tmux-256color "TASKVIEW_THEME=light '$BIN' replay --theme mono '$LOG'"
    wait_for $s 'marker 0/' 20 || return 1
    # mono: no colour escapes at all on the screen.
    t capture-pane -t $s -p -e | grep -qE $'\e\\[[0-9;]*3[1-6]m' && { echo "  colours under --theme mono"; return 1; }
    keys $s q
    wait_for $s '^EXIT=' 20
}


# diagnose.md "Done: tell the person": a run that ends after --notify-after sends OSC 777, OSC 9
# and a bell to its terminal (inside tmux wrapped in tmux's passthrough); --no-notify and a
# short run send nothing. pipe-pane keeps the bytes the program wrote to the pane.
test_notification() {
    local s=notification bytes="$WORK/notification.bytes"
    shell $s 100 20
    t pipe-pane -o -t $s "cat > '$bytes'"
    keys $s "'$BIN' demo build --no-record --speed 50 --exit-when-done --notify-after 0.2; '$BIN' demo build --no-record --speed 50 --exit-when-done --notify-after 0.2 --no-notify; TMUX= '$BIN' demo build --no-record --speed 50 --exit-when-done --notify-after 0.2; '$BIN' demo build --no-record --speed 50 --exit-when-done --notify-after 600; echo DONE" Enter
    wait_for $s '^DONE' 60 || { show $s; return 1; }
    sleep 0.3
    t pipe-pane -t $s
    local wrapped plain bells
    wrapped=$(grep -c $'\ePtmux;\e\e]777;notify;taskview: build;build succeeded in [0-9.]*s\e\e\\\\\e\\\\' "$bytes")
    plain=$(grep -ac $'\e]777;notify;taskview: build;build succeeded in [0-9.]*s\e\\\\\e]9;taskview: build: build succeeded' "$bytes")
    bells=$(tr -cd '\a' < "$bytes" | wc -c)
    [ "$wrapped" -ge 1 ] || { echo "  no OSC 777 wrapped for tmux"; cat -v "$bytes" | grep -o '.\{0,20\}777.\{0,60\}' | head -3; return 1; }
    [ "$plain" -ge 1 ] || { echo "  no plain OSC 777 + OSC 9 with TMUX unset"; return 1; }
    [ "$bells" -eq 2 ] || { echo "  $bells bells, want 2 (--no-notify and a run under --notify-after send none)"; return 1; }
    "$BIN" demo build --notify-after -1 --no-record --headless >/dev/null 2>&1
    [ $? -eq 2 ] || { echo "  --notify-after -1 not exit 2"; return 1; }
}

run_test n_into_a_folded_branch test_n_into_a_folded_branch
run_test bracket_seeks_to_a_marker test_bracket_seeks_to_a_marker
run_test mouse_x10 test_mouse_x10
run_test mouse_sgr test_mouse_sgr
run_test no_mouse test_no_mouse
run_test term_dumb_prints_plain_lines test_term_dumb_prints_plain_lines
run_test plain_flag test_plain_flag
run_test theme_option test_theme_option
run_test replay_plain test_replay_plain
run_test replay_term_dumb test_replay_term_dumb
run_test replay_plain_ctrl_c test_replay_plain_ctrl_c
run_test attach_plain test_attach_plain
run_test notification test_notification

e2e_summary
