/// Options written before the subcommand (`taskview --seed 3 run demos/x.json`) belong to
/// the subcommand, as if written after its name: a person writes them where they think of
/// them. Parsed through the root instead, they would be taken by the root's own options
/// and silently lost when the subcommand runs. The subcommand then accepts them or refuses
/// them with its own message (`replay` takes no `--record`), exit 2.
enum LeadingOptions {
    /// The root's options that take a value (`CommonOptions`): their value is not a
    /// subcommand name (`--record run` writes to a file named run).
    static let taking: Set<String> = [
        "--record", "--seed", "--speed", "--jobs", "-j", "--theme", "--output-limit",
    ]

    /// `(subcommand, its arguments)` when a subcommand name follows only options; the
    /// options move right after the name. Nil: no subcommand (the root's default demo).
    static func split(_ args: [String], subcommands: Set<String>) -> (name: String, args: [String])? {
        var i = 0
        while i < args.count {
            let a = args[i]
            if a == "--" || !a.hasPrefix("-") || a == "-" { break }
            i += taking.contains(a) ? 2 : 1
        }
        guard i < args.count, subcommands.contains(args[i]) else { return nil }
        return (args[i], Array(args[..<i]) + Array(args[(i + 1)...]))
    }
}
