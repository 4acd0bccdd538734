#!/usr/bin/env bash
# End-to-end: `id` and `needs` in scenario files (docs/taskview.md) in a real
# terminal (tmux): a node waiting for its needs says so (for how long the need has run, and
# the detail pane's `Why:` chain down to its command), a failed need skips its dependent
# with the reason in the row and the detail pane (the root is an allSettled, yet a step
# failed: exit 1), no command process is left behind;
# `r` `y` restarts a failed step (it fails the first time, succeeds the second: a marker
# file) and its skipped dependent runs, the run then succeeds, no process left behind; the
# same for a step of a `sequential`, whose later steps then run, and the replay of that
# recorded run draws the attempts in the rows they replace;
# quitting while a restart's attempt runs exits 130, and so does the replay of its log; -k
# runs the steps after a failed one (exit 1);
# cycles are refused before anything starts (exit 2); the `ci` demo's headless lines.
# Usage: bash Tests/e2e/pipelines.sh PATH-TO-TASKVIEW
set -u

E2E=pipelines-e2e
. "$(dirname "$0")/lib.sh"
e2e_bin "${1:?usage: pipelines.sh PATH-TO-TASKVIEW}"
e2e_need tmux
e2e_work taskview-pipe-e2e
e2e_before_rm() { kill_pid_files "$WORK/pids"; }
e2e_tmux
mkdir -p "$WORK/pids"

# core waits for the file "go", then fails; docs succeeds at once; test needs both.
cat > "$WORK/needs.json" <<JSON
{"kind": "allSettled", "name": "ci", "children": [
  {"kind": "command", "name": "core", "id": "core",
   "run": "echo \$\$ > '$WORK/pids/core'; while [ ! -e '$WORK/go' ]; do sleep 0.05; done; echo broken >&2; exit 3"},
  {"kind": "command", "name": "docs", "id": "docs", "run": "echo \$\$ > '$WORK/pids/docs'"},
  {"kind": "command", "name": "test", "needs": ["core", "docs"], "run": "echo \$\$ > '$WORK/pids/test'"}
]}
JSON

# gone: every recorded pid ends within 30 s.
gone() { pids_gone "$WORK/pids"; }

test_skip_reason_in_the_dashboard() {
    local s=needs
    shell $s 120 30
    keys $s "cd '$WORK' && '$BIN' run --no-record needs.json; echo EXIT=\$?" Enter
    wait_for $s 'test .*waiting for core' 30 || return 1
    # The row says how long core has run; the detail pane's why follows the chain to core's command.
    wait_for $s 'test .*waiting for core \(running [0-9]+s\)' 10 || return 1
    keys $s G Enter
    wait_for $s 'Why: waiting for core ← core is running "echo' 10 || return 1
    keys $s Escape
    touch "$WORK/go"
    wait_for $s 'test .*needs core, which failed' 30 || return 1
    [ ! -e "$WORK/pids/test" ] || { echo "  test ran although core failed"; return 1; }
    # The detail pane of test lists its needs with their states.
    keys $s G Enter
    wait_for $s 'Needs: core \(failed\), docs \(succeeded\)' 10 || return 1
    keys $s q
    # core failed and test was skipped: exit 1, whatever the root's kind.
    wait_for $s '^EXIT=1' 30 || return 1
    screen $s | grep -qE "^taskview: needs finished: failed" || { echo "  no exit summary:"; show $s; return 1; }
    gone
}

test_cycle_refused() {
    printf '%s\n' '{"kind": "concurrent", "name": "ci", "children": [' \
        '{"kind": "command", "name": "A", "id": "a", "needs": ["b"], "run": "touch ran"},' \
        '{"kind": "command", "name": "B", "id": "b", "needs": ["a"], "run": "touch ran"}]}' > "$WORK/cycle.json"
    local err status
    err=$(cd "$WORK" && "$BIN" run --no-record --headless cycle.json 2>&1 >/dev/null)
    status=$?
    [ $status -eq 2 ] || { echo "  exit $status, want 2"; return 1; }
    echo "$err" | grep -qF 'cycle.json:2:55: $.children[0] (command "A"): "needs" makes a cycle: a -> b -> a' \
        || { echo "  stderr: $err"; return 1; }
    [ ! -e "$WORK/ran" ] || { echo "  a command ran"; return 1; }
}

