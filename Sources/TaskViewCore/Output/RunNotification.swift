/// The desktop notification a run sends through its terminal when it ends after a while
/// (diagnose.md "Done: tell the person"): OSC 777 `notify` (foot, kitty, Ghostty, rxvt,
/// WezTerm), OSC 9 (iTerm2, Windows Terminal, ConEmu), then a bell (any terminal: the
/// window is marked). Inside tmux the two OSC sequences are wrapped in tmux's passthrough
/// (`ESC P tmux; … ESC \`, every ESC doubled) so they reach the outer terminal (tmux ≥ 3.3
/// needs `set -g allow-passthrough on`); the bell goes through tmux as a bell.
package struct RunNotification: Equatable, Sendable {
    /// `taskview: NAME`.
    package var title: String
    /// `NAME succeeded in 1m05s` (or failed, cancelled, ended with status N).
    package var body: String

    /// The notification for a run named `name` that ended with exit `status` after
    /// `seconds`; texts sanitized for a terminal sequence (no control characters, no `;`,
    /// at most 200 characters each).
    package init(name: String, status: Int32, seconds: Double) {
        let outcome: String
        switch status {
        case 0: outcome = "succeeded"
        case 1: outcome = "failed"
        case 130: outcome = "cancelled"
        default: outcome = "ended with status \(status)"
        }
        let shown = Self.clean(name)
        title = Self.clean("taskview: " + shown)
        body = Self.clean("\(shown) \(outcome) in \(Format.duration(seconds))")
    }

    /// Whether a run of `seconds` notifies with `--notify-after after` (never when
    /// `enabled` is false or there is no terminal).
    package static func due(seconds: Double, after: Double, enabled: Bool, terminal: Bool) -> Bool {
        enabled && terminal && seconds.isFinite && seconds > after
    }

    /// The bytes to write to the terminal; `insideTmux`: `$TMUX` is set.
    package func sequence(insideTmux: Bool) -> String {
        let osc777 = "\u{1B}]777;notify;\(title);\(body)\u{1B}\\"
        let osc9 = "\u{1B}]9;\(title): \(body)\u{1B}\\"
        let bell = "\u{07}"
        guard insideTmux else { return osc777 + osc9 + bell }
        return Self.tmuxPassthrough(osc777) + Self.tmuxPassthrough(osc9) + bell
    }

    /// `text` inside tmux's passthrough sequence.
    static func tmuxPassthrough(_ text: String) -> String {
        var doubled = ""
        for c in text.unicodeScalars {
            if c == "\u{1B}" { doubled.unicodeScalars.append(c) }
            doubled.unicodeScalars.append(c)
        }
        return "\u{1B}Ptmux;" + doubled + "\u{1B}\\"
    }

    /// Without control characters (which could end the sequence early) and `;` (OSC 777's
    /// field separator), cut to 200 characters.
    static func clean(_ text: String) -> String {
        var out = ""
        for c in Sanitizer.clean(text).unicodeScalars.prefix(200) {
            let v = c.value
            if v < 0x20 || (v >= 0x7F && v < 0xA0) { continue }
            out.unicodeScalars.append(c == ";" ? "," : c)
        }
        return out
    }
}
