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

    /// What matching costs at most, in `PikeVM` steps per byte of the line: each instruction
    /// but a jump is visited at most once per scalar, and each thread (at a reading
    /// instruction) steps once; a Unicode class looked up for a scalar above the Basic Multilingual Plane costs
    /// about 28 steps, and such a scalar takes 4 bytes.
    let cost: Int

    /// The most a pattern may cost: 48 steps a byte are about 1 ms for a 4 KiB line in a
    /// release build (4-5 ns a step on a busy 2-core machine). Repetitions and
    /// alternatives multiply a pattern's instructions; more would be refused.
    static let maxCost = 48

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
        cost = Self.cost(of: compiler.code, sets: compiler.sets)
        guard cost <= Self.maxCost else { throw Self.tooLarge(cost) }
    }

    private static func tooLarge(_ cost: Int) -> PatternError {
        let size = cost > maxCost * 4 ? "over \(maxCost * 4)" : "\(cost)"
        return PatternError(
            "the pattern is too large to match fast (\(size) steps a byte, at most \(maxCost)): "
                + "use fewer repetitions or alternatives")
    }

    /// `cost` of a program: steps per byte, at most.
    private static func cost(of code: [Instruction], sets: [ScalarSet]) -> Int {
        // Jumps are never visited (`PikeVM` follows them when it loads the program).
        var steps = 0
        for instruction in code {
            switch instruction {
            // A save is undone on the way back: two steps.
            case .scalar, .any, .set, .match, .save: steps += 2
            case .jump: break
            default: steps += 1
            }
        }
        // Property lookups per class (`ScalarClass.contains`), for each class any set uses.
        let lookups: [ScalarClass: Int] = [
            .digit: 1, .word: 3, .space: 1, .alpha: 1, .alnum: 2, .upper: 1, .lower: 1, .punct: 1,
            .xdigit: 0, .cntrl: 1, .print: 1, .graph: 2, .blank: 0,
        ]
        let classes = Set(sets.flatMap { $0.classes.map(\.0) })
        let slow = classes.reduce(0) { $0 + lookups[$1]! }
        return max(steps, (steps + 28 * slow + 3) / 4)
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
            // Every instruction costs a step: stop expanding as soon as it is too many.
            guard code.count <= 4 * PatternProgram.maxCost else {
                throw PatternProgram.tooLarge(code.count)
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
