#!/usr/bin/env bash
# End-to-end: the run history (docs/taskview.md, "Run history"). The second headless run of
# a scenario file shows an ETA from the first; each recorded run (a failed one, an
# interrupted one) adds one line to taskview-logs/history/HASH.jsonl (0600 in a 0700
# directory whatever the umask); --no-history and --no-record add nothing; a 500 MB log of
# the same file in the directory changes neither the start's time nor its memory; a line
# that is not an entry is skipped with one notice, on stderr headless and in the
# dashboard's footer (tmux). Flaky, not failed: each node's git commit and dirtiness in its
# line (absent outside a work tree); a step that failed and passed with the same inputs is in
# the report's Flaky block; --fail-on-flaky exits 1 when a step passed only on a retry.
# Usage: bash Tests/e2e/history.sh PATH-TO-TASKVIEW
set -u

E2E=history-e2e
. "$(dirname "$0")/lib.sh"
e2e_bin "${1:?usage: history.sh PATH-TO-TASKVIEW}"
e2e_need tmux
e2e_work taskview-history-e2e
e2e_tmux

cat > "$WORK/ci.json" <<'JSON'
{"kind": "sequential", "name": "ci", "children": [
  {"kind": "command", "name": "build", "run": "sleep 0.3"},
  {"kind": "command", "name": "test", "run": "[ ! -e fail ]"}
]}
JSON
cat > "$WORK/slow.json" <<'JSON'
{"kind": "command", "name": "slow", "run": "sleep 30", "grace": 1}
JSON

# history FILE: the history file of WORK/FILE (the only one whose line 1 names it).
history() { grep -lF "\"file\":\"$WORK/$1\"" "$WORK"/taskview-logs/history/*.jsonl 2>/dev/null; }
entries() { echo $(($(wc -l < "$(history "$1")") - 1)); }

test_second_run_has_an_eta_and_each_run_a_line() {
    local out h
    (cd "$WORK" && umask 002 && "$BIN" run --headless ci.json >/dev/null 2>&1) || { echo "  first run failed"; return 1; }
    out=$(cd "$WORK" && "$BIN" run --headless ci.json 2>/dev/null)
    echo "$out" | grep -qE '^\[0\.[0-9]+\] #[0-9]+ build: executing  \(ETA 0\.[0-9]s\)$' \
        || { echo "  no ETA on the second run:"; echo "$out" | head -5 | sed 's/^/  | /'; return 1; }
    h=$(history ci.json) || { echo "  no history file"; return 1; }
    [ "$(entries ci.json)" -eq 2 ] || { echo "  $(entries ci.json) entries, want 2"; return 1; }
    [ "$(stat -c %a "$h")" = 600 ] || { echo "  file mode $(stat -c %a "$h")"; return 1; }
    [ "$(stat -c %a "$WORK/taskview-logs/history")" = 700 ] || { echo "  directory mode wrong"; return 1; }
    tail -1 "$h" | grep -qE '^\{"run":"ci-[0-9-]+\.jsonl","start":[0-9.]+,"seconds":[0-9.e-]+,"status":0,"nodes":\[\{"path":"ci","outcome":"succeeded",' \
        || { echo "  last line: $(tail -1 "$h" | cut -c1-200)"; return 1; }
    tail -1 "$h" | grep -qF '{"path":"ci/test","outcome":"succeeded",' || { echo "  no ci/test"; return 1; }
}

test_failed_and_interrupted_runs_are_recorded_with_their_status() {
    local before
    before=$(entries ci.json)
    touch "$WORK/fail"
    (cd "$WORK" && "$BIN" run --headless ci.json >/dev/null 2>&1)
    rm -f "$WORK/fail"
    [ "$(entries ci.json)" -eq $((before + 1)) ] || { echo "  the failed run added no line"; return 1; }
    tail -1 "$(history ci.json)" | grep -qF '"status":1,' || { echo "  status of the failed run"; return 1; }
    tail -1 "$(history ci.json)" | grep -qF '{"path":"ci/test","outcome":"failed",' || { echo "  ci/test"; return 1; }
    (cd "$WORK" && timeout -s INT 1 "$BIN" run --headless slow.json >/dev/null 2>&1)
    tail -1 "$(history slow.json)" | grep -qE '"status":130,.*\{"path":"slow","outcome":"cancelled",' \
        || { echo "  interrupted: $(tail -1 "$(history slow.json)")"; return 1; }
}

test_no_history_and_no_record_add_nothing() {
    local before
    before=$(entries ci.json)
    (cd "$WORK" && "$BIN" run --headless --no-history ci.json >/dev/null 2>&1)
    (cd "$WORK" && "$BIN" run --headless --no-record ci.json >/dev/null 2>&1)
    [ "$(entries ci.json)" -eq "$before" ] || { echo "  $(entries ci.json) entries, want $before"; return 1; }
}

# peak SCENARIO: "SECONDS KB" of one headless run (elapsed time, peak memory).
peak() { (cd "$WORK" && /usr/bin/time -f '%e %M' "$BIN" run --headless "$1" 2>&1 >/dev/null | tail -1); }

test_a_huge_log_of_the_same_file_is_not_read() {
    local log small big
    small=$(peak ci.json)
    # A 500 MB log of the same file: its header, then a JSON string of 500 MB.
    log=$(ls "$WORK"/taskview-logs/ci-*.jsonl | head -1)
    { head -1 "$log"; printf '{"seq":1,"t":0,"ev":"output","id":0,"stream":"stdout","text":"'; } > "$WORK/taskview-logs/huge.jsonl"
    truncate -s 500M "$WORK/taskview-logs/huge.jsonl"
    big=$(peak ci.json)
    rm -f "$WORK/taskview-logs/huge.jsonl"
    echo "  without: ${small% *} s ${small#* } KB; with a 500 MB log: ${big% *} s ${big#* } KB"
    # Generous: the same within 1 s and 20 MB (the log used to add 9 s and 549 MB).
    awk -v a="$small" -v b="$big" 'BEGIN { split(a, x, " "); split(b, y, " "); exit !(y[1] < x[1] + 1 && y[2] < x[2] + 20000) }'
}

test_an_unreadable_line_gives_one_notice() {
    local err h n
    h=$(history ci.json)
    n=$(($(wc -l < "$h") + 1)) # the first line added
    printf 'not an entry\n{"run":\n' >> "$h"
    err=$(cd "$WORK" && "$BIN" run --headless ci.json 2>&1 >/dev/null | grep -v '^Log written')
    [ "$err" = "taskview: history taskview-logs/history/${h##*/}:$n unreadable, skipped (and 1 more line)" ] \
        || { echo "  stderr: $err (want line $n)"; return 1; }
}

