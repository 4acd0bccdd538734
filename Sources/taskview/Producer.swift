import TaskGraph

/// The `producer` that taskview writes into the header of every replay log it records:
/// `taskview VERSION` followed by the arguments it was started with
/// (`taskview 0.9.0 demo build --seed 3`), so a log says which taskview made it and how.
enum Producer {
    static var line: String {
        (["taskview", TaskGraphVersion.current] + CommandLine.arguments.dropFirst()).joined(separator: " ")
    }
}
