#!/usr/bin/env bash
# Bad input never crashes and never half-runs: each case runs the taskview binary and checks
# its exit status and the message on stderr (file, line, what is wrong).
# Usage: bash Tests/e2e/bad-input.sh PATH-TO-TASKVIEW
# Prints one line per case and finally "bad-input: N passed, M failed".
set -u
BIN=${1:?usage: bad-input.sh PATH-TO-TASKVIEW}
E2E=bad-input
. "$(dirname "$0")/lib.sh"
e2e_work taskview-bad
D=$WORK

# expect NAME STATUS REGEX [CHECK] -- COMMAND...: a run_test that runs COMMAND and checks its
# status, that stderr matches REGEX (and that no line says `Error:`: every message is in
# taskview's style, `taskview: ...`) and, if given, that the shell condition CHECK holds after.
expect() {
    local name=$1
    shift
    run_test "$name" expect_check "$@"
}
expect_check() {
    local want=$1 re=$2 check=
    if [ "$3" = -- ]; then shift 3; else check=$3; shift 4; fi
    "$@" >"$D/out" 2>"$D/err" </dev/null
    local got=$?
    if [ "$got" -eq "$want" ] && { [ -z "$re" ] || grep -qE -- "$re" "$D/err"; } && ! grep -q '^Error:' "$D/err"; then
        [ -z "$check" ] || eval "$check" || { echo "  not so: $check"; return 1; }
    else
        echo "  status $got (want $want), stderr:"; head -c 400 "$D/err" | sed 's/^/    | /'; echo
        return 1
    fi
}

# Scenario files.
printf '{"kind":"work", "name": "a",}\n' >"$D/comma.json"
expect "scenario: JSON error is FILE:LINE:COLUMN" 2 "comma.json:1:[0-9]+: .*trailing comma" -- "$BIN" run "$D/comma.json" --headless
printf '{\n  "kind": "sequential",\n  "name": "root",\n  "children": [{"kind": "wrok", "name": "x"}]\n}\n' >"$D/kind.json"
expect "scenario: unknown node kind" 2 'kind.json:4:[0-9]+: .*unknown node kind "wrok"' -- "$BIN" run "$D/kind.json" --headless
printf '{"kind":"work","name":"a","bogus":1}\n' >"$D/field.json"
expect "scenario: unknown field" 2 'field.json:1:[0-9]+: .*unknown field "bogus"' -- "$BIN" run "$D/field.json" --headless
printf '{"kind":"work","name":"a","weight":-1}\n' >"$D/weight.json"
expect "scenario: negative weight" 2 'weight.json.*weight' -- "$BIN" run "$D/weight.json" --headless
printf '{"kind":"allSettled","name":"ci","children":[\n  {"kind":"work","name":"lint","allowFailure":"yes"}]}\n' >"$D/allow.json"
expect "scenario: allowFailure not a boolean" 2 'allow.json:2:[0-9]+: .*"allowFailure" must be true or false, not a string' '[ ! -s "$D/out" ]' \
    -- "$BIN" run "$D/allow.json" --headless --no-record
printf '{"kind":"retry","name":"r","attempts":0,"children":[{"kind":"work","name":"a"}]}\n' >"$D/attempts.json"
expect "scenario: attempts < 1" 2 'attempts.json.*attempts' -- "$BIN" run "$D/attempts.json" --headless
printf '{"kind":"concurrent","name":"c","children":[{"kind":"work","name":"w","repeat":100000,"steps":100000}]}\n' >"$D/events.json"
expect "scenario: too many progress events" 2 'events.json: .*"w 101".*more than 10,000,000 progress events' -- "$BIN" run "$D/events.json" --headless --no-record
printf '{"kind":"retry","name":"a","attempts":1000,"children":[{"kind":"retry","name":"b","attempts":1000,"children":[{"kind":"retry","name":"c","attempts":1000,"children":[{"kind":"work","name":"w"}]}]}]}\n' >"$D/retries.json"
# Over budget, nothing runs (no output).
expect "scenario: nested retries over budget" 2 'retries.json: .*"c".*more than 1,000,000' '[ ! -s "$D/out" ]' \
    -- "$BIN" run "$D/retries.json" --headless --no-record