test_ci_demo_headless() {
    local out
    out=$("$BIN" demo ci --headless --no-record 2>/dev/null)
    echo "$out" | grep -qF '[10.000] #10 package: skipped (needs integration, which failed)' || { echo "$out" | tail -5; return 1; }
    echo "$out" | grep -qF '[5.000] #7 unit tests: executing' || { echo "  unit tests did not wait for core"; return 1; }
}

run_test "needs: waiting info, skip reason in row, detail pane and summary, no orphans" test_skip_reason_in_the_dashboard
# flaky fails the first time (no marker yet) and succeeds the second; ship needs it.
cat > "$WORK/restart.json" <<JSON
{"kind": "allSettled", "name": "ci", "children": [
  {"kind": "command", "name": "flaky", "id": "flaky",
   "run": "if [ -e '$WORK/marker' ]; then echo \$\$ > '$WORK/pids/flaky2'; exit 0; fi; echo \$\$ > '$WORK/pids/flaky1'; touch '$WORK/marker'; echo failing >&2; exit 1"},
  {"kind": "command", "name": "ship", "needs": ["flaky"],
   "run": "echo \$\$ > '$WORK/pids/ship'; touch '$WORK/shipped'; sleep 0.5"}
]}
JSON

test_restart_a_failed_step() {
    local s=restart
    shell $s 120 30
    keys $s "cd '$WORK' && '$BIN' run --no-record restart.json; echo EXIT=\$?" Enter
    wait_for $s 'ship .*needs flaky, which failed' 30 || return 1
    [ ! -e "$WORK/shipped" ] || { echo "  ship ran although flaky failed"; return 1; }
    keys $s g j r
    wait_for $s 'Restart flaky \(and 1 node that needs it\)\? \[y/N\]' 10 || return 1
    keys $s y
    wait_for $s 'flaky  attempt 2' 10 || return 1
    wait_for $s 'ship  attempt 2' 10 || return 1
    poll 30 test -e "$WORK/shipped" || { echo "  ship did not run after the restart"; return 1; }
    # The detail pane lists both attempts of flaky.
    keys $s g j Enter
    wait_for $s 'Attempts: 1 failed [0-9.]+s, 2 succeeded' 10 || return 1
    keys $s Escape
    # Once ship's new attempt ended the run counts as succeeded: exit 0.
    poll 30 on_screen $s 'ship  attempt 2 .*100%' || { echo "  ship's attempt did not finish"; show $s; return 1; }
    keys $s q
    wait_for $s '^EXIT=0' 30 || return 1
    gone
}

run_test "restart: r y re-runs a failed step, its skipped dependent runs, exit 0, no orphans" test_restart_a_failed_step

# A sequential: check fails the first time (no marker yet) and succeeds the second; the
# steps after it (deploy, then notify inside a group) never ran; the run is recorded.
cat > "$WORK/sequence.json" <<JSON
{"kind": "sequential", "name": "release", "children": [
  {"kind": "command", "name": "check",
   "run": "if [ -e '$WORK/marker-seq' ]; then echo \$\$ > '$WORK/pids/check2'; exit 0; fi; echo \$\$ > '$WORK/pids/check1'; touch '$WORK/marker-seq'; echo failing >&2; exit 1"},
  {"kind": "command", "name": "deploy", "run": "echo \$\$ > '$WORK/pids/deploy'; touch '$WORK/deployed'; sleep 0.3"},
  {"kind": "sequential", "name": "announce", "children": [
    {"kind": "command", "name": "notify", "run": "echo \$\$ > '$WORK/pids/notify'; touch '$WORK/notified'"}
  ]}
]}
JSON

