import TaskGraph

extension TreeModel {
    /// The kind of a row that stands for an attached program (docs/taskview.md): the attach
    /// viewer adds one per program; it is no task of any graph, so a cancel stops there.
    static let programKind = NodeKind.attachedProgram
}
