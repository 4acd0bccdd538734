/// A row of the dashboard tree. Rows are named by the raw id of the node they stand for (a
/// folded `map` adapter's row by the adapter); `DisplayTree.content` gives the node whose
/// name and children the row shows, `TreeModel.shownNode` the newest attempt of a restarted
/// row. Typed in the view state (`ViewState.selection`, `top`, `Mode`), the `DisplayTree`
/// row walks and where a row crosses from the reducer to a source (`DashboardEffect`), so a
/// row is not passed where a node is meant.
public struct RowIndex: Hashable, Comparable, Sendable, ExpressibleByIntegerLiteral, CustomStringConvertible {
    /// The raw id of the node the row is named by (-1: `none`).
    public var rawValue: Int

    /// The row named by node id `rawValue`.
    @inlinable public init(_ rawValue: Int) { self.rawValue = rawValue }

    /// A row written as a number (tests).
    public init(integerLiteral value: Int) { rawValue = value }

    /// No row (no selection; the tree drawn from its first row; a root row's parent). Kept
    /// in-band rather than as an optional so `ViewState` and the renderer's row walk stay a
    /// plain integer.
    @inlinable public static var none: RowIndex { RowIndex(-1) }

    /// The node the row is named by (for a folded `map` row, the adapter itself).
    package var node: NodeIndex { NodeIndex(rawValue) }

    public static func < (a: RowIndex, b: RowIndex) -> Bool { a.rawValue < b.rawValue }

    /// `row N`.
    public var description: String { "row \(rawValue)" }
}

/// A node of a `TreeModel`, by its raw id (the graph's `NodeID.rawValue`, or an attach
/// session's local id).
package struct NodeIndex: Hashable, Comparable, Sendable, ExpressibleByIntegerLiteral, CustomStringConvertible {
    /// The node's raw id.
    package var rawValue: Int

    /// Node `rawValue`.
    package init(_ rawValue: Int) { self.rawValue = rawValue }

    /// A node written as a number (tests).
    package init(integerLiteral value: Int) { rawValue = value }

    /// The row named by this node (where it is drawn unless folded into its adapter's row;
    /// an attempt is drawn in the row of the node it restarts).
    package var row: RowIndex { RowIndex(rawValue) }

    package static func < (a: NodeIndex, b: NodeIndex) -> Bool { a.rawValue < b.rawValue }

    /// `#N`.
    package var description: String { "#\(rawValue)" }
}

extension TreeModel {
    /// Node `node` (must exist).
    package subscript(_ node: NodeIndex) -> Node {
        _read { yield nodes[node.rawValue] }
    }

    /// Whether `node` names a live node.
    package func contains(_ node: NodeIndex) -> Bool { contains(node.rawValue) }
}

extension TreeNodeStore {
    /// Node `node` (absent: an empty node whose `exists` is false).
    package subscript(_ node: NodeIndex) -> TreeModel.Node {
        _read { yield self[node.rawValue] }
    }
}