test_restart_a_step_of_a_sequential() {
    local s=sequence
    t new-session -d -s $s -x 120 -y 30 "env TERM=tmux-256color bash --norc --noprofile"
    t send-keys -t $s "cd '$WORK' && '$BIN' run --record '$WORK/sequence.jsonl' sequence.json; echo EXIT=\$?" Enter
    wait_for $s 'notify .*skipped' 30 || return 1
    [ ! -e "$WORK/deployed" ] || { echo "  deploy ran although check failed"; return 1; }
    t send-keys -t $s g j r
    wait_for $s 'Restart check \(and 2 nodes that need it\)\? \[y/N\]' 10 || return 1
    t send-keys -t $s y
    wait_for $s 'check  attempt 2' 10 || return 1
    local i=0
    while [ ! -e "$WORK/notified" ]; do
        [ $i -ge 600 ] && { echo "  the steps after check did not run after the restart"; screen $s | sed 's/^/  | /'; return 1; }
        sleep 0.05; i=$((i + 1))
    done
    [ -e "$WORK/deployed" ] || { echo "  notify ran but deploy did not"; return 1; }
    wait_for $s 'notify  attempt 2 .*100%' 30 || return 1
    screen $s | grep -q 'restart of' && { echo "  the restart's group has a row:"; screen $s | sed 's/^/  | /'; return 1; }
    t send-keys -t $s q
    # The newest attempts all succeeded: exit 0, and the summary lists no failure.
    wait_for $s '^EXIT=0' 30 || return 1
    screen $s | grep -qE '^taskview: sequence finished: succeeded' || { echo "  no exit summary:"; screen $s | sed 's/^/  | /'; return 1; }
    screen $s | grep -q '^Failed:' && { echo "  the summary lists replaced attempts as failed:"; screen $s | sed 's/^/  | /'; return 1; }
    gone
}

# The recorded run replayed: the attempts are in the rows they replace, with no row of
# their own; the detail pane lists both attempts of check.
test_replay_of_a_restarted_run() {
    [ -s "$WORK/sequence.jsonl" ] || { echo "  no log from the restart test"; return 1; }
    grep -q '"ev":"attempt"' "$WORK/sequence.jsonl" || { echo "  the log has no attempt line"; return 1; }
    local s=replay-restart
    t new-session -d -s $s -x 120 -y 30 "env TERM=tmux-256color bash --norc --noprofile"
    t send-keys -t $s "'$BIN' replay --speed 64 '$WORK/sequence.jsonl'; echo EXIT=\$?" Enter
    wait_for $s 'notify  attempt 2 .*100%' 60 || return 1
    wait_for $s 'check  attempt 2' 10 || return 1
    screen $s | grep -q 'restart of' && { echo "  the restart's group has a row:"; screen $s | sed 's/^/  | /'; return 1; }
    t send-keys -t $s g j Enter
    wait_for $s 'Attempts: 1 failed [0-9.]+s, 2 succeeded' 10 || return 1
    t send-keys -t $s Escape q
    wait_for $s '^EXIT=0' 30 || return 1
}

# The report of the recorded run counts each step's newest attempt once (release, check,
# deploy, announce, notify) and names check as fixed by its restart, not as the failure.
test_report_of_a_restarted_run() {
    [ -s "$WORK/sequence.jsonl" ] || { echo "  no log from the restart test"; return 1; }
    local out
    out=$("$BIN" report "$WORK/sequence.jsonl") || { echo "  report failed"; return 1; }
    echo "$out" | grep -qx 'Summary: 5 succeeded, 0 failed, 0 cancelled, 0 skipped, 0 not executed, 0 executing' \
        || { echo "$out" | sed 's/^/  | /'; return 1; }
    echo "$out" | grep -qx 'First failure: none' || { echo "$out" | sed 's/^/  | /'; return 1; }
    echo "$out" | grep -qE '^Fixed by restart: check \(attempt 2\); attempt 1 failed at [0-9.]+s: exit status 1' \
        || { echo "$out" | sed 's/^/  | /'; return 1; }
    "$BIN" report --format json "$WORK/sequence.jsonl" | grep -qE '"fixedByRestart":\[\{"id":[0-9]+,"name":"check","attempt":2,' \
        || { echo "  no fixedByRestart in the JSON"; return 1; }
    # Failed, then passed in one run: flaky, with the first failure's output kept.
    echo "$out" | grep -qxF '  release/check  failed 1 of 2 attempts in this run' && echo "$out" | grep -qxF '    | failing' \
        || { echo "  no Flaky block:"; echo "$out" | sed 's/^/  | /'; return 1; }
    "$BIN" report --format json "$WORK/sequence.jsonl" \
        | grep -qF '"flaky":[{"path":"release/check","name":"check","failures":1,"runs":2,"sameRun":true,"firstFailureOutput":["failing"]}]' \
        || { echo "  no flaky in the JSON"; return 1; }
}

