#!/usr/bin/env python3
"""Checks for Tests/e2e/otlp-live.sh on what receiver.py got from `taskview run` streaming live.

Usage: check_live.py CHECK SPANS.jsonl [ARG...]; exit status 0 when the check holds, else 1
with the reason on stdout.
  attributes SPANS         the CI/CD and process attributes of the pipeline and its commands
  traceparent SPANS FILE   FILE holds the TRACEPARENT the command "print traceparent" got:
                           the run's trace id and that command's own span id
  export SPANS EXPORT.json the export of the run's log has the same spans (ids, parents,
                           names) and the same CI/CD attributes
  content-type SPANS TYPE  every request came with this Content-Type
"""
import json
import sys


def fail(message):
    print(message)
    sys.exit(1)


def load(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def by_name(spans):
    out = {}
    for s in spans:
        if s["name"] in out:
            fail(f"span {s['name']!r} arrived twice")
        out[s["name"]] = s
    return out


def expect(span, key, want):
    got = span["attributes"].get(key)
    if got != want:
        fail(f"{span['name']}: {key} is {got!r}, expected {want!r}")


def attributes(spans):
    s = by_name(spans)
    root = s.get("live pipeline") or fail(f"no root span among {sorted(s)}")
    expect(root, "cicd.pipeline.name", "live pipeline")
    expect(root, "cicd.pipeline.result", "failure")
    run_id = root["attributes"].get("cicd.pipeline.run.id", "")
    if len(run_id) != 16:
        fail(f"cicd.pipeline.run.id {run_id!r} is not 16 hex digits")
    first, fails = s["first"], s["fails"]
    expect(first, "cicd.pipeline.task.name", "first")
    expect(first, "cicd.pipeline.task.run.id", first["span_id"])
    expect(first, "cicd.pipeline.task.run.result", "success")
    expect(first, "process.command_line", "echo first")
    expect(first, "process.exit.code", 0)
    if not isinstance(first["attributes"].get("process.pid"), int) or first["attributes"]["process.pid"] <= 1:
        fail(f"first: process.pid is {first['attributes'].get('process.pid')!r}")
    expect(fails, "cicd.pipeline.task.run.result", "failure")
    expect(fails, "process.exit.code", 3)
    if fails["status"] != 2 or fails["message"] != "exit status 3: broken":
        fail(f"fails: status {fails['status']} {fails['message']!r}")
    for span in spans:
        if span["trace_id"] != root["trace_id"]:
            fail(f"{span['name']} is in trace {span['trace_id']}, the root in {root['trace_id']}")
        if span is not root and span["parent_span_id"] != root["span_id"]:
            fail(f"{span['name']}'s parent is {span['parent_span_id']}, not the root {root['span_id']}")


def traceparent(spans, path):
    s = by_name(spans)["print traceparent"]
    with open(path, encoding="utf-8") as f:
        got = f.read().strip()
    want = f"00-{s['trace_id']}-{s['span_id']}-01"
    if got != want:
        fail(f"the command got TRACEPARENT {got!r}, its span is {want!r}")


def export(spans, path):
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    exported = {}
    for rs in doc["resourceSpans"]:
        for ss in rs["scopeSpans"]:
            for span in ss["spans"]:
                attrs = {a["key"]: a["value"] for a in span["attributes"]}
                exported[span["spanId"]] = (span["traceId"], span.get("parentSpanId", ""), span["name"], attrs)
    live = {s["span_id"]: s for s in spans}
    if set(live) != set(exported):
        fail(f"live span ids {sorted(live)} differ from the export's {sorted(exported)}")
    for sid, (trace, parent, name, attrs) in exported.items():
        s = live[sid]
        if (s["trace_id"], s["parent_span_id"], s["name"]) != (trace, parent, name):
            fail(f"{name}: live {s['trace_id']}/{s['parent_span_id']}, exported {trace}/{parent}")
        for key, value in s["attributes"].items():
            if key.startswith("cicd.") or key == "process.exit.code":
                got = next(iter(attrs.get(key, {"missing": None}).values()))
                if str(got) != str(value):
                    fail(f"{name}: {key} live {value!r}, exported {got!r}")


def content_type(spans, want):
    types = {s["content_type"] for s in spans}
    if types != {want}:
        fail(f"requests came as {sorted(types)}, expected {want}")


check, path = sys.argv[1], sys.argv[2]
spans = load(path)
if not spans:
    fail("no span arrived")
if check == "attributes":
    attributes(spans)
elif check == "traceparent":
    traceparent(spans, sys.argv[3])
elif check == "export":
    export(spans, sys.argv[3])
elif check == "content-type":
    content_type(spans, sys.argv[3])
else:
    fail(f"unknown check {check}")
