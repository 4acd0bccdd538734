/// A node's input key in the run history: FNV-1a 64 of its own definition in the scenario
/// (kind, what it runs, cwd, env, needs and the rest of its fields, not its children's), as
/// 16 hex digits. The same definition gives the same key on every machine and run.
package enum DefinitionKey {
    /// The key of every node of `scenario`, by its `NodePath` (the scenario's own nodes;
    /// the rows the builder adds, such as a retry's later attempts, have none).
    package static func keys(_ scenario: Scenario) -> [String: String] {
        var out: [String: String] = [:]
        func walk(_ node: ScenarioNode, _ path: String) {
            out[path] = key(node)
            var seen: [String: Int] = [:]
            for child in node.children {
                let name = Sanitizer.clean(child.name)
                let ordinal = (seen[name] ?? 0) + 1
                seen[name] = ordinal
                walk(child, path + "/" + NodePath.component(name, ordinal: ordinal))
            }
        }
        walk(scenario.root, NodePath.component(Sanitizer.clean(scenario.root.name), ordinal: 1))
        return out
    }

    /// The key of one node's definition.
    package static func key(_ node: ScenarioNode) -> String {
        let hash = fnv1a64(canonical(node))
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        for shift in stride(from: 60, through: 0, by: -4) { out.append(digits[Int((hash >> UInt64(shift)) & 0xF)]) }
        return String(decoding: out, as: UTF8.self)
    }

    /// The definition as text: one `field=value` line per field, each value prefixed by its
    /// length in bytes, so no two definitions share a text.
    static func canonical(_ n: ScenarioNode) -> String {
        var text = ""
        func field(_ name: String, _ value: String) {
            text += name + "=" + String(value.utf8.count) + ":" + value + "\n"
        }
        field("kind", n.kind.rawValue)
        field("name", n.name)
        switch n.run {
        case .shell(let s): field("run", s)
        case .argv(let a):
            field("argv", String(a.count))
            for arg in a { field("arg", arg) }
        case nil: break
        }
        if let cwd = n.cwd { field("cwd", cwd) }
        for (k, v) in n.env.sorted(by: { $0.key < $1.key }) { field("env", k + "=" + v) }
        for need in n.needs { field("need", need) }
        if let id = n.id { field("id", id) }
        if n.allowFailure { field("allowFailure", "true") }
        if let weight = n.weight { field("weight", "\(weight)") }
        switch n.kind {
        case .work:
            field("duration", "\(n.duration)")
            field("steps", "\(n.steps)")
            for p in n.phases { field("phase", p) }
            if n.fail { field("fail", "true") }
            if let at = n.failAt { field("failAt", "\(at)") }
            if let p = n.failProbability { field("failProbability", "\(p)") }
            if let m = n.message { field("message", m) }
        case .retry: field("attempts", "\(n.attempts)")
        case .timeout: field("seconds", "\(n.seconds)")
        case .command:
            if let p = n.progress { field("progress", p) }
            if let g = n.grace { field("grace", "\(g)") }
        default: break
        }
        return text
    }

    /// FNV-1a, 64 bits.
    package static func fnv1a64(_ text: String) -> UInt64 {
        var h: UInt64 = 0xCBF2_9CE4_8422_2325
        for b in text.utf8 {
            h ^= UInt64(b)
            h &*= 0x0000_0100_0000_01B3
        }
        return h
    }
}
