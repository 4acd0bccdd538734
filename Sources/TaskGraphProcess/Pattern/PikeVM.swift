/// Runs a `PatternProgram` over a line in one pass (Pike's VM): every thread advances one
/// scalar at a time, at most one thread per instruction, so a line of n scalars costs
/// O(n × instructions) whatever the pattern, with no backtracking. Threads are kept in
/// priority order, so the match and its captures are the ones a backtracking engine would
/// find first (leftmost, greedy or lazy as written), as Swift's `Regex` does (but for the
/// captures of a group repeated by an iteration that matched nothing). Its buffers are
/// allocated once: one VM per reader, never shared between threads.
final class PikeVM {
    private let program: PatternProgram
    private let size: Int
    private let slots: Int
    /// The instructions, flattened: opcode and two operands each. Jumps are followed here,
    /// once (`arg2` of a reading instruction, a save or an assertion is where it goes on), so
    /// matching never visits one.
    private let ops: UnsafeMutablePointer<Op>
    private let arg1: UnsafeMutablePointer<Int>
    private let arg2: UnsafeMutablePointer<Int>
    private var current: ThreadList
    private var next: ThreadList
    /// The captures of the thread being added.
    private let scratch: UnsafeMutablePointer<Int>
    /// Pending work of `add`: (pc, `visit`) visits pc; (slot, value) restores a capture slot.
    private let stack: UnsafeMutablePointer<(Int, Int)>
    private let sets: ScalarSetTable
    /// The captures of the match (byte offsets in pairs per group, -1 when unset).
    private(set) var captures: [Int]
    /// The work of the last `firstMatch`: instructions visited plus threads stepped. A line
    /// of n scalars costs at most (n + 1) × `PatternProgram.cost` of them.
    private(set) var steps = 0

    fileprivate static let visit = Int.min
    fileprivate static let assertions: [PatternAssertion] = [.start, .end, .wordBoundary, .notWordBoundary]

    fileprivate enum Op: UInt8 { case scalar, any, set, split, jump, save, assertion, match }

    fileprivate struct ThreadList {
        let pcs: UnsafeMutablePointer<Int>
        let caps: UnsafeMutablePointer<Int>
        /// pc is in the list when `seen[pc] == generation`.
        let seen: UnsafeMutablePointer<UInt32>
        var count = 0
        var generation: UInt32 = 0

        init(size: Int, slots: Int) {
            pcs = .allocate(capacity: size)
            caps = .allocate(capacity: size * slots)
            seen = .allocate(capacity: size)
            seen.initialize(repeating: 0, count: size)
        }

        mutating func clear(size: Int) {
            count = 0
            generation &+= 1
            if generation == 0 {
                seen.update(repeating: 0, count: size)
                generation = 1
            }
        }

        func free() {
            pcs.deallocate()
            caps.deallocate()
            seen.deallocate()
        }
    }

    init(_ program: PatternProgram) {
        self.program = program
        size = program.instructions.count
        slots = program.slotCount
        ops = .allocate(capacity: size)
        arg1 = .allocate(capacity: size)
        arg2 = .allocate(capacity: size)
        let code = program.instructions
        func land(_ target: Int) -> Int {
            var pc = target
            for _ in 0..<code.count {
                guard case .jump(let next) = code[pc] else { break }
                pc = next
            }
            return pc
        }
        for (pc, instruction) in code.enumerated() {
            let (op, a, b): (Op, Int, Int)
            let on = pc + 1 < code.count ? land(pc + 1) : pc + 1
            switch instruction {
            case .scalar(let s): (op, a, b) = (.scalar, Int(s.value), on)
            case .any: (op, a, b) = (.any, 0, on)
            case .set(let k): (op, a, b) = (.set, k, on)
            case .split(let x, let y): (op, a, b) = (.split, land(x), land(y))
            case .jump(let x): (op, a, b) = (.jump, land(x), 0)
            case .save(let n): (op, a, b) = (.save, n, on)
            case .assertion(let k):
                (op, a, b) = (.assertion, Self.assertions.firstIndex(of: k)!, on)
            case .match: (op, a, b) = (.match, 0, 0)
            }
            ops[pc] = op
            arg1[pc] = a
            arg2[pc] = b
        }
        sets = ScalarSetTable(program.sets.map(\.set))
        ClassBitmaps.prepare(sets.classBits)
        current = ThreadList(size: size, slots: slots)
        next = ThreadList(size: size, slots: slots)
        scratch = .allocate(capacity: slots)
        stack = .allocate(capacity: 2 * size + 2)
        captures = Array(repeating: -1, count: slots)
    }

    deinit {
        ops.deallocate()
        arg1.deallocate()
        arg2.deallocate()
        current.free()
        next.free()
        scratch.deallocate()
        stack.deallocate()
    }

