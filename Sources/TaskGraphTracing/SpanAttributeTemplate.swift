import Tracing

/// Builds a span's `taskgraph.kind`/`id`/`weight` attributes without hashing their names per
/// span: a dictionary holding the three keys is built once, and each span's is a copy of it
/// (buckets copied as they are) with the values replaced through indices found once. A
/// dictionary literal hashed each of the three strings again for every span.
struct SpanAttributeTemplate {
    private let template: [String: SpanAttribute]
    private let kindAt: Dictionary<String, SpanAttribute>.Index
    private let idAt: Dictionary<String, SpanAttribute>.Index
    private let weightAt: Dictionary<String, SpanAttribute>.Index

    init() {
        var t: [String: SpanAttribute] = [:]
        t.reserveCapacity(4)
        t[TaskGraphSpanAttribute.kind] = .string("")
        t[TaskGraphSpanAttribute.id] = .int64(0)
        t[TaskGraphSpanAttribute.weight] = .double(0)
        template = t
        kindAt = t.index(forKey: TaskGraphSpanAttribute.kind)!
        idAt = t.index(forKey: TaskGraphSpanAttribute.id)!
        weightAt = t.index(forKey: TaskGraphSpanAttribute.weight)!
    }

    func make(kind: String, id: Int, weight: Double) -> SpanAttributes {
        var d = template   // the first write copies the storage, indices stay valid
        d.values[kindAt] = .string(kind)
        d.values[idAt] = .int64(Int64(id))
        d.values[weightAt] = .double(weight)
        return SpanAttributes(d)
    }
}
