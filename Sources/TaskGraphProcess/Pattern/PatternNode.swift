/// A parsed progress pattern (`PatternParser`), before it is compiled into a `PatternProgram`.
indirect enum PatternNode {
    case empty
    case scalar(Unicode.Scalar)
    /// Any scalar but a newline.
    case any
    case set(ScalarSet)
    case assertion(PatternAssertion)
    /// A group; `capture` is its number (1...) when it captures.
    case group(PatternNode, capture: Int?)
    case concat([PatternNode])
    case alternation([PatternNode])
    /// `min` to `max` (nil: unbounded) repetitions, greedy or lazy.
    case repetition(PatternNode, min: Int, max: Int?, greedy: Bool)
}

/// A zero-width test.
enum PatternAssertion: Equatable {
    case start, end, wordBoundary, notWordBoundary

    func holds(before: Unicode.Scalar?, after: Unicode.Scalar?) -> Bool {
        switch self {
        case .start: return before == nil
        case .end: return after == nil
        case .wordBoundary, .notWordBoundary:
            let boundary = ScalarClass.word.contains(before) != ScalarClass.word.contains(after)
            return boundary == (self == .wordBoundary)
        }
    }
}

/// `\d`, `\w`, `\s`, POSIX classes: what Swift's `Regex` means by them, scalar by scalar.
enum ScalarClass: Equatable {
    case digit, word, space, alpha, alnum, upper, lower, punct, xdigit, cntrl, print, graph, blank

    func contains(_ s: Unicode.Scalar?) -> Bool {
        guard let s else { return false }
        let p = s.properties
        switch self {
        case .digit: return p.numericType == .decimal
        case .word:
            return p.isAlphabetic || p.numericType == .decimal || s == "_" || p.generalCategory == .connectorPunctuation
        case .space: return p.isWhitespace
        case .alpha: return p.isAlphabetic
        case .alnum: return p.isAlphabetic || p.numericType == .decimal
        case .upper: return p.isUppercase
        case .lower: return p.isLowercase
        case .punct:
            switch p.generalCategory {
            case .connectorPunctuation, .dashPunctuation, .openPunctuation, .closePunctuation,
                .initialPunctuation, .finalPunctuation, .otherPunctuation:
                return true
            default: return s.isASCII && "$+<=>^`|~".unicodeScalars.contains(s)
            }
        case .xdigit: return s.isASCII && ("0"..."9" ~= s || "a"..."f" ~= s || "A"..."F" ~= s)
        case .cntrl: return p.generalCategory == .control
        case .print: return p.generalCategory != .control && p.generalCategory != .unassigned
        case .graph: return !p.isWhitespace && p.generalCategory != .control && p.generalCategory != .unassigned
        case .blank: return s == " " || s == "\t"
        }
    }
}

/// A bracket expression (`[a-z\d]`, `[^,]`) or a class escape (`\D`).
struct ScalarSet {
    var ranges: [ClosedRange<UInt32>] = []
    var classes: [(ScalarClass, negated: Bool)] = []
    var negated = false

    func contains(_ s: Unicode.Scalar) -> Bool {
        var hit = false
        for r in ranges where r.contains(s.value) {
            hit = true
            break
        }
        if !hit {
            for (c, neg) in classes where c.contains(s) != neg {
                hit = true
                break
            }
        }
        return hit != negated
    }

    static func of(_ c: ScalarClass, negated: Bool) -> ScalarSet {
        ScalarSet(classes: [(c, negated)])
    }
}