test_the_dashboard_shows_the_notice_in_its_footer() {
    local s=footer
    shell $s 120 20
    keys $s "cd '$WORK' && '$BIN' run ci.json; echo EXIT=\$?" Enter
    wait_for $s 'history .*unreadable, skipped' 20 || return 1
    keys $s q
    wait_for $s '^EXIT=' 20
}

test_git_commit_and_dirty_in_the_history() {
    local repo="$WORK/repo" head h
    mkdir -p "$repo"
    git -C "$repo" init -q || return 1
    printf 'v1\n' > "$repo/src.txt"
    cat > "$repo/ci.json" <<'JSON'
{"kind": "sequential", "name": "ci", "children": [{"kind": "command", "name": "test", "run": "cat src.txt"}]}
JSON
    git -C "$repo" add src.txt ci.json
    git -C "$repo" -c user.name=e2e -c user.email=e2e@example.com commit -qm one || return 1
    head=$(git -C "$repo" rev-parse HEAD)
    (cd "$repo" && "$BIN" run --headless ci.json >/dev/null 2>&1) || { echo "  first run failed"; return 1; }
    h=$(grep -lF "\"file\":\"$repo/ci.json\"" "$repo"/taskview-logs/history/*.jsonl) || { echo "  no history"; return 1; }
    tail -1 "$h" | grep -qE "\{\"path\":\"ci/test\",\"outcome\":\"succeeded\",\"seconds\":[0-9.e-]+,\"attempts\":1,\"key\":\"[0-9a-f]{16}\",\"commit\":\"$head\",\"dirty\":false[,}]" \
        || { echo "  clean: $(tail -1 "$h" | cut -c1-400)"; return 1; }
    printf 'v2\n' > "$repo/src.txt" # a tracked file changed: dirty
    (cd "$repo" && "$BIN" run --headless ci.json >/dev/null 2>&1)
    tail -1 "$h" | grep -qE "\"commit\":\"$head\",\"dirty\":true[,}]" || { echo "  dirty: $(tail -1 "$h" | cut -c1-400)"; return 1; }
    # Outside a work tree: no commit, no dirty.
    tail -1 "$(history ci.json)" | grep -qE '"(commit|dirty)"' && { echo "  commit outside a work tree"; return 1; }
    return 0
}

test_failed_then_passed_with_the_same_inputs_is_flaky() {
    local out
    cat > "$WORK/flip.json" <<'JSON'
{"kind": "sequential", "name": "ci", "children": [{"kind": "command", "name": "test", "run": "echo 'ran 3 tests'; [ ! -e flip-fail ]"}]}
JSON
    touch "$WORK/flip-fail"
    (cd "$WORK" && "$BIN" run --headless flip.json >/dev/null 2>&1) && { echo "  the failing run passed"; return 1; }
    rm -f "$WORK/flip-fail"
    out=$(cd "$WORK" && "$BIN" run --headless flip.json 2>/dev/null) || { echo "  the passing run failed"; return 1; }
    echo "$out" | grep -qxF "Flaky: 1" && echo "$out" | grep -qxF "  ci/test  flaky 1/2: failed 1 of the last 2 runs with the same inputs" \
        || { echo "  no Flaky block:"; echo "$out" | tail -8 | sed 's/^/  | /'; return 1; }
    # `taskview report` of that run's log finds its history beside the log.
    out=$("$BIN" report "$(ls -t "$WORK"/taskview-logs/flip-*.jsonl | head -1)" 2>&1)
    echo "$out" | grep -qxF "  ci/test  flaky 1/2: failed 1 of the last 2 runs with the same inputs" \
        || { echo "  report: no Flaky block"; return 1; }
}

test_fail_on_flaky_exits_1_when_a_step_passed_on_a_retry() {
    local out status
    cat > "$WORK/retry.json" <<'JSON'
{"kind": "retry", "name": "upload", "attempts": 3, "children": [{"kind": "command", "name": "put", "run": "n=$(cat tries 2>/dev/null || echo 0); echo $((n + 1)) > tries; echo \"try $n\"; [ $n -ge 1 ]"}]}
JSON
    rm -f "$WORK/tries"
    out=$(cd "$WORK" && "$BIN" run --headless --no-record retry.json 2>/dev/null)
    status=$?
    [ $status -eq 0 ] || { echo "  default: exit $status, want 0 (the newest attempt decides)"; return 1; }
    echo "$out" | grep -qxF "  upload  failed 1 of 2 attempts in this run" || { echo "  no Flaky line"; return 1; }
    echo "$out" | grep -qxF "    | try 0" || { echo "  the first failure's output is not kept"; return 1; }
    rm -f "$WORK/tries"
    (cd "$WORK" && "$BIN" run --headless --no-record --fail-on-flaky retry.json >/dev/null 2>&1)
    status=$?
    [ $status -eq 1 ] || { echo "  --fail-on-flaky: exit $status, want 1"; return 1; }
    # Passing at once is not flaky.
    (cd "$WORK" && "$BIN" run --headless --no-record --fail-on-flaky retry.json >/dev/null 2>&1)
    status=$?
    [ $status -eq 0 ] || { echo "  --fail-on-flaky without a failure: exit $status, want 0"; return 1; }
}

run_test "the second run has an ETA; each run a line, private" test_second_run_has_an_eta_and_each_run_a_line
run_test "failed and interrupted runs are recorded with their status" test_failed_and_interrupted_runs_are_recorded_with_their_status
run_test "--no-history and --no-record add nothing" test_no_history_and_no_record_add_nothing
run_test "a 500 MB log of the same file is not read" test_a_huge_log_of_the_same_file_is_not_read
run_test "an unreadable line gives one notice" test_an_unreadable_line_gives_one_notice
run_test "the dashboard shows the notice in its footer" test_the_dashboard_shows_the_notice_in_its_footer
run_test "git commit and dirtiness in each node's line" test_git_commit_and_dirty_in_the_history
run_test "failed, then passed with the same inputs: flaky" test_failed_then_passed_with_the_same_inputs_is_flaky
run_test "--fail-on-flaky exits 1 when a step passed on a retry" test_fail_on_flaky_exits_1_when_a_step_passed_on_a_retry
e2e_summary
