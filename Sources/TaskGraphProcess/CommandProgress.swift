/// How a command's output lines become its progress fraction: a regular expression matched
/// against every line. With one capture group the group is a percentage (0-100); with two
/// groups they are N and M of "N of M" (fraction N/M). Lines that do not match, or whose
/// groups are not numbers, leave the fraction as it was.
///
/// ```swift
/// CommandProgress(pattern: #"(\d+)%"#)             // "  42% done" -> 0.42
/// CommandProgress(pattern: #"\[(\d+)/(\d+)\]"#)    // "[3/8] cc a.c" -> 0.375
/// ```
public struct CommandProgress: Sendable {
    /// The regular expression: the part of Swift `Regex` syntax that can be matched in time
    /// linear in the line (see `init(validating:)`).
    public let pattern: String

    /// A pattern used as given; an invalid one makes the command fail with
    /// `cannot run: invalid progress pattern ...` when it runs. Use `init(validating:)` to
    /// find out earlier.
    public init(pattern: String) {
        self.pattern = pattern
    }

    /// A pattern checked now: throws `CommandProgress.InvalidPattern` when it is not a valid
    /// regular expression or has no capture group or more than two, or uses what cannot be
    /// matched in linear time: backreferences, lookaround, atomic groups, possessive
    /// quantifiers, inline options, `\p{...}`, nested classes, repetition counts above 1000,
    /// and a pattern that could cost more than 48 steps a byte of a line (about 1 ms for a
    /// 4 KiB line: repetitions and alternatives multiply its steps).
    /// Everything else of Swift `Regex` syntax works as there: literals and escapes, `.`,
    /// `[...]` with ranges, `\d \w \s` and `[:digit:]`-style names, `\d \D \w \W \s \S`,
    /// `^ $ \A \z \b \B`, `(...)`, `(?:...)`, `(?<name>...)`, `|`, and `* + ? {n,m}` greedy or
    /// lazy. The first match counts, as with `Regex.firstMatch`.
    public init(validating pattern: String) throws(InvalidPattern) {
        try CommandProgress.validate(pattern)
        self.pattern = pattern
    }

    /// Throws when `pattern` is not a valid regular expression with one or two capture groups.
    public static func validate(_ pattern: String) throws(InvalidPattern) {
        _ = try ProgressMatcher.compile(pattern)
    }

    /// Why a progress pattern cannot be used.
    public struct InvalidPattern: Error, Sendable, CustomStringConvertible {
        /// The pattern given.
        public let pattern: String
        /// Why it cannot be used.
        public let reason: String
        /// `invalid progress pattern "P": REASON`.
        public var description: String { "invalid progress pattern \"\(pattern)\": \(reason)" }
    }
}

/// A compiled `CommandProgress`, matched in time linear in the line (`PikeVM`): one per
/// stream reader (it keeps its buffers between lines).
final class ProgressMatcher {
    private var vm: PikeVM
    private let groups: Int

    convenience init(_ pattern: String) throws(CommandProgress.InvalidPattern) {
        self.init(try Self.compile(pattern))
    }

    init(_ program: PatternProgram) {
        vm = PikeVM(program)
        groups = program.groups
    }

    /// The compiled pattern, checked: one or two capture groups.
    static func compile(_ pattern: String) throws(CommandProgress.InvalidPattern) -> PatternProgram {
        let program: PatternProgram
        do {
            program = try PatternProgram(pattern)
        } catch {
            throw CommandProgress.InvalidPattern(pattern: pattern, reason: error.reason)
        }
        guard program.groups == 1 || program.groups == 2 else {
            throw CommandProgress.InvalidPattern(
                pattern: pattern, reason: "needs one capture group (percent) or two (N of M), has \(program.groups)")
        }
        return program
    }

    /// The fraction a line reports, if it matches.
    func fraction(of line: Substring) -> Double? {
        var text = line
        return text.withUTF8 { bytes -> Double? in
            guard vm.firstMatch(in: bytes) else { return nil }
            let caps = vm.captures
            func number(_ g: Int) -> Double? {
                let start = caps[2 * g]
                let end = caps[2 * g + 1]
                guard start >= 0, end >= start else { return nil }
                let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
                return Double(text[...].trimmingSpaces)
            }
            if groups == 1 {
                guard let p = number(1), p.isFinite else { return nil }
                return min(1, max(0, p / 100))
            }
            guard let n = number(1), let total = number(2), n.isFinite, total.isFinite, total > 0 else { return nil }
            return min(1, max(0, n / total))
        }
    }
}

extension Substring {
    var trimmingSpaces: Substring {
        var s = self
        while s.first == " " { s.removeFirst() }
        while s.last == " " { s.removeLast() }
        return s
    }
}
