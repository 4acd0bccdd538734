/// What the person did to the view: selection, scrolling, collapsed nodes, open panes and
/// modes. Everything here changes only through the reducer.
public struct ViewState: Sendable, Equatable {
    /// What the keyboard currently talks to.
    public enum Mode: Sendable, Equatable {
        case normal
        /// `x` asked to cancel this node; waiting for y/N.
        case confirmCancel(node: Int)
        /// `r` asked to restart this node (and `dependents` skipped nodes); waiting for y/N.
        case confirmRestart(node: Int, dependents: Int)
        /// Typing a filter after `/`.
        case filterInput
        /// Typing an output search after `/` in a command's detail pane.
        case searchInput
        /// The help overlay.
        case help
        /// `z` was pressed: a digit folds the tree to that depth.
        case foldPrefix
        /// Typing a time after `t` (replay), kept in `prompt`.
        case seekInput
        /// Typing a text after `F` (replay), kept in `prompt`.
        case findInput
    }

    /// The order of siblings (`s` cycles it); rows are never re-sorted by state or progress.
    public enum Sort: Sendable, Equatable, CaseIterable {
        /// The order nodes were created in (the graph's own order).
        case creation
        /// Longest running or longest run first; nodes that never started last.
        case duration
        /// By name, ignoring case.
        case name

        /// How the header names it.
        public var word: String {
            switch self {
            case .creation: "creation"
            case .duration: "duration"
            case .name: "name"
            }
        }
    }

    public var mode: Mode = .normal
    /// The selected row's node (-1: none).
    public var selection: Int = -1
    /// The node drawn on the first tree row (-1: start at the top).
    public var top: Int = -1
    /// Nodes the person collapsed (indexed by raw id; missing entries are expanded).
    public var collapsed: [Bool] = []
    public var detailOpen = false
    /// Where the detail pane's output is scrolled to: the number of output lines seen before
    /// the last one shown (counted like `OutputRing.total`). nil: it follows the newest line.
    public var detailOutputEnd: Int?
    /// The detail pane's output search (empty: none).
    public var search: String = ""
    /// The current match: the output line it is on, counted like `OutputRing.total` from 0
    /// (nil: none yet).
    public var searchLine: Int?
    /// The name filter (empty: none).
    public var filter: String = ""
    /// The filter also matches info texts and error messages (Tab in the filter prompt).
    public var filterWide = false
    /// The text typed after `t` or `F`.
    public var prompt: String = ""
    public var sort: Sort = .creation
    public var paused = false
    public var follow = false
    /// Fold `map` adapters into their child's row.
    public var foldMaps = true
    /// A one-line notice for the footer ("Nothing to cancel: ... has finished").
    public var message: String?
    /// Set by `q`/Ctrl-C; the loop ends.
    public var quitRequested = false

    public init() {}

    /// Whether `id`'s children are shown (when not filtering).
    public func isExpanded(_ id: Int) -> Bool {
        id >= collapsed.count || !collapsed[id]
    }

    mutating func setCollapsed(_ id: Int, _ value: Bool) {
        if id >= collapsed.count {
            guard value else { return }
            collapsed.append(contentsOf: repeatElement(false, count: id + 1 - collapsed.count))
        }
        collapsed[id] = value
    }
}
