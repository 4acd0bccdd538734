import Foundation
import Tracing

/// A `Tracer` that keeps every span it starts, for asserting what `Graph.trace(with:)` reports.
/// Ids are small counters ("t1", "s1"); `inject` writes `traceparent` as "TRACE-SPAN".
final class RecordingTracer: Tracer, @unchecked Sendable { // `spans`, counters behind `lock`
    typealias Span = RecordedSpan

    private let lock = NSLock()
    private var started: [RecordedSpan] = []
    private var nextTrace = 0
    private var nextSpan = 0

    var spans: [RecordedSpan] { lock.withLock { started } }
    func spans(named name: String) -> [RecordedSpan] { spans.filter { $0.name == name } }
    func span(_ name: String) -> RecordedSpan? { spans.first { $0.name == name } }

    func startSpan<Instant: TracerInstant>(
        _ operationName: String, context: @autoclosure () -> ServiceContext, ofKind kind: SpanKind,
        at instant: @autoclosure () -> Instant, function: String, file fileID: String, line: UInt
    ) -> RecordedSpan {
        var context = context()
        let parent = context.recordedSpanID
        let (trace, id): (String, String) = lock.withLock {
            nextSpan += 1
            if parent == nil { nextTrace += 1 }
            return (parent?.trace ?? "t\(nextTrace)", "s\(nextSpan)")
        }
        let ids = RecordedSpanID(trace: trace, span: id)
        context.recordedSpanID = ids
        let span = RecordedSpan(
            name: operationName, context: context, ids: ids, parent: parent?.span,
            start: instant().nanosecondsSinceEpoch)
        lock.withLock { started.append(span) }
        return span
    }

    func activeSpan(identifiedBy context: ServiceContext) -> RecordedSpan? {
        guard let ids = context.recordedSpanID else { return nil }
        return spans.first { $0.ids == ids && $0.end == nil }
    }

    func forceFlush() {}

    func inject<Carrier, Inject: Injector>(
        _ context: ServiceContext, into carrier: inout Carrier, using injector: Inject
    )
    where Inject.Carrier == Carrier {
        guard let ids = context.recordedSpanID else { return }
        injector.inject("\(ids.trace)-\(ids.span)", forKey: "traceparent", into: &carrier)
    }

    func extract<Carrier, Extract: Extractor>(
        _ carrier: Carrier, into context: inout ServiceContext, using extractor: Extract
    )
    where Extract.Carrier == Carrier {
        guard let value = extractor.extract(key: "traceparent", from: carrier) else { return }
        let parts = value.split(separator: "-").map(String.init)
        guard parts.count == 2 else { return }
        context.recordedSpanID = RecordedSpanID(trace: parts[0], span: parts[1])
    }
}

struct RecordedSpanID: Hashable, Sendable {
    var trace: String
    var span: String
}

private enum RecordedSpanKey: ServiceContextKey {
    typealias Value = RecordedSpanID
}

extension ServiceContext {
    var recordedSpanID: RecordedSpanID? {
        get { self[RecordedSpanKey.self] }
        set { self[RecordedSpanKey.self] = newValue }
    }
}

/// One span as the tracer saw it.
final class RecordedSpan: Span, @unchecked Sendable { // mutable parts behind `lock`
    let context: ServiceContext
    let ids: RecordedSpanID
    /// The parent span's id; nil for a trace's first span.
    let parent: String?
    let start: UInt64
    private let lock = NSLock()
    private var _name: String
    private var _attributes = SpanAttributes()
    private var _status: SpanStatus?
    private var _events: [SpanEvent] = []
    private var _end: UInt64?
    private var _ends = 0

    init(name: String, context: ServiceContext, ids: RecordedSpanID, parent: String?, start: UInt64) {
        _name = name
        self.context = context
        self.ids = ids
        self.parent = parent
        self.start = start
    }

    var name: String { lock.withLock { _name } }
    var operationName: String {
        get { lock.withLock { _name } }
        set { lock.withLock { _name = newValue } }
    }
    var attributes: SpanAttributes {
        get { lock.withLock { _attributes } }
        set { lock.withLock { _attributes = newValue } }
    }
    var status: SpanStatus? { lock.withLock { _status } }
    var events: [SpanEvent] { lock.withLock { _events } }
    var end: UInt64? { lock.withLock { _end } }
    /// How many times `end` was called (must be 1).
    var ends: Int { lock.withLock { _ends } }
    var isRecording: Bool { end == nil }

    func setStatus(_ status: SpanStatus) { lock.withLock { _status = status } }
    func addEvent(_ event: SpanEvent) { lock.withLock { _events.append(event) } }
    func recordError<Instant: TracerInstant>(
        _ error: any Error, attributes: SpanAttributes, at instant: @autoclosure () -> Instant
    ) {}
    func addLink(_ link: SpanLink) {}
    func end<Instant: TracerInstant>(at instant: @autoclosure () -> Instant) {
        let t = instant().nanosecondsSinceEpoch
        lock.withLock {
            _ends += 1
            if _end == nil { _end = t }
        }
    }

    func string(_ key: String) -> String? {
        if case .string(let s)? = attributes.get(key) { return s }
        return nil
    }
    func int(_ key: String) -> Int64? {
        if case .int64(let i)? = attributes.get(key) { return i }
        return nil
    }
    func double(_ key: String) -> Double? {
        if case .double(let d)? = attributes.get(key) { return d }
        return nil
    }
}
