/// Parses the subset of Swift `Regex` syntax a progress pattern may use, all of which runs in
/// time linear in the line (`PikeVM`): literals and escapes, `.`, `[...]` (ranges, negation,
/// `\d \w \s` and their negations, `[:digit:]` and the other POSIX names), `\d \D \w \W \s
/// \S`, `^ $ \A \z \Z \b \B`, groups `(...)`, `(?:...)`, `(?<name>...)`, alternation `|`, and
/// the quantifiers `* + ? {n} {n,} {n,m} {,m}`, greedy or lazy (`*?`). Refused, with the
/// reason: backreferences, lookaround, atomic groups, possessive quantifiers, inline options,
/// Unicode property escapes, nested classes and set operations.
struct PatternParser {
    private let scalars: [Unicode.Scalar]
    private var i = 0
    private(set) var captures = 0

    /// The largest count a quantifier may give.
    static let maxRepeat = 1000

    init(_ pattern: String) {
        scalars = Array(pattern.unicodeScalars)
    }

    /// The whole pattern.
    mutating func parse() throws(PatternError) -> PatternNode {
        let node = try alternation()
        if i < scalars.count {
            throw PatternError("unbalanced ')' at offset \(i)")
        }
        return node
    }

    private var peek: Unicode.Scalar? { i < scalars.count ? scalars[i] : nil }

    private func starts(with text: String) -> Bool {
        var j = i
        for s in text.unicodeScalars {
            guard j < scalars.count, scalars[j] == s else { return false }
            j += 1
        }
        return true
    }

    private mutating func alternation() throws(PatternError) -> PatternNode {
        var branches = [try concatenation()]
        while peek == "|" {
            i += 1
            branches.append(try concatenation())
        }
        return branches.count == 1 ? branches[0] : .alternation(branches)
    }

    private mutating func concatenation() throws(PatternError) -> PatternNode {
        var items: [PatternNode] = []
        while let c = peek, c != "|", c != ")" {
            let atom = try self.atom()
            items.append(try quantified(atom))
        }
        if items.isEmpty { return .empty }
        return items.count == 1 ? items[0] : .concat(items)
    }

    private mutating func atom() throws(PatternError) -> PatternNode {
        let c = scalars[i]
        i += 1
        switch c {
        case "(": return try group()
        case "[": return .set(try bracket())
        case ".": return .any
        case "^": return .assertion(.start)
        case "$": return .assertion(.end)
        case "\\": return try escape()
        case "*", "+", "?": throw PatternError("quantifier '\(c)' without anything to repeat")
        case "{" where quantifierAhead(from: i - 1) != nil:
            throw PatternError("quantifier without anything to repeat")
        default: return .scalar(c)
        }
    }

    private mutating func group() throws(PatternError) -> PatternNode {
        var capture: Int?
        if peek == "?" {
            if starts(with: "?:") {
                i += 2
            } else if starts(with: "?<=") || starts(with: "?<!") || starts(with: "?=") || starts(with: "?!") {
                throw PatternError("lookaround is not supported")
            } else if starts(with: "?>") {
                throw PatternError("atomic groups are not supported")
            } else if starts(with: "?<") || starts(with: "?P<") || starts(with: "?'") {
                let close: Unicode.Scalar = starts(with: "?'") ? "'" : ">"
                while let s = peek, s != close { i += 1 }
                guard peek == close else { throw PatternError("unterminated group name") }
                i += 1
                captures += 1
                capture = captures
            } else {
                throw PatternError("inline options and other (? groups are not supported")
            }
        } else {
            captures += 1
            capture = captures
        }
        let body = try alternation()
        guard peek == ")" else { throw PatternError("missing ')'") }
        i += 1
        return .group(body, capture: capture)
    }

    /// `{n}`, `{n,}`, `{n,m}`, `{,m}` at `from`: its bounds and length, nil if it is not one.
    private func quantifierAhead(from: Int) -> (min: Int, max: Int?, length: Int)? {
        var j = from
        guard j < scalars.count, scalars[j] == "{" else { return nil }
        j += 1
        func number() -> Int? {
            var v: Int?
            while j < scalars.count, scalars[j].value >= 48, scalars[j].value <= 57 {
                v = min((v ?? 0) * 10 + Int(scalars[j].value - 48), 1_000_000)
                j += 1
            }
            return v
        }
        let low = number()
        var high = low
        if j < scalars.count, scalars[j] == "," {
            j += 1
            high = number()
            guard low != nil || high != nil else { return nil }
        } else if low == nil {
            return nil
        }
        guard j < scalars.count, scalars[j] == "}" else { return nil }
        return (low ?? 0, high, j + 1 - from)
    }

    private mutating func quantified(_ atom: PatternNode) throws(PatternError) -> PatternNode {
        var node = atom
        while let c = peek {
            let lo: Int
            let hi: Int?
            if c == "*" {
                (lo, hi) = (0, nil)
                i += 1
            } else if c == "+" {
                (lo, hi) = (1, nil)
                i += 1
            } else if c == "?" {
                (lo, hi) = (0, 1)
                i += 1
            } else if let q = quantifierAhead(from: i) {
                (lo, hi) = (q.min, q.max)
                i += q.length
                guard lo <= Self.maxRepeat, (hi ?? 0) <= Self.maxRepeat else {
                    throw PatternError("a repetition count above \(Self.maxRepeat)")
                }
                if let hi, hi < lo { throw PatternError("{\(lo),\(hi)}: the maximum is below the minimum") }
            } else {
                break
            }
            if case .assertion = node { throw PatternError("quantifier after an anchor") }
            var greedy = true
            if peek == "?" {
                greedy = false
                i += 1
            } else if peek == "+" {
                throw PatternError("possessive quantifiers are not supported")
            }
            node = .repetition(node, min: lo, max: hi, greedy: greedy)
        }
        return node
    }

