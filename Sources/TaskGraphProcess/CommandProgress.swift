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
    /// The regular expression (Swift `Regex` syntax).
    public let pattern: String

    /// A pattern used as given; an invalid one makes the command fail with
    /// `cannot run: invalid progress pattern ...` when it runs. Use `init(validating:)` to
    /// find out earlier.
    public init(pattern: String) {
        self.pattern = pattern
    }

    /// A pattern checked now: throws `CommandProgress.InvalidPattern` when it is not a valid
    /// regular expression or has no capture group or more than two.
    public init(validating pattern: String) throws(InvalidPattern) {
        try CommandProgress.validate(pattern)
        self.pattern = pattern
    }

    /// Throws when `pattern` is not a valid regular expression with one or two capture groups.
    public static func validate(_ pattern: String) throws(InvalidPattern) {
        _ = try ProgressMatcher(pattern)
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

/// A compiled `CommandProgress` (one per running command: `Regex` is not shared across tasks).
struct ProgressMatcher {
    private let regex: Regex<AnyRegexOutput>
    private let groups: Int

    init(_ pattern: String) throws(CommandProgress.InvalidPattern) {
        let r: Regex<AnyRegexOutput>
        do {
            r = try Regex(pattern)
        } catch {
            throw CommandProgress.InvalidPattern(pattern: pattern, reason: "\(error)")
        }
        let count = Self.captureCount(pattern)
        guard count == 1 || count == 2 else {
            throw CommandProgress.InvalidPattern(
                pattern: pattern, reason: "needs one capture group (percent) or two (N of M), has \(count)")
        }
        regex = r
        groups = count
    }

    /// The number of capture groups: the pattern with an empty alternative matches "", and
    /// the match's output has one element per group plus the whole match.
    private static func captureCount(_ pattern: String) -> Int {
        guard let r = try? Regex("(?:" + pattern + ")|"), let m = try? r.firstMatch(in: "") else { return 0 }
        return m.output.count - 1
    }

    /// The fraction a line reports, if it matches.
    func fraction(of line: Substring) -> Double? {
        guard let m = try? regex.firstMatch(in: line) else { return nil }
        func number(_ i: Int) -> Double? {
            guard i < m.output.count, let s = m.output[i].substring else { return nil }
            return Double(s.trimmingSpaces)
        }
        if groups == 1 {
            guard let p = number(1), p.isFinite else { return nil }
            return min(1, max(0, p / 100))
        }
        guard let n = number(1), let total = number(2), n.isFinite, total.isFinite, total > 0 else { return nil }
        return min(1, max(0, n / total))
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
