/// What the person did to the view: selection, scrolling, collapsed nodes, open panes and
/// modes. Everything here changes only through the reducer.
public struct ViewState: Sendable, Equatable {
    /// What the keyboard currently talks to.
    package enum Mode: Sendable, Equatable {
        case normal
        /// `x` asked to cancel this node; waiting for y/N.
        case confirmCancel(row: RowIndex)
        /// `r` asked to restart this node (and `dependents` skipped nodes); waiting for y/N.
        case confirmRestart(row: RowIndex, dependents: Int)
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
    package enum Sort: Sendable, Equatable, CaseIterable {
        /// The order nodes were created in (the graph's own order).
        case creation
        /// Longest running or longest run first; nodes that never started last.
        case duration
        /// By name, ignoring case.
        case name

        /// How the header names it.
        package var word: String {
            switch self {
            case .creation: "creation"
            case .duration: "duration"
            case .name: "name"
            }
        }
    }

    package var mode: Mode = .normal
    /// The selected row (`RowIndex.none`: none).
    public var selection: RowIndex = .none
    /// The row drawn first in the tree area (`RowIndex.none`: start at the top).
    public var top: RowIndex = .none
    /// Nodes the person collapsed (indexed by raw id; missing entries are expanded).
    package var collapsed: [Bool] = []
    package var detailOpen = false
    /// Where the detail pane's output is scrolled to: the number of output lines seen before
    /// the last one shown (counted like `OutputRing.total`). nil: it follows the newest line.
    package var detailOutputEnd: Int?
    /// The minimum level of the log records the detail pane shows (`L`).
    package var logFilter = LogLevelFilter.all
    /// The detail pane's output search (empty: none).
    package var search: String = ""
    /// The current match: the output line it is on, counted like `OutputRing.total` from 0
    /// (nil: none yet).
    package var searchLine: Int?
    /// The name filter (empty: none).
    package var filter: String = ""
    /// The filter also matches info texts and error messages (Tab in the filter prompt).
    package var filterWide = false
    /// The text typed after `t` or `F`.
    package var prompt: String = ""
    package var sort: Sort = .creation
    /// The `CPU` and `RSS` columns are shown (`u`).
    package var showUsage = false
    package var paused = false
    package var follow = false
    /// Fold `map` adapters into their child's row.
    package var foldMaps = true
    /// The Δ column is shown (`d`): each row against the baseline run.
    package var showDelta = false
    /// A one-line notice for the footer ("Nothing to cancel: ... has finished").
    package var message: String?
    /// Set by `q`/Ctrl-C; the loop ends.
    package var quitRequested = false

    package init() {}

    /// Whether `row`'s children are shown (when not filtering).
    package func isExpanded(_ row: RowIndex) -> Bool {
        row.rawValue >= collapsed.count || !collapsed[row.rawValue]
    }

    mutating func setCollapsed(_ row: RowIndex, _ value: Bool) {
        let id = row.rawValue
        if id >= collapsed.count {
            guard value else { return }
            collapsed.append(contentsOf: repeatElement(false, count: id + 1 - collapsed.count))
        }
        collapsed[id] = value
    }
}
