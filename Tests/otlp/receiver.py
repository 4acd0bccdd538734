#!/usr/bin/env python3
"""A minimal OTLP/HTTP trace receiver for tests, on 127.0.0.1 only.

Usage: receiver.py OUT.jsonl PORTFILE

Listens on 127.0.0.1 (a free port, written to PORTFILE once listening), accepts
POST /v1/traces in http/protobuf or http/json (gunzipping `Content-Encoding: gzip`), decodes it
with opentelemetry-proto's ExportTraceServiceRequest and appends one JSON line per span to
OUT.jsonl: service, trace_id, span_id, parent_span_id (hex; "" for none), name, status code and
message, attributes, event names, start and end, when it arrived and its Content-Type. http/json
ids are hex, turned into base64 for protobuf's JSON parser. Answers 200 with an empty
ExportTraceServiceResponse. Runs until killed.
"""
import base64
import gzip
import json
import os
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from google.protobuf import json_format
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)

OUT = sys.argv[1]


def attribute_value(v):
    kind = v.WhichOneof("value")
    return getattr(v, kind) if kind in ("string_value", "int_value", "double_value", "bool_value") else None


def hex_ids_to_base64(doc):
    """OTLP/JSON writes ids as hex; protobuf's JSON mapping reads bytes as base64. An id that
    is not 32 or 16 hex digits (a sender that writes base64, as swift-otel does) is kept."""
    hexdigits = set("0123456789abcdefABCDEF")
    for rs in doc.get("resourceSpans", []):
        for ss in rs.get("scopeSpans", []):
            for span in ss.get("spans", []):
                for key in ("traceId", "spanId", "parentSpanId"):
                    value = span.get(key)
                    if isinstance(value, str) and len(value) in (16, 32) and set(value) <= hexdigits:
                        span[key] = base64.b64encode(bytes.fromhex(value)).decode()
    return doc


class Handler(BaseHTTPRequestHandler):
    def do_POST(self):
        if self.path != "/v1/traces":
            self.send_error(404)
            return
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        if self.headers.get("Content-Encoding", "") == "gzip":
            body = gzip.decompress(body)
        request = ExportTraceServiceRequest()
        content_type = self.headers.get("Content-Type", "")
        try:
            if "json" in content_type:
                json_format.Parse(json.dumps(hex_ids_to_base64(json.loads(body))), request)
            else:
                request.ParseFromString(body)
        except Exception as e:  # a test receiver: say what was wrong
            self.send_error(400, str(e))
            return
        with open(OUT, "a", encoding="utf-8") as f:
            for rs in request.resource_spans:
                service = next((a.value.string_value for a in rs.resource.attributes if a.key == "service.name"), "")
                for ss in rs.scope_spans:
                    for s in ss.spans:
                        f.write(json.dumps({
                            "service": service,
                            "trace_id": s.trace_id.hex(),
                            "span_id": s.span_id.hex(),
                            "content_type": content_type,
                            "parent_span_id": s.parent_span_id.hex(),
                            "name": s.name,
                            "status": s.status.code,
                            "message": s.status.message,
                            "attributes": {a.key: attribute_value(a.value) for a in s.attributes},
                            "events": [e.name for e in s.events],
                            "start": s.start_time_unix_nano,
                            "end": s.end_time_unix_nano,
                            "received": time.time_ns(),
                        }) + "\n")
        response = ExportTraceServiceResponse().SerializeToString()
        self.send_response(200)
        if "json" in content_type:
            response = b"{}"
            self.send_header("Content-Type", "application/json")
        else:
            self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", str(len(response)))
        self.end_headers()
        self.wfile.write(response)

    def log_message(self, *args):
        pass


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
with open(sys.argv[2] + ".tmp", "w") as f:
    f.write(str(server.server_address[1]))
# Renamed into place only once the port is known: readers poll for the file.
os.rename(sys.argv[2] + ".tmp", sys.argv[2])
server.serve_forever()
