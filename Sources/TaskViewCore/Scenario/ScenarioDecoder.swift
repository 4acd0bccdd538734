import TaskGraphProcess

/// Turns parsed JSON into a `Scenario`, checking every field: unknown fields, wrong types
/// and invalid values are errors naming the position and the node's JSON path.
package enum ScenarioDecoder {
    /// Most nodes a scenario may expand to (with `repeat`).
    package static let maxNodes = 1_000_000
    package static let maxRepeat = 100_000
    package static let maxSteps = 100_000
    package static let maxDuration = 1_000_000.0
    package static let maxAttempts = 1000

    static let nulInRun = "\"run\" cannot contain a NUL character (\\u0000)"

    static let common: Set<String> = ["kind", "name", "weight", "repeat", "id", "needs", "allowFailure"]
    static let fields: [ScenarioNode.Kind: Set<String>] = [
        .work: common.union(["duration", "steps", "phases", "fail", "failAt", "failProbability", "message"]),
        .sequential: common.union(["children"]), .concurrent: common.union(["children"]),
        .allSettled: common.union(["children"]), .then: common.union(["children"]),
        .recover: common.union(["children"]), .retry: common.union(["children", "attempts"]),
        .timeout: common.union(["children", "seconds"]),
        .command: common.union(["run", "cwd", "env", "progress", "grace"]),
    ]
    /// Longest `grace` (seconds).
    package static let maxGrace = 3600.0

    /// Parses and validates scenario text. `file` names it in messages; relative `cwd`s of
    /// `command` nodes are resolved against `baseDirectory` (nil: the current directory)
    /// and must be directories by `isDirectory` (TaskViewIO's overload asks the file system).
    package static func decode(
        _ bytes: [UInt8], file: String, name: String,
        baseDirectory: String? = nil, isDirectory: @escaping (String) -> Bool
    ) throws(ScenarioError) -> Scenario {
        let json: JSONNode
        do {
            json = try JSONParser.parse(bytes)
        } catch {
            throw ScenarioError(file: file, position: error.position, message: error.message)
        }
        var d = Decoder(file: file, baseDirectory: baseDirectory, isDirectory: isDirectory)
        guard case .object(let members) = json.value else {
            throw d.fail(
                json.position, "$", "a scenario is one JSON object (the root node), not \(json.value.typeName)")
        }
        var description: String?
        var rootMembers = members
        if let i = members.firstIndex(where: { $0.key == "description" }) {
            let m = members[i]
            guard case .string(let s) = m.value.value else {
                throw d.fail(m.value.position, "$", "\"description\" must be a string")
            }
            description = s
            rootMembers.remove(at: i)
        }
        if let r = members.first(where: { $0.key == "repeat" }) {
            throw d.fail(r.keyPosition, "$", "the root node cannot have \"repeat\"")
        }
        let nodes = try d.node(JSONNode(value: .object(rootMembers), position: json.position), path: "$")
        let scenario = Scenario(name: name, description: description, root: nodes[0])
        try ScenarioBudget.check(scenario, file: file)
        try ScenarioNeeds.check(scenario, file: file)
        return scenario
    }

    struct Decoder {
        let file: String
        var baseDirectory: String? = nil
        /// Whether a resolved `cwd` is an existing directory.
        let isDirectory: (String) -> Bool
        var total = 0

        func fail(_ pos: JSONPosition, _ path: String, _ message: String) -> ScenarioError {
            ScenarioError(file: file, position: pos, message: "\(path): \(message)")
        }

        /// One node, expanded by `repeat` (so possibly several).
        mutating func node(_ json: JSONNode, path: String) throws(ScenarioError) -> [ScenarioNode] {
            guard case .object(let members) = json.value else {
                throw fail(json.position, path, "a node must be an object, not \(json.value.typeName)")
            }
            func member(_ key: String) -> JSONMember? { members.first { $0.key == key } }
            guard let kindMember = member("kind") else { throw fail(json.position, path, "missing \"kind\"") }
            guard case .string(let kindText) = kindMember.value.value else {
                throw fail(kindMember.value.position, path, "\"kind\" must be a string")
            }
            guard let kind = ScenarioNode.Kind(rawValue: kindText) else {
                let known = ScenarioNode.Kind.allCases.map(\.rawValue).joined(separator: ", ")
                throw fail(
                    kindMember.value.position, path, "unknown node kind \"\(kindText)\" (expected one of: \(known))")
            }
            guard let nameMember = member("name") else { throw fail(json.position, path, "missing \"name\"") }
            guard case .string(let name) = nameMember.value.value, !name.isEmpty else {
                throw fail(nameMember.value.position, path, "\"name\" must be a non-empty string")
            }
            let label = "\(path) (\(kindText) \"\(name.prefix(60))\")"
            let allowed = ScenarioDecoder.fields[kind]!
            for m in members where !allowed.contains(m.key) {
                let hint = m.key == "description" ? " (only the root may have a description)" : ""
                throw fail(m.keyPosition, label, "unknown field \"\(m.key)\" for a \(kindText) node\(hint)")
            }
            var node = ScenarioNode(kind: kind, name: name)
            var copies = 1
            for m in members {
                let pos = m.value.position
                func number(min: Double, max: Double, minInclusive: Bool = true) throws(ScenarioError) -> Double {
                    guard case .number(let v) = m.value.value else {
                        throw fail(pos, label, "\"\(m.key)\" must be a number, not \(m.value.value.typeName)")
                    }
                    guard minInclusive ? v >= min : v > min, v <= max else {
                        let lower = minInclusive ? ">= \(Self.show(min))" : "> \(Self.show(min))"
                        throw fail(
                            pos, label, "\"\(m.key)\" must be \(lower) and <= \(Self.show(max)), not \(Self.show(v))")
                    }
                    return v
                }
                func integer(min: Int, max: Int) throws(ScenarioError) -> Int {
                    guard case .number(let v) = m.value.value, v == v.rounded() else {
                        throw fail(pos, label, "\"\(m.key)\" must be an integer")
                    }
                    guard v >= Double(min), v <= Double(max) else {
                        throw fail(pos, label, "\"\(m.key)\" must be between \(min) and \(max), not \(Self.show(v))")
                    }
                    return Int(v)
                }
                func string() throws(ScenarioError) -> String {
                    guard case .string(let s) = m.value.value else {
                        throw fail(pos, label, "\"\(m.key)\" must be a string, not \(m.value.value.typeName)")
                    }
                    return s
                }
                switch m.key {
                case "weight": node.weight = try number(min: 0, max: 1e9)
                case "repeat": copies = try integer(min: 1, max: ScenarioDecoder.maxRepeat)
                case "duration": node.duration = try number(min: 0, max: ScenarioDecoder.maxDuration)
                case "steps": node.steps = try integer(min: 0, max: ScenarioDecoder.maxSteps)
                case "phases":
                    guard case .array(let items) = m.value.value else {
                        throw fail(pos, label, "\"phases\" must be an array of strings")
                    }
                    for item in items {
                        guard case .string(let s) = item.value else {
                            throw fail(item.position, label, "\"phases\" must be an array of strings")
                        }
                        node.phases.append(s)
                    }
                case "fail":
                    guard case .bool(let b) = m.value.value else {
                        throw fail(pos, label, "\"fail\" must be true or false")
                    }
                    node.fail = b
                case "allowFailure":
                    guard case .bool(let b) = m.value.value else {
                        throw fail(pos, label, "\"allowFailure\" must be true or false, not \(m.value.value.typeName)")
                    }
                    node.allowFailure = b
                case "failAt": node.failAt = try number(min: 0, max: ScenarioDecoder.maxDuration)
                case "failProbability": node.failProbability = try number(min: 0, max: 1)
                case "message": node.message = try string()
                case "attempts": node.attempts = try integer(min: 1, max: ScenarioDecoder.maxAttempts)
                case "seconds": node.seconds = try number(min: 0, max: ScenarioDecoder.maxDuration, minInclusive: false)
                case "run": node.run = try command(m, label: label)
                case "cwd": node.cwd = try directory(try string(), at: pos, label: label)
                case "env":
                    guard case .object(let vars) = m.value.value else {
                        throw fail(pos, label, "\"env\" must be an object of strings, not \(m.value.value.typeName)")
                    }
                    for v in vars {
                        guard case .string(let s) = v.value.value else {
                            throw fail(
                                v.value.position, label,
                                "\"env\" values must be strings (\"\(v.key)\" is \(v.value.value.typeName))")
                        }
                        guard !v.key.isEmpty, !v.key.contains("="), !v.key.contains("\0") else {
                            throw fail(v.keyPosition, label, "\"env\" has an invalid variable name \"\(v.key)\"")
                        }
                        guard !s.contains("\0") else {
                            throw fail(
                                v.value.position, label,
                                "\"env\": the value of \"\(v.key)\" contains a NUL character (\\u0000)")
                        }
                        node.env[v.key] = s
                    }
                case "progress":
                    let pattern = try string()
                    do {
                        try CommandProgress.validate(pattern)
                    } catch {
                        throw fail(pos, label, "\"progress\": \(error.description)")
                    }
                    node.progress = pattern
                case "grace": node.grace = try number(min: 0, max: ScenarioDecoder.maxGrace)
                case "id":
                    node.id = try ScenarioNeeds.id(try string(), at: pos, label: label, file: file)
                    node.idPosition = pos
                case "needs":
                    (node.needs, node.needsPositions) = try ScenarioNeeds.needs(m.value, label: label, file: file)
                default: break // kind, name, children
                }
            }
            if kind == .command && member("run") == nil {
                throw fail(
                    json.position, label,
                    "a command node needs \"run\" (a string for /bin/sh -c, or an array of strings)")
            }
            if kind == .timeout && member("seconds") == nil {
                throw fail(json.position, label, "a timeout node needs \"seconds\"")
            }
            if kind != .work && kind != .command {
                guard let c = member("children") else { throw fail(json.position, label, "missing \"children\"") }
                guard case .array(let items) = c.value.value else {
                    throw fail(c.value.position, label, "\"children\" must be an array of nodes")
                }
                var children: [ScenarioNode] = []
                for (i, item) in items.enumerated() {
                    children += try self.node(item, path: "\(path).children[\(i)]")
                }
                let need: Int? =
                    switch kind {
                    case .then, .recover: 2
                    case .retry, .timeout: 1
                    default: nil
                    }
                if let need, children.count != need {
                    throw fail(
                        c.value.position, label,
                        "a \(kindText) node needs exactly \(need == 1 ? "one child" : "two children"), not \(children.count)"
                    )
                }
                node.children = children
            }
            total += node.count * copies
            guard total <= ScenarioDecoder.maxNodes else {
                throw fail(json.position, label, "the scenario expands to more than \(ScenarioDecoder.maxNodes) nodes")
            }
            guard copies > 1 else { return [node] }
            return (1...copies).map { k in
                var copy = node
                copy.name = "\(name) \(k)"
                return copy
            }
        }

        /// `run`: a non-empty string (shell) or a non-empty array of strings (argv).
        func command(_ m: JSONMember, label: String) throws(ScenarioError) -> ScenarioNode.Command {
            let pos = m.value.position
            let want = "\"run\" must be a non-empty string or a non-empty array of strings"
            switch m.value.value {
            case .string(let s):
                guard !s.isEmpty else { throw fail(pos, label, want) }
                guard !s.contains("\0") else { throw fail(pos, label, ScenarioDecoder.nulInRun) }
                return .shell(s)
            case .array(let items):
                guard !items.isEmpty else { throw fail(pos, label, want + ", not an empty array") }
                var argv: [String] = []
                for item in items {
                    guard case .string(let s) = item.value else {
                        throw fail(item.position, label, want + " (found \(item.value.typeName))")
                    }
                    guard !s.contains("\0") else { throw fail(item.position, label, ScenarioDecoder.nulInRun) }
                    argv.append(s)
                }
                guard !argv[0].isEmpty else {
                    throw fail(items[0].position, label, "\"run\": the program name is empty")
                }
                return .argv(argv)
            default:
                throw fail(pos, label, want + ", not \(m.value.value.typeName)")
            }
        }

        /// `cwd` resolved against the scenario's directory; it must be an existing directory.
        func directory(_ path: String, at pos: JSONPosition, label: String) throws(ScenarioError) -> String {
            guard !path.isEmpty, !path.contains("\0") else {
                throw fail(pos, label, "\"cwd\" must be a non-empty path")
            }
            let resolved: String
            if path.hasPrefix("/") {
                resolved = path
            } else if let base = baseDirectory, !base.isEmpty, base != "." {
                resolved = base.hasSuffix("/") ? base + path : base + "/" + path
            } else {
                resolved = path
            }
            guard isDirectory(resolved) else {
                throw fail(pos, label, "\"cwd\" \"\(resolved)\" is not an existing directory")
            }
            return resolved
        }

        static func show(_ v: Double) -> String {
            v == v.rounded() && abs(v) < 1e15 ? String(Int(v)) : String(v)
        }
    }
}
