#!/usr/bin/env python3
"""Checks `taskview export LOG --format otlp-json` against OpenTelemetry's own schema.

Usage: check_export.py LOG EXPORT.json

The export is parsed strictly (unknown fields are errors) by google.protobuf.json_format into
opentelemetry-proto's ExportTraceServiceRequest, after turning the OTLP/JSON hex ids into the
base64 that protobuf's JSON mapping expects. Then, against the replay log it came from:
one span per node that executed, every parentSpanId present in the same trace, error status
(code 2) exactly on failed and cancelled nodes (a cancelled one with the message `cancelled`),
and wall-clock times within a day of the header's `created`.
Prints what it checked; exits 1 on the first failure.
"""
import base64
import datetime
import json
import sys

from google.protobuf import json_format
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest


def fail(msg):
    print(f"check_export: FAIL: {msg}")
    sys.exit(1)


def hex_ids_to_base64(doc):
    for rs in doc.get("resourceSpans", []):
        for ss in rs.get("scopeSpans", []):
            for span in ss.get("spans", []):
                for key in ("traceId", "spanId", "parentSpanId"):
                    if key in span:
                        value = span[key]
                        want = 32 if key == "traceId" else 16
                        if len(value) != want or any(c not in "0123456789abcdef" for c in value):
                            fail(f"{key} {value!r} is not {want} lowercase hex digits")
                        span[key] = base64.b64encode(bytes.fromhex(value)).decode()
    return doc


def read_log(path):
    """The header and, per node id, whether it executed and whether it failed."""
    nodes = {}
    with open(path, encoding="utf-8") as f:
        header = json.loads(f.readline())
        for line in f:
            if not line.endswith("\n"):
                break  # a truncated last line, as the reader drops it
            e = json.loads(line)
            ev = e.get("ev")
            if ev == "add":
                nodes[e["id"]] = {"name": e["name"], "executed": False, "failed": False}
            elif ev == "snapshot":
                for n in e["nodes"]:
                    nodes.setdefault(n["id"], {"name": n["name"], "executed": False, "failed": False})
                    if n.get("state") in ("executing", "completed"):
                        nodes[n["id"]]["executed"] = True
                    if n.get("failed"):
                        nodes[n["id"]]["failed"] = True
                    nodes[n["id"]]["cancelled"] = n.get("state") == "cancelled"
            elif ev == "state" and e["id"] in nodes:
                if e["state"] == "executing":
                    nodes[e["id"]]["executed"] = True
                nodes[e["id"]]["cancelled"] = e["state"] == "cancelled"
                if e.get("failed"):
                    nodes[e["id"]]["failed"] = True
    return header, nodes


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        sys.exit(2)
    log_path, export_path = sys.argv[1], sys.argv[2]
    header, nodes = read_log(log_path)
    with open(export_path, encoding="utf-8") as f:
        doc = json.load(f)
    request = ExportTraceServiceRequest()
    try:
        json_format.Parse(json.dumps(hex_ids_to_base64(doc)), request, ignore_unknown_fields=False)
    except json_format.ParseError as e:
        fail(f"not a valid ExportTraceServiceRequest: {e}")
    print("ok   parses strictly as opentelemetry.proto ExportTraceServiceRequest")

    spans = [s for rs in request.resource_spans for ss in rs.scope_spans for s in ss.spans]
    services = [a.value.string_value for rs in request.resource_spans
                for a in rs.resource.attributes if a.key == "service.name"]
    if not services or not all(services):
        fail("no service.name resource attribute")
    print(f"ok   service.name = {services[0]!r}")

    by_node = {}
    for s in spans:
        ids = [a.value.int_value for a in s.attributes if a.key == "taskgraph.id"]
        if len(ids) != 1:
            fail(f"span {s.name!r} has no taskgraph.id")
        if ids[0] in by_node:
            fail(f"two spans for node {ids[0]}")
        by_node[ids[0]] = s
    executed = {i for i, n in nodes.items() if n["executed"]}
    if set(by_node) != executed:
        fail(f"spans for nodes {sorted(set(by_node) - executed)[:10]} that never ran, "
             f"none for {sorted(executed - set(by_node))[:10]}")
    for i, s in by_node.items():
        if s.name != nodes[i]["name"]:
            fail(f"span of node {i} is named {s.name!r}, not {nodes[i]['name']!r}")
    print(f"ok   one span per executed node ({len(spans)} spans, {len(nodes) - len(executed)} nodes never ran)")

    per_trace = {}
    for s in spans:
        per_trace.setdefault(s.trace_id, set()).add(s.span_id)
    for s in spans:
        if s.parent_span_id and s.parent_span_id not in per_trace[s.trace_id]:
            fail(f"span {s.name!r}: its parent is not in its trace")
    roots = sum(1 for s in spans if not s.parent_span_id)
    print(f"ok   every parent present ({len(per_trace)} traces, {roots} root spans)")

    for i, s in by_node.items():
        is_error = s.status.code == 2
        cancelled = nodes[i].get("cancelled", False)
        if is_error != (nodes[i]["failed"] or cancelled):
            fail(f"node {i} ({s.name!r}): failed={nodes[i]['failed']} cancelled={cancelled} "
                 f"but status code {s.status.code}")
        if is_error and not s.status.message:
            fail(f"node {i} ({s.name!r}): error status without a message")
        if cancelled and s.status.message != "cancelled":
            fail(f"node {i} ({s.name!r}): cancelled, but its status message is {s.status.message!r}")
    failed = sum(1 for n in nodes.values() if n["failed"] and n["executed"])
    cancelled = sum(1 for n in nodes.values() if n.get("cancelled") and n["executed"])
    print(f"ok   error status exactly on the {failed} failed and {cancelled} cancelled nodes")

    created = datetime.datetime.fromisoformat(header["created"].replace("Z", "+00:00")).timestamp()
    for s in spans:
        for t in (s.start_time_unix_nano, s.end_time_unix_nano):
            if abs(t / 1e9 - created) > 86400:
                fail(f"span {s.name!r}: time {t} is not within a day of created {header['created']}")
        if s.end_time_unix_nano < s.start_time_unix_nano:
            fail(f"span {s.name!r} ends before it starts")
    print("ok   wall-clock times within a day of the header's created")
    print("check_export: all passed")


if __name__ == "__main__":
    main()
