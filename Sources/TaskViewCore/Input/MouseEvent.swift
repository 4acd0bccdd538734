/// A mouse event as the reducer sees it: the terminal layer decodes the terminal's report
/// and places it on a tree row (or in the detail pane), so the reducer needs no layout.
package struct MouseEvent: Hashable, Sendable {
    package enum Kind: Hashable, Sendable {
        case click, doubleClick, wheelUp, wheelDown
    }

    package var kind: Kind
    /// The tree row (0: the first row shown) under the pointer; -1: not on a tree row.
    package var row: Int
    /// The pointer is over the detail pane.
    package var inDetail: Bool

    package init(_ kind: Kind, row: Int, inDetail: Bool = false) {
        self.kind = kind
        self.row = row
        self.inDetail = inDetail
    }

    /// How the event is named in replay logs.
    package var name: String {
        switch kind {
        case .click: "click"
        case .doubleClick: "double-click"
        case .wheelUp: "wheel-up"
        case .wheelDown: "wheel-down"
        }
    }
}
