/// A mouse event as the reducer sees it: the terminal layer decodes the terminal's report
/// and places it on a tree row (or in the detail pane), so the reducer needs no layout.
public struct MouseEvent: Hashable, Sendable {
    public enum Kind: Hashable, Sendable {
        case click, doubleClick, wheelUp, wheelDown
    }

    public var kind: Kind
    /// The tree row (0: the first row shown) under the pointer; -1: not on a tree row.
    public var row: Int
    /// The pointer is over the detail pane.
    public var inDetail: Bool

    public init(_ kind: Kind, row: Int, inDetail: Bool = false) {
        self.kind = kind
        self.row = row
        self.inDetail = inDetail
    }

    /// How the event is named in replay logs.
    public var name: String {
        switch kind {
        case .click: "click"
        case .doubleClick: "double-click"
        case .wheelUp: "wheel-up"
        case .wheelDown: "wheel-down"
        }
    }
}
