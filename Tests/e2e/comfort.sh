#!/usr/bin/env bash
# End-to-end tests of comfort.md in a real terminal (tmux, no TTY needed): `n` lands on the
# failure inside a folded branch, `]` seeks a replay to its next marker and the header says
# which, mouse clicks sent as raw X10 and SGR reports select rows, TERM=dumb prints plain lines
# with the periodic running line.
# Usage: bash Tests/e2e/comfort.sh PATH-TO-TASKVIEW
# Prints one line per test and "e2e-comfort: N passed, M failed"; exits non-zero on failure.
set -u

E2E=e2e-comfort
. "$(dirname "$0")/lib.sh"
e2e_bin "${1:?usage: comfort.sh PATH-TO-TASKVIEW}"
e2e_need tmux
e2e_work taskview-comfort
LOG="$WORK/flaky.jsonl"
e2e_tmux

# start SESSION TERM COMMAND...: runs COMMAND in a 100x30 pane, then prints EXIT=n.
start() {
    local s=$1 term=$2; shift 2
    t new-session -d -s "$s" -x 100 -y 30 \
        "cd '$WORK' && env TERM=$term $* ; echo EXIT=\$? ; sleep 100000"
}

# The flaky demo recorded once (headless: as fast as the machine allows).
"$BIN" demo flaky --seed 1 --headless --record "$LOG" >/dev/null 2>&1

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
    wait_for $s '^EXIT=0' 60 || return 1
    t capture-pane -t $s -p -S -300 | grep -qE '^Summary: ' || { echo "  no summary"; return 1; }
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

run_test n_into_a_folded_branch test_n_into_a_folded_branch
run_test bracket_seeks_to_a_marker test_bracket_seeks_to_a_marker
run_test mouse_x10 test_mouse_x10
run_test mouse_sgr test_mouse_sgr
run_test no_mouse test_no_mouse
run_test term_dumb_prints_plain_lines test_term_dumb_prints_plain_lines
run_test plain_flag test_plain_flag
run_test theme_option test_theme_option

e2e_summary
