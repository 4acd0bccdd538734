#!/usr/bin/env python3
"""Checks the spans receiver.py got from Examples/otel's otel-demo (parent and child process).

Usage: check_e2e.py SPANS.jsonl
Both processes' spans in one trace, with the right parents: the parent's root "release" has no
parent; "build", "test", "deploy" are its children; the child process's root "child: roll out"
(service otel-demo-child) is a child of the parent's "deploy" span; its steps are below it.
"""
import json
import sys


def fail(msg):
    print(f"check_e2e: FAIL: {msg}")
    sys.exit(1)


spans = [json.loads(line) for line in open(sys.argv[1], encoding="utf-8")]
by_name = {}
for s in spans:
    if s["name"] in by_name:
        fail(f"two spans named {s['name']!r}")
    by_name[s["name"]] = s
want = ["release", "build", "test", "deploy", "child: roll out", "migrate database",
        "start services", "start web", "start worker"]
missing = [n for n in want if n not in by_name]
if missing:
    fail(f"missing spans {missing}; got {sorted(by_name)}")
traces = {s["trace_id"] for s in spans}
if len(traces) != 1:
    fail(f"{len(traces)} traces, want 1: {traces}")
print(f"ok   {len(spans)} spans from both processes in one trace")


def parent_is(child, parent):
    if by_name[child]["parent_span_id"] != (by_name[parent]["span_id"] if parent else ""):
        fail(f"{child!r}: parent span {by_name[child]['parent_span_id']!r}, want {parent!r}")


parent_is("release", None)
for n in ("build", "test", "deploy"):
    parent_is(n, "release")
parent_is("child: roll out", "deploy")
parent_is("migrate database", "child: roll out")
parent_is("start services", "child: roll out")
parent_is("start web", "start services")
parent_is("start worker", "start services")
print("ok   parents: release > build, test, deploy > child: roll out > migrate database, start services > start web, start worker")
services = {by_name["release"]["service"], by_name["child: roll out"]["service"]}
if services != {"otel-demo", "otel-demo-child"}:
    fail(f"services {services}")
print("ok   services otel-demo and otel-demo-child")
a = by_name["deploy"]["attributes"]
if a.get("taskgraph.kind") != "task" or not isinstance(a.get("taskgraph.id"), int) or a.get("taskgraph.weight") != 1:
    fail(f"deploy attributes {a}")
if by_name["migrate database"]["events"] != ["lock", "apply", "unlock"]:
    fail(f"migrate database events {by_name['migrate database']['events']}")
print("ok   attributes (taskgraph.kind/id/weight) and progress events arrive")
print("check_e2e: all passed")
