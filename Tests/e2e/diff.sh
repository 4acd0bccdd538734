#!/usr/bin/env bash
# End-to-end: comparing runs (docs/taskview.md, "taskview diff" and "Comparing with another
# run"). `diff` of two recorded runs prints the change and exits 0, 1 past --fail-slower,
# 2 for a bad log (naming file and line) or a --min-change outside 0-1000; the second run
# of a scenario ends with "Compared with the previous run"; --baseline of another
# scenario's log says so and runs without one; in the dashboard `d` shows + and - (tmux).
# Usage: bash Tests/e2e/diff.sh PATH-TO-TASKVIEW
set -u

E2E=diff-e2e
. "$(dirname "$0")/lib.sh"
e2e_bin "${1:?usage: diff.sh PATH-TO-TASKVIEW}"
e2e_need tmux
e2e_work taskview-diff-e2e
e2e_tmux

# ci.json: core takes $CORE seconds (sed), docs 0.5 s, lint 1 s.
scenario() {
    cat > "$WORK/ci.json" <<JSON
{"kind": "allSettled", "name": "ci", "children": [
  {"kind": "work", "name": "core", "duration": $1},
  {"kind": "work", "name": "docs", "duration": 0.5},
  {"kind": "work", "name": "lint", "duration": $2}
]}
JSON
}
scenario 0.4 1
cp "$WORK/ci.json" "$WORK/other.json"
(cd "$WORK" && "$BIN" run --headless --record base.jsonl ci.json >/dev/null 2>&1 \
    && "$BIN" run --headless --record other.jsonl other.json >/dev/null 2>&1)
scenario 1.6 0.2
(cd "$WORK" && "$BIN" run --headless --record new.jsonl ci.json >"$WORK/second.txt" 2>&1)

test_diff_prints_the_change() {
    local out
    out=$(cd "$WORK" && "$BIN" diff base.jsonl new.jsonl) || { echo "  exit $?"; return 1; }
    echo "$out" | grep -qxF 'Total: 1.000s → 1.600s (+0.600s, +60.0%)' || { echo "$out" | sed 's/^/  | /'; return 1; }
    echo "$out" | grep -qxF '  ci/core  0.400s → 1.600s  +1.200s (+300%)' || { echo "$out" | sed 's/^/  | /'; return 1; }
    echo "$out" | grep -qxF '  ci/lint  1.000s → 0.200s  -0.800s (-80%)' || { echo "$out" | sed 's/^/  | /'; return 1; }
    out=$(cd "$WORK" && "$BIN" diff base.jsonl new.jsonl --format json) || return 1
    echo "$out" | grep -qF '{"total":{"base":1,"new":1.6,"delta":0.6},"criticalPath":{"base":[{"path":"ci/lint","seconds":1}],"new":[{"path":"ci/core","seconds":1.6}]},"slower":[{"path":"ci/core","base":0.4,"new":1.6,"delta":1.2,"ratio":4}],' \
        || { echo "  $out"; return 1; }
}

test_fail_slower_is_a_gate() {
    (cd "$WORK" && "$BIN" diff base.jsonl new.jsonl --fail-slower 59 >/dev/null)
    [ $? -eq 1 ] || { echo "  60 % slower past --fail-slower 59: not exit 1"; return 1; }
    (cd "$WORK" && "$BIN" diff base.jsonl new.jsonl --fail-slower 61 >/dev/null) || { echo "  within 61 %: exit $?"; return 1; }
    (cd "$WORK" && "$BIN" diff new.jsonl base.jsonl --fail-slower 0 >/dev/null) || { echo "  faster: exit $?"; return 1; }
}

test_bad_input_exits_2_naming_file_and_line() {
    local err
    head -3 "$WORK/new.jsonl" > "$WORK/bad.jsonl"
    echo '{"seq":3,"t":0,"ev":"nonsense"' >> "$WORK/bad.jsonl"
    err=$(cd "$WORK" && "$BIN" diff base.jsonl bad.jsonl 2>&1 >/dev/null)
    [ $? -eq 2 ] || { echo "  bad log: not exit 2"; return 1; }
    echo "$err" | grep -qE '^taskview: bad\.jsonl: line 4: ' || { echo "  $err"; return 1; }
    err=$(cd "$WORK" && "$BIN" diff base.jsonl missing.jsonl 2>&1 >/dev/null)
    [ $? -eq 2 ] || { echo "  missing file: not exit 2"; return 1; }
    err=$(cd "$WORK" && "$BIN" diff base.jsonl new.jsonl --min-change 1001 2>&1 >/dev/null)
    [ $? -eq 2 ] || { echo "  --min-change 1001: not exit 2"; return 1; }
    echo "$err" | grep -qF -- '--min-change must be between 0 and 1000' || { echo "  $err"; return 1; }
    (cd "$WORK" && "$BIN" diff base.jsonl new.jsonl --fail-slower -1 >/dev/null 2>&1)
    [ $? -eq 2 ] || { echo "  --fail-slower -1: not exit 2"; return 1; }
}

test_the_second_run_compares_with_the_first() {
    grep -qxF 'Compared with the previous run: 1.000s → 1.600s (+0.600s, +60.0%)' "$WORK/second.txt" \
        || { tail -8 "$WORK/second.txt" | sed 's/^/  | /'; return 1; }
    grep -qxF '  slower: ci/core +1.2s' "$WORK/second.txt" || { echo "  no slower line"; return 1; }
}

test_a_baseline_of_another_scenario_is_refused() {
    local err
    err=$(cd "$WORK" && "$BIN" run --headless --no-record --baseline other.jsonl ci.json 2>&1 >"$WORK/out.txt")
    echo "$err" | grep -qF "taskview: no baseline: other.jsonl is a log of $WORK/other.json, not of $WORK/ci.json" \
        || { echo "  $err"; return 1; }
    ! grep -q '^Compared with' "$WORK/out.txt" || { echo "  compared anyway"; return 1; }
    (cd "$WORK" && "$BIN" replay --headless --baseline base.jsonl new.jsonl >"$WORK/out.txt" 2>&1)
    grep -qxF 'Compared with base.jsonl: 1.000s → 1.600s (+0.600s, +60.0%)' "$WORK/out.txt" \
        || { tail -5 "$WORK/out.txt" | sed 's/^/  | /'; return 1; }
}

test_d_shows_the_change_in_the_dashboard() {
    local s=delta
    scenario 3 0.05
    shell $s 120 12
    keys $s "cd '$WORK' && '$BIN' run --record live.jsonl ci.json; echo EXIT=\$?" Enter
    wait_for $s 'ci/core|core ' 20 || return 1
    keys $s d
    wait_for $s 'core .*[0-9]\.[0-9]× usual' 20 || return 1
    wait_for $s 'lint .* -0\.2s' 20 || return 1
    wait_for $s 'core .* \+1\.4s' 20 || return 1
    keys $s q
    wait_for $s '^EXIT=' 20
}

run_test "diff prints the change (text and JSON)" test_diff_prints_the_change
run_test "--fail-slower is a gate: exit 1 past it" test_fail_slower_is_a_gate
run_test "bad input exits 2, naming file and line" test_bad_input_exits_2_naming_file_and_line
run_test "the second run compares with the first" test_the_second_run_compares_with_the_first
run_test "a baseline of another scenario is refused" test_a_baseline_of_another_scenario_is_refused
run_test "d shows + and - against the previous run" test_d_shows_the_change_in_the_dashboard
e2e_summary