    private mutating func escape() throws(PatternError) -> PatternNode {
        guard let c = peek else { throw PatternError("trailing '\\'") }
        i += 1
        switch c {
        case "d": return .set(.of(.digit, negated: false))
        case "D": return .set(.of(.digit, negated: true))
        case "w": return .set(.of(.word, negated: false))
        case "W": return .set(.of(.word, negated: true))
        case "s": return .set(.of(.space, negated: false))
        case "S": return .set(.of(.space, negated: true))
        case "b": return .assertion(.wordBoundary)
        case "B": return .assertion(.notWordBoundary)
        case "A": return .assertion(.start)
        case "z", "Z": return .assertion(.end)
        default: return .scalar(try escapedScalar(c))
        }
    }

    /// The scalar an escape `\c` stands for (`c` already read), in or out of brackets.
    private mutating func escapedScalar(_ c: Unicode.Scalar) throws(PatternError) -> Unicode.Scalar {
        switch c {
        case "t": return "\t"
        case "n": return "\n"
        case "r": return "\r"
        case "f": return "\u{0C}"
        case "v": return "\u{0B}"
        case "e": return "\u{1B}"
        case "a": return "\u{07}"
        case "0": return "\0"
        case "x", "u":
            var digits = ""
            if peek == "{" {
                i += 1
                while let s = peek, s != "}" {
                    digits.unicodeScalars.append(s)
                    i += 1
                }
                guard peek == "}" else { throw PatternError("unterminated \\\(c){...}") }
                i += 1
            } else {
                for _ in 0..<(c == "x" ? 2 : 4) {
                    guard let s = peek else { break }
                    digits.unicodeScalars.append(s)
                    i += 1
                }
            }
            guard let v = UInt32(digits, radix: 16), let s = Unicode.Scalar(v) else {
                throw PatternError("invalid \\\(c) escape")
            }
            return s
        case "1"..."9", "k", "g":
            throw PatternError("backreferences are not supported")
        case "p", "P":
            throw PatternError("Unicode property escapes (\\\(c){...}) are not supported")
        default:
            if c.properties.isAlphabetic || c.properties.numericType != nil {
                throw PatternError("unsupported escape \\\(c)")
            }
            return c
        }
    }

    /// A bracket expression, `[` already read.
    private mutating func bracket() throws(PatternError) -> ScalarSet {
        var set = ScalarSet()
        if peek == "^" {
            set.negated = true
            i += 1
        }
        var first = true
        while true {
            guard let c = peek else { throw PatternError("missing ']'") }
            if c == "]" && !first { break }
            first = false
            if starts(with: "[:") {
                try posixClass(into: &set)
                continue
            }
            if c == "[" { throw PatternError("nested character classes are not supported") }
            if starts(with: "&&") || starts(with: "--") || starts(with: "~~") {
                throw PatternError("character class set operations are not supported")
            }
            i += 1
            let low: Unicode.Scalar
            if c == "\\" {
                guard let e = peek else { throw PatternError("trailing '\\'") }
                i += 1
                switch e {
                case "d", "D", "w", "W", "s", "S":
                    let kinds: [Unicode.Scalar: ScalarClass] = ["d": .digit, "w": .word, "s": .space]
                    let lower = Unicode.Scalar(e.value | 0x20)!
                    set.classes.append((kinds[lower]!, e != lower))
                    continue
                case "b": low = "\u{08}"
                default: low = try escapedScalar(e)
                }
            } else {
                low = c
            }
            if peek == "-", i + 1 < scalars.count, scalars[i + 1] != "]" {
                i += 1
                var high = scalars[i]
                i += 1
                if high == "\\" {
                    guard let e = peek else { throw PatternError("trailing '\\'") }
                    i += 1
                    high = try escapedScalar(e)
                } else if high == "[" {
                    throw PatternError("nested character classes are not supported")
                }
                guard low.value <= high.value else { throw PatternError("invalid range \(low)-\(high)") }
                set.ranges.append(low.value...high.value)
            } else {
                set.ranges.append(low.value...low.value)
            }
        }
        i += 1
        return set
    }

    private mutating func posixClass(into set: inout ScalarSet) throws(PatternError) {
        i += 2
        var negated = false
        if peek == "^" {
            negated = true
            i += 1
        }
        var name = ""
        while let s = peek, s != ":" {
            name.unicodeScalars.append(s)
            i += 1
        }
        guard starts(with: ":]") else { throw PatternError("unterminated [:class:]") }
        i += 2
        let known: [String: ScalarClass] = [
            "digit": .digit, "word": .word, "space": .space, "alpha": .alpha, "alnum": .alnum,
            "upper": .upper, "lower": .lower, "punct": .punct, "xdigit": .xdigit, "cntrl": .cntrl,
            "print": .print, "graph": .graph, "blank": .blank,
        ]
        guard let c = known[name] else { throw PatternError("unknown class [:\(name):]") }
        set.classes.append((c, negated))
    }
}

/// Why a pattern cannot be used.
struct PatternError: Error {
    let reason: String
    init(_ reason: String) { self.reason = reason }
}
