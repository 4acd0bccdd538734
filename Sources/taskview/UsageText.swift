/// The argument parser's messages in taskview's one error style: `taskview: MESSAGE` (not
/// `Error: MESSAGE`), and a subcommand parsed on its own named `taskview NAME` in its usage.
enum UsageText {
    static func fix(_ message: String, commandName: String, fullName: String) -> String {
        var lines = message.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        for i in lines.indices {
            var line = lines[i]
            if i == 0, line.hasPrefix("Error: ") { line = "taskview: " + line.dropFirst("Error: ".count) }
            if fullName != commandName {
                for head in ["Usage: ", "USAGE: ", "See '"] {
                    line = replacingFirst(head + commandName + " ", with: head + fullName + " ", in: line)
                }
            }
            lines[i] = line
        }
        return lines.joined(separator: "\n")
    }

    /// `text` with the first occurrence of `target` replaced (no Foundation here).
    static func replacingFirst(_ target: String, with replacement: String, in text: String) -> String {
        let t = Array(target.utf8)
        let s = Array(text.utf8)
        guard !t.isEmpty, s.count >= t.count else { return text }
        for i in 0...(s.count - t.count) where s[i] == t[0] && Array(s[i..<(i + t.count)]) == t {
            return String(decoding: s[..<i], as: UTF8.self) + replacement
                + String(decoding: s[(i + t.count)...], as: UTF8.self)
        }
        return text
    }
}
