/// An `ExportTraceServiceRequest` in protobuf's binary encoding (`http/protobuf`), written
/// by hand for the few messages and fields the spans use (field numbers from
/// opentelemetry-proto's trace.proto, common.proto and resource.proto, v1); the e2e test
/// decodes it with opentelemetry-proto's own classes.
package enum OTLPProtobuf {
    /// The request: one `ResourceSpans` per service (`resource`, its `service.name` an attached
    /// program's for that program's spans), each with one `ScopeSpans` named `taskgraph`.
    package static func request(resource: [(key: String, value: OTLPValue)], spans: [OTLPSpan]) -> [UInt8] {
        var out: [UInt8] = []
        for group in OTLPSpan.byService(spans) {
            var res: [UInt8] = []
            for a in OTLPSpan.resource(resource, service: group.service) {
                message(&res, 1, keyValue(a.key, a.value)) // Resource.attributes
            }
            var scope: [UInt8] = []
            string(&scope, 1, "taskgraph") // InstrumentationScope.name
            var scopeSpans: [UInt8] = []
            message(&scopeSpans, 1, scope) // ScopeSpans.scope
            for s in group.spans { message(&scopeSpans, 2, span(s)) } // ScopeSpans.spans
            var resourceSpans: [UInt8] = []
            message(&resourceSpans, 1, res) // ResourceSpans.resource
            message(&resourceSpans, 2, scopeSpans) // ResourceSpans.scope_spans
            message(&out, 1, resourceSpans) // ExportTraceServiceRequest.resource_spans
        }
        return out
    }

    static func span(_ s: OTLPSpan) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(256)
        bytes(&out, 1, bigEndian(s.traceHigh) + bigEndian(s.traceLow)) // trace_id
        bytes(&out, 2, bigEndian(s.spanID)) // span_id
        if s.parentSpanID != 0 { bytes(&out, 4, bigEndian(s.parentSpanID)) } // parent_span_id
        string(&out, 5, s.name)
        tag(&out, 6, 0) // kind: SPAN_KIND_INTERNAL
        varint(&out, 1)
        fixed64(&out, 7, s.start)
        fixed64(&out, 8, s.end)
        for a in s.attributes { message(&out, 9, keyValue(a.key, a.value)) }
        for e in s.events {
            var ev: [UInt8] = []
            fixed64(&ev, 1, e.time)
            string(&ev, 2, e.name)
            for a in e.attributes { message(&ev, 3, keyValue(a.key, a.value)) }
            message(&out, 11, ev)
        }
        if let error = s.error {
            var status: [UInt8] = []
            if let m = error { string(&status, 2, m) }
            tag(&status, 3, 0) // code: STATUS_CODE_ERROR
            varint(&status, 2)
            message(&out, 15, status)
        }
        return out
    }

    static func keyValue(_ key: String, _ value: OTLPValue) -> [UInt8] {
        var v: [UInt8] = []
        switch value {
        case .string(let s): string(&v, 1, s)
        case .int(let i):
            tag(&v, 3, 0)
            varint(&v, UInt64(bitPattern: Int64(i)))
        case .double(let d):
            tag(&v, 4, 1)
            append64(&v, d.bitPattern)
        }
        var out: [UInt8] = []
        string(&out, 1, key)
        message(&out, 2, v)
        return out
    }

    static func tag(_ out: inout [UInt8], _ field: UInt64, _ wireType: UInt64) {
        varint(&out, field << 3 | wireType)
    }

    static func varint(_ out: inout [UInt8], _ value: UInt64) {
        var v = value
        while v >= 0x80 {
            out.append(UInt8(truncatingIfNeeded: v) | 0x80)
            v >>= 7
        }
        out.append(UInt8(v))
    }

    static func bytes(_ out: inout [UInt8], _ field: UInt64, _ value: [UInt8]) {
        tag(&out, field, 2)
        varint(&out, UInt64(value.count))
        out.append(contentsOf: value)
    }

    static func message(_ out: inout [UInt8], _ field: UInt64, _ value: [UInt8]) { bytes(&out, field, value) }

    static func string(_ out: inout [UInt8], _ field: UInt64, _ value: String) { bytes(&out, field, Array(value.utf8)) }

    static func fixed64(_ out: inout [UInt8], _ field: UInt64, _ value: UInt64) {
        tag(&out, field, 1)
        append64(&out, value)
    }

    /// Little-endian, as protobuf's fixed64 and double.
    static func append64(_ out: inout [UInt8], _ value: UInt64) {
        for k in 0..<8 { out.append(UInt8(truncatingIfNeeded: value >> (8 * UInt64(k)))) }
    }

    static func bigEndian(_ value: UInt64) -> [UInt8] {
        (0..<8).map { UInt8(truncatingIfNeeded: value >> (8 * UInt64(7 - $0))) }
    }
}
