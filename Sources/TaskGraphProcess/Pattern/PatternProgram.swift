/// A progress pattern compiled for the `PikeVM`: a list of instructions (Thompson's
/// construction), immutable and shared by every matcher of the pattern.
struct PatternProgram: Sendable {
    enum Instruction: Sendable {
        case scalar(Unicode.Scalar)
        /// Any scalar but a newline.
        case any
        /// A scalar of `sets[index]`.
        case set(Int)
        /// Try `first`, then (lower priority) `second`.
        case split(Int, Int)
        case jump(Int)
        /// Records the position in capture slot `n` (group g: slots 2g and 2g+1).
        case save(Int)
        case assertion(PatternAssertion)
        case match
    }

    let instructions: [Instruction]
    let sets: [UncheckedSet]
    /// Capture groups (group 0, the whole match, not counted).
    let groups: Int
    var slotCount: Int { 2 * (groups + 1) }

    /// The most instructions a pattern may compile to (repetitions multiply a group).
    static let maxInstructions = 20_000

    /// Parses and compiles `pattern`; throws the reason it cannot be used.
    init(_ pattern: String) throws(PatternError) {
        var parser = PatternParser(pattern)
        let node = try parser.parse()
        var compiler = Compiler()
        compiler.emit(.save(0))
        try compiler.compile(node)
        compiler.emit(.save(1))
        compiler.emit(.match)
        instructions = compiler.code
        sets = compiler.sets.map(UncheckedSet.init)
        groups = parser.captures
    }

    /// A `ScalarSet` (tuples of enums: not inferred Sendable, but never mutated once built).
    struct UncheckedSet: @unchecked Sendable {
        let set: ScalarSet
    }

    private struct Compiler {
        var code: [Instruction] = []
        var sets: [ScalarSet] = []

        mutating func emit(_ i: Instruction) {
            code.append(i)
        }

        /// Emits a placeholder to patch later; its index.
        mutating func hole() -> Int {
            code.append(.match)
            return code.count - 1
        }

        mutating func compile(_ node: PatternNode) throws(PatternError) {
            guard code.count <= PatternProgram.maxInstructions else {
                throw PatternError("the pattern is too large (its repetitions expand too far)")
            }
            switch node {
            case .empty: break
            case .scalar(let s): emit(.scalar(s))
            case .any: emit(.any)
            case .set(let s):
                sets.append(s)
                emit(.set(sets.count - 1))
            case .assertion(let a): emit(.assertion(a))
            case .group(let body, let capture):
                if let capture { emit(.save(2 * capture)) }
                try compile(body)
                if let capture { emit(.save(2 * capture + 1)) }
            case .concat(let items):
                for item in items { try compile(item) }
            case .alternation(let branches):
                var exits: [Int] = []
                for (k, branch) in branches.enumerated() {
                    if k == branches.count - 1 {
                        try compile(branch)
                    } else {
                        let split = hole()
                        try compile(branch)
                        exits.append(hole())
                        code[split] = .split(split + 1, code.count)
                    }
                }
                for e in exits { code[e] = .jump(code.count) }
            case .repetition(let body, let min, let max, let greedy):
                for _ in 0..<min { try compile(body) }
                if let max {
                    var splits: [Int] = []
                    for _ in min..<max {
                        splits.append(hole())
                        try compile(body)
                    }
                    for s in splits { code[s] = choice(s + 1, code.count, greedy) }
                } else {
                    let loop = hole()
                    try compile(body)
                    emit(.jump(loop))
                    code[loop] = choice(loop + 1, code.count, greedy)
                }
            }
        }

        private func choice(_ body: Int, _ out: Int, _ greedy: Bool) -> Instruction {
            greedy ? .split(body, out) : .split(out, body)
        }
    }
}