expect "scenario: missing file" 2 "missing.json" -- "$BIN" run "$D/missing.json" --headless
expect "demo: unknown name" 2 "nosuchdemo" -- "$BIN" demo nosuchdemo --headless
expect "usage: --speed 0" 2 "speed" -- "$BIN" demo build --speed 0 --headless
expect "usage: unknown option" 2 "^taskview: (unknown|Unknown)" -- "$BIN" --frobnicate
expect "usage: subcommand's unknown option" 2 "^Usage: taskview run " -- "$BIN" run x.json --frobnicate
# A progress pattern too costly to match (0.1 s a 4 KiB line before issue 42) is refused at load.
printf '{"kind":"command","name":"c","run":"true",\n "progress":"(.*a){1000}"}\n' >"$D/costly.json"
expect "scenario: costly progress pattern" 2 \
    'costly.json:2:[0-9]+: .*invalid progress pattern "\(\.\*a\)\{1000\}": the pattern is too large to match fast \(over 192 steps a byte, at most 48\)' \
    '[ ! -s "$D/out" ]' -- "$BIN" run "$D/costly.json" --headless --no-record
# -j as make users write it: a negative or zero count is a count that is too small.
printf '{"kind":"command","name":"t","run":"true"}\n' >"$D/one.json"
for j in "-j -1" "-j-1" "--jobs -1" "--jobs=-1" "-j=-1"; do
    # shellcheck disable=SC2086 # the option and its value are two words or one, as typed
    expect "usage: run $j" 2 "^taskview: --jobs must be at least 1 \(got -1\)" '[ ! -s "$D/out" ]' \
        -- "$BIN" run "$D/one.json" --headless --no-record $j
done
expect "usage: run -j0" 2 "^taskview: --jobs must be at least 1 \(got 0\)" -- "$BIN" run "$D/one.json" --headless --no-record -j0
expect "usage: -j4 joined, before the subcommand" 0 "" -- "$BIN" -j4 run "$D/one.json" --headless --no-record
expect "usage: demo --speed 0 names demo" 2 "^Usage: taskview demo " -- "$BIN" demo build --speed 0 --headless
printf 'not json at all\n' >"$D/text.txt"
expect "run: not a scenario file" 2 "^taskview: .*text.txt is not a scenario file" -- "$BIN" run "$D/text.txt" --headless
# ... and not a JSON error.
expect "run: a binary file" 2 "is not a scenario file" '! grep -q "unexpected character" "$D/err"' \
    -- "$BIN" run "$BIN" --headless

# Replay logs, made from a real recorded run.
"$BIN" demo pipeline --headless --record "$D/ok.jsonl" >/dev/null 2>&1
expect "log: a good log replays" 0 "" -- "$BIN" replay "$D/ok.jsonl" --headless
sed '1s/"version":1/"version":2/' "$D/ok.jsonl" >"$D/v2.jsonl"
expect "log: unknown major version" 2 "v2.jsonl: line 1: .*version 2" -- "$BIN" replay "$D/v2.jsonl" --headless
awk 'NR==50{print "{\"seq\":49,\"t\":garbage"; next}{print}' "$D/ok.jsonl" >"$D/corrupt.jsonl"
expect "log: corrupt middle line" 2 "corrupt.jsonl: line 50: " -- "$BIN" replay "$D/corrupt.jsonl" --headless
expect "log: --skip-bad-lines counts them" 0 "skipped 1 bad line" -- "$BIN" replay "$D/corrupt.jsonl" --headless --skip-bad-lines
awk 'NR==6{print "{\"seq\":5,\"t\":0,\"ev\":\"add\",\"id\":-5,\"kind\":\"task\",\"name\":\"x\",\"weight\":1}"; next}{print}' "$D/ok.jsonl" >"$D/neg.jsonl"
expect "log: negative id" 2 "neg.jsonl: line 6: .*-5" -- "$BIN" replay "$D/neg.jsonl" --headless
awk 'NR==6{print "{\"seq\":5,\"t\":0,\"ev\":\"parent\",\"id\":1,\"parent\":999,\"index\":0}"; next}{print}' "$D/ok.jsonl" >"$D/parent.jsonl"
expect "log: parent that does not exist" 2 "parent.jsonl: line 6: .*999" -- "$BIN" replay "$D/parent.jsonl" --headless
awk 'NR==6{print "{\"seq\":5,\"t\":0,\"ev\":\"parent\",\"id\":0,\"parent\":1,\"index\":0}"; next} NR==7{print "{\"seq\":6,\"t\":0,\"ev\":\"parent\",\"id\":1,\"parent\":0,\"index\":0}"; next}{print}' "$D/ok.jsonl" >"$D/cycle.jsonl"
expect "log: cycle" 2 "cycle.jsonl: line 7: .*cycle" -- "$BIN" replay "$D/cycle.jsonl" --headless
{ head -n 9 "$D/ok.jsonl"; head -c 104857600 /dev/zero | tr '\0' 'x'; echo; tail -n +10 "$D/ok.jsonl"; } >"$D/huge.jsonl"
expect "log: a 100 MB line" 2 "huge.jsonl: line 10: .*longer than" -- "$BIN" replay "$D/huge.jsonl" --headless
head -c $(( $(stat -c %s "$D/ok.jsonl") / 2 )) "$D/ok.jsonl" >"$D/cut.jsonl"
expect "log: truncated mid-line replays, root never settled" 3 "cut.jsonl: truncated after seq [0-9]+" -- "$BIN" replay "$D/cut.jsonl" --headless
expect "log: missing file" 2 "nope.jsonl" -- "$BIN" replay "$D/nope.jsonl" --headless
expect "log: -k is an option of a run" 2 "-k/--keep-going is an option of a run" '[ ! -s "$D/out" ]' \
    -- "$BIN" replay -k "$D/ok.jsonl" --headless