# --fail-on-flaky: the same restart fixes check, and the run still exits 1.
test_fail_on_flaky_after_a_restart() {
    local s=flaky-restart
    rm -f "$WORK/marker-seq" "$WORK/notified"
    t new-session -d -s $s -x 120 -y 30 "env TERM=tmux-256color bash --norc --noprofile"
    t send-keys -t $s "cd '$WORK' && '$BIN' run --no-record --fail-on-flaky sequence.json; echo EXIT=\$?" Enter
    wait_for $s 'notify .*skipped' 30 || return 1
    t send-keys -t $s g j r
    wait_for $s 'Restart check \(and 2 nodes that need it\)\? \[y/N\]' 10 || return 1
    t send-keys -t $s y
    wait_for $s 'notify  attempt 2 .*100%' 30 || return 1
    t send-keys -t $s q
    wait_for $s '^EXIT=1' 30 || return 1
    screen $s | grep -qF 'a step failed and then passed (--fail-on-flaky)' || { echo "  no reason on stderr"; return 1; }
    gone
}

run_test "restart: a failed step of a sequential re-runs, then the steps after it, exit 0, no orphans" test_restart_a_step_of_a_sequential
run_test "restart: the replay of a restarted run draws the attempts in place" test_replay_of_a_restarted_run
run_test "restart: the report counts newest attempts and lists the step fixed by restart" test_report_of_a_restarted_run
run_test "restart: --fail-on-flaky exits 1 after a restart fixed a step" test_fail_on_flaky_after_a_restart
# long ends at once the first time (no marker yet); its restarted attempt runs until it is
# cancelled.
cat > "$WORK/quit.json" <<JSON
{"kind": "allSettled", "name": "ci", "children": [
  {"kind": "command", "name": "long",
   "run": "if [ -e '$WORK/marker-quit' ]; then echo \$\$ > '$WORK/pids/long2'; exec sleep 1000; fi; echo \$\$ > '$WORK/pids/long1'; touch '$WORK/marker-quit'"}
]}
JSON

test_quit_while_a_restart_runs() {
    local s=restart-quit status
    shell $s 120 30
    keys $s "cd '$WORK' && '$BIN' run --record '$WORK/quit.jsonl' quit.json; echo EXIT=\$?" Enter
    wait_for $s 'long .*100%' 30 || return 1
    keys $s g j R
    wait_for $s 'long  attempt 2' 10 || return 1
    poll 30 test -s "$WORK/pids/long2" || { echo "  the restarted attempt did not start"; show $s; return 1; }
    keys $s q
    wait_for $s '^EXIT=130' 30 || return 1
    gone || return 1
    "$BIN" replay --headless "$WORK/quit.jsonl" >/dev/null 2>&1
    status=$?
    [ $status -eq 130 ] || { echo "  replay --headless exit $status, want 130"; return 1; }
}

# -k: the steps after a failed one run (exit 1 all the same); without it they are skipped.
cat > "$WORK/keep.json" <<JSON
{"kind": "sequential", "name": "ci", "children": [
  {"kind": "command", "name": "test", "run": "echo failing >&2; exit 1"},
  {"kind": "command", "name": "docs", "run": "touch '$WORK/docs-built'"}
]}
JSON

test_keep_going() {
    local status
    "$BIN" run --headless --no-record "$WORK/keep.json" >/dev/null 2>&1
    status=$?
    [ $status -eq 1 ] && [ ! -e "$WORK/docs-built" ] || { echo "  without -k: exit $status, docs ran: $(ls "$WORK")"; return 1; }
    "$BIN" run -k --headless --no-record "$WORK/keep.json" >/dev/null 2>&1
    status=$?
    [ $status -eq 1 ] && [ -e "$WORK/docs-built" ] || { echo "  with -k: exit $status, docs did not run"; return 1; }
}

run_test "restart: quitting while a restart runs exits 130, and so does its replay" test_quit_while_a_restart_runs
run_test "keep going: -k runs the steps after a failure, exit 1" test_keep_going
run_test "needs: a cycle is refused before anything runs (exit 2, named in order)" test_cycle_refused
run_test "needs: demo ci headless" test_ci_demo_headless

e2e_summary
