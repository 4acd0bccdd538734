/// What to run: argv (or a shell string), where, with what added environment.
struct CommandSpec: Sendable {
    /// argv; argv[0] is looked up in PATH unless it contains a `/`.
    let arguments: [String]
    /// The shell string for `command(shell:)` (argv is then `/bin/sh -c STRING`).
    let shell: String?
    let workingDirectory: String?
    let environment: [String: String]
    let progress: CommandProgress?
    /// Seconds between SIGTERM and SIGKILL on cancel.
    let grace: Double

    /// The command as a person reads it: the shell string, or argv joined by spaces (words
    /// with spaces or quotes are single-quoted).
    var commandLine: String {
        if let shell { return shell }
        return arguments.map(Self.quoted).joined(separator: " ")
    }

    static func quoted(_ word: String) -> String {
        let plain =
            !word.isEmpty
            && word.unicodeScalars.allSatisfy { s in
                (s.value >= 0x30 && s.value <= 0x39) || (s.value | 0x20 >= 0x61 && s.value | 0x20 <= 0x7A)
                    || "-_./=:,+@%".unicodeScalars.contains(s)
            }
        return plain ? word : "'" + word.replacing("'", with: #"'\''"#) + "'"
    }
}