    /// Finds the first match in `bytes` (valid UTF-8); true when there is one, its captures in
    /// `captures`.
    func firstMatch(in bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        // Locals only in the loop: no access to the class's stored properties (each one
        // would be an exclusivity check).
        let m = Machine(ops: ops, arg1: arg1, arg2: arg2, scratch: scratch, stack: stack, slots: slots)
        let sets = self.sets
        var classes = ClassCache()
        var steps = 0
        var current = self.current
        var next = self.next
        defer {
            self.current = current
            self.next = next
            self.steps = steps
        }
        let slots = self.slots
        let size = self.size
        var matched = false
        current.clear(size: size)
        var pos = 0
        var before: Unicode.Scalar?
        var (here, length) = Self.decode(bytes, at: 0)
        while true {
            if !matched {
                for k in 0..<slots { m.scratch[k] = -1 }
                steps += m.add(to: &current, pc: 0, at: pos, before: before, after: here, captures: m.scratch)
            }
            if current.count == 0 && (matched || here == nil) { break }
            next.clear(size: size)
            let afterPos = pos + length
            let (following, followingLength) = here == nil ? (nil, 0) : Self.decode(bytes, at: afterPos)
            let value = here.map { Int($0.value) } ?? -1
            steps += current.count
            classes.reset()
            threads: for t in 0..<current.count {
                let pc = current.pcs[t]
                let advance: Bool
                switch m.ops[pc] {
                case .match:
                    // Lower-priority threads lose to this match.
                    matched = true
                    for k in 0..<slots { captures[k] = current.caps[t * slots + k] }
                    break threads
                case .scalar: advance = m.arg1[pc] == value
                case .any: advance = value >= 0 && value != 10
                case .set: advance = value >= 0 && sets.contains(m.arg1[pc], here!, value, cache: &classes)
                default: advance = false
                }
                if advance {
                    // The thread's own captures serve as the scratch: `add` restores them.
                    steps += m.add(
                        to: &next, pc: m.arg2[pc], at: afterPos, before: here, after: following,
                        captures: current.caps + t * slots)
                }
            }
            if here == nil { break }
            swap(&current, &next)
            pos = afterPos
            before = here
            here = following
            length = followingLength
        }
        return matched
    }

    /// The VM's buffers, as locals of the matching loop.
    private struct Machine {
        let ops: UnsafeMutablePointer<Op>
        let arg1: UnsafeMutablePointer<Int>
        let arg2: UnsafeMutablePointer<Int>
        let scratch: UnsafeMutablePointer<Int>
        let stack: UnsafeMutablePointer<(Int, Int)>
        let slots: Int

        /// Adds the thread at `start` (with `scratch` as its captures, changed and restored) and every thread it
        /// reaches without reading, in priority order, each instruction once per list; the
        /// number of instructions visited.
        func add(
            to list: inout ThreadList, pc start: Int, at pos: Int, before: Unicode.Scalar?, after: Unicode.Scalar?,
            captures scratch: UnsafeMutablePointer<Int>
        ) -> Int {
            var visited = 0
            var top = 0
            let visit = PikeVM.visit
            stack[top] = (start, visit)
            top += 1
            let generation = list.generation
            while top > 0 {
                top -= 1
                let (pc, restore) = stack[top]
                if restore != visit {
                    scratch[pc] = restore // (slot, value): a capture slot restored
                    continue
                }
                if list.seen[pc] == generation { continue }
                list.seen[pc] = generation
                visited += 1
                switch ops[pc] {
                case .jump:
                    stack[top] = (arg1[pc], visit)
                    top += 1
                case .split:
                    stack[top] = (arg2[pc], visit)
                    stack[top + 1] = (arg1[pc], visit)
                    top += 2
                case .save:
                    let slot = arg1[pc]
                    stack[top] = (slot, scratch[slot])
                    stack[top + 1] = (arg2[pc], visit)
                    top += 2
                    scratch[slot] = pos
                case .assertion:
                    if PikeVM.assertions[arg1[pc]].holds(before: before, after: after) {
                        stack[top] = (arg2[pc], visit)
                        top += 1
                    }
                default:
                    let t = list.count
                    list.pcs[t] = pc
                    let to = list.caps + t * slots
                    for k in 0..<slots { to[k] = scratch[k] }
                    list.count += 1
                }
            }
            return visited
        }
    }

    /// The scalar at byte `i` and its length in bytes (nil, 0 at the end).
    private static func decode(_ b: UnsafeBufferPointer<UInt8>, at i: Int) -> (Unicode.Scalar?, Int) {
        guard i < b.count else { return (nil, 0) }
        let b0 = UInt32(b[i])
        if b0 < 0x80 { return (Unicode.Scalar(b0), 1) }
        func cont(_ k: Int) -> UInt32 { i + k < b.count ? UInt32(b[i + k]) & 0x3F : 0 }
        let (v, n): (UInt32, Int)
        if b0 >= 0xF0 {
            (v, n) = ((b0 & 0x07) << 18 | cont(1) << 12 | cont(2) << 6 | cont(3), 4)
        } else if b0 >= 0xE0 {
            (v, n) = ((b0 & 0x0F) << 12 | cont(1) << 6 | cont(2), 3)
        } else {
            (v, n) = ((b0 & 0x1F) << 6 | cont(1), 2)
        }
        return (Unicode.Scalar(v) ?? "\u{FFFD}", min(n, b.count - i))
    }
}
