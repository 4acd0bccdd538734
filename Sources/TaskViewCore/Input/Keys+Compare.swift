extension KeyTable {
    /// The keys that compare with another run.
    static let comparisonBindings: [KeyBinding] = [
        .init(
            action: .toggleDelta, keys: [.char("d")], label: "d",
            help: "diff column: each row against the previous run (or --baseline)", scope: .always, footer: nil)
    ]
}