expect "log: --keep-going before replay" 2 "-k/--keep-going is an option of a run" -- "$BIN" --keep-going replay "$D/ok.jsonl"
expect "report: -k is unknown" 2 "Unknown option '-k'" -- "$BIN" report -k "$D/ok.jsonl"
expect "run: a replay log suggests replay" 2 "ok.jsonl is a replay log.*taskview replay" -- "$BIN" run "$D/ok.jsonl" --headless
expect "replay: a scenario file suggests run" 2 "comma.json is a scenario file.*taskview run" -- "$BIN" replay "$D/comma.json" --headless
expect "replay: --speed 0 is refused with replay's usage" 2 "^Usage: taskview replay " -- "$BIN" replay "$D/ok.jsonl" --speed 0 --headless
expect "replay: --speed 0 message" 2 "^taskview: --speed must be (a number greater than 0|between 1/64 and 64)" -- "$BIN" replay "$D/ok.jsonl" --speed 0 --headless
expect "replay: --speed 100 is out of range" 2 "^taskview: --speed must be between 1/64 and 64 \(got 100\)" -- "$BIN" replay "$D/ok.jsonl" --speed 100 --headless
expect "replay: --speed 1/128 is out of range" 2 "between 1/64 and 64" -- "$BIN" replay "$D/ok.jsonl" --speed 0.0078125 --headless
expect "replay: --speed 64 is fine" 0 "" -- "$BIN" replay "$D/ok.jsonl" --speed 64 --headless
expect "export: bad format" 2 "format|Format" -- "$BIN" export "$D/ok.jsonl" --format svg

# Options before the subcommand are the subcommand's (issue 13): same run, or its own refusal.
"$BIN" demo flaky --seed 3 --headless --no-record >"$D/after.out" 2>/dev/null
after=$?
"$BIN" demo flaky --seed 4 --headless --no-record >"$D/other.out" 2>/dev/null
expect "leading options: --seed 3 demo NAME runs" "$after" "" -- "$BIN" --seed 3 --headless --no-record demo flaky
seed_is_used() { cmp -s "$D/out" "$D/after.out" && ! cmp -s "$D/out" "$D/other.out"; }
run_test "leading options: the seed is used, as after the subcommand" seed_is_used
expect "leading options: --record PATH demo writes PATH" 0 "Log written to .*lead.jsonl" '[ -s "$D/lead.jsonl" ]' \
    -- "$BIN" --record "$D/lead.jsonl" demo pipeline --headless
expect "leading options: replay refuses --record" 2 "^taskview: .*no --record" '[ ! -e "$D/x.jsonl" ]' \
    -- "$BIN" --record "$D/x.jsonl" replay "$D/ok.jsonl" --headless
expect "replay refuses --seed" 2 "^taskview: .*no --record or --seed" -- "$BIN" replay "$D/ok.jsonl" --seed 3 --headless
# What replay refuses, its help does not offer.
help_offers_no_record() { ! "$BIN" replay --help 2>&1 | grep -qE -- '--(record|seed|no-record)'; }
run_test "replay --help does not offer --record or --seed" help_offers_no_record
# The man page is made from the help texts (.ci/install): a backtick there prints literally.
help_has_no_backticks() {
    n=$("$BIN" --experimental-dump-help | grep -o '`' | wc -l)
    [ "$n" -eq 0 ] || { echo "    | $n backticks in the help texts (Sources/taskview)"; return 1; }
}
run_test "help texts (the man page) have no backticks" help_has_no_backticks
expect "leading options: unknown one gets the subcommand's usage" 2 "^Usage: taskview run " -- "$BIN" --frobnicate run "$D/comma.json"
expect "leading options: attach refuses --seed" 2 "attach takes no --seed" -- "$BIN" --seed 3 attach --list

e2e_summary
