import Tracing

/// Builds a span's `taskgraph.kind`/`id`/`weight` attributes without hashing their names per
/// span: a dictionary holding the three keys is built once, and each span's is a copy of it
/// (buckets copied as they are) with values replaced through indices found once. A dictionary
/// literal hashed each of the three strings again for every span. The template keeps the
/// last kind and weight it was given, so a run of like nodes (most are `task`s of weight 1)
/// only writes the id into each copy.
struct SpanAttributeTemplate {
    private var template: [String: SpanAttribute]
    private var kind = ""
    private var weight = 0.0
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

    mutating func make(kind: String, id: Int, weight: Double) -> SpanAttributes {
        // The template's storage is ours alone here (each span's copy got storage of its own
        // at its first write), so these writes copy nothing.
        if kind != self.kind {
            self.kind = kind
            template.values[kindAt] = .string(kind)
        }
        if weight.bitPattern != self.weight.bitPattern {
            self.weight = weight
            template.values[weightAt] = .double(weight)
        }
        var d = template // the first write copies the storage, indices stay valid
        d.values[idAt] = .int64(Int64(id))
        return SpanAttributes(d)
    }
}
