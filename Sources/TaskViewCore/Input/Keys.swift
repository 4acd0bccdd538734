/// A key press, decoded from the terminal (or scripted in tests).
package enum Key: Hashable, Sendable {
    case char(Character)
    case up, down, left, right, pageUp, pageDown, home, end
    case enter, escape, backspace, ctrlC, resize, tab
    /// Alt (Meta) with a key: the terminal sends Esc then the key.
    case alt(Character)
    /// A mouse event, already placed on a tree row by the terminal layer.
    case mouse(MouseEvent)

    /// How the key is named in help, footers and replay logs.
    package var name: String {
        switch self {
        case .char(" "): "space"
        case .char(let c): String(c)
        case .up: "↑"
        case .down: "↓"
        case .left: "←"
        case .right: "→"
        case .pageUp: "PgUp"
        case .pageDown: "PgDn"
        case .home: "Home"
        case .end: "End"
        case .enter: "Enter"
        case .escape: "Esc"
        case .backspace: "Backspace"
        case .ctrlC: "Ctrl-C"
        case .resize: "resize"
        case .tab: "Tab"
        case .alt(let c): "Alt-" + String(c)
        case .mouse(let e): e.name
        }
    }
}

/// Everything a key can do.
package enum Action: Hashable, Sendable {
    case moveUp, moveDown, pageUp, pageDown, moveTop, moveBottom
    case collapseOrParent, expand, expandOne, collapseOne, expandAll
    case openDetail, close
    /// Scroll the detail pane's output toward older / newer lines.
    case detailScrollUp, detailScrollDown
    case cancelAsk, cancelNow
    /// Restart a settled node and what was skipped because of it: asking first, or not.
    case restartAsk, restartNow
    case pause, filter, follow, help, quit
    /// In a command's detail pane: search its output (`/`), go to the next / previous match.
    case searchOutput, searchNext, searchPrevious
    /// Open the selected command's whole output in `$PAGER`.
    case openOutput
    /// Plain mode: leave the dashboard for plain lines as they come (any key returns).
    case plainMode
    /// The detail pane's log records: cycle the minimum level shown (all, notice, warning, error).
    case cycleLogLevel
    // Replay only (implemented by a replay `DashboardSource`).
    case replayPlayPause, replayStepForward, replayStepBack, replaySeekBack, replaySeekForward
    case replayJump(tenths: Int)
    case replaySlower, replayFaster, replayReadOnly
    /// The next / previous failed or cancelled node (live: select it; replay: seek to the
    /// next moment one failed or was cancelled).
    case nextFailed, prevFailed, nextCancelled, prevCancelled
    /// The next node with a warning (`slow`, `silent`, `ignoresCancel`), wrapping.
    case nextWarning
    /// Fold the tree to a depth (1: roots only); `foldPrefix` (`z`) waits for the digit.
    case foldDepth(Int)
    case foldPrefix
    /// Cycle the order of siblings: creation, duration, name.
    case cycleSort
    /// Show or hide the `CPU` and `RSS` columns (what each node costs).
    case toggleUsage
    /// Replay: the previous / next marker (in the detail pane: scroll its output).
    case replayPrevMarker, replayNextMarker
    /// Replay: ask for a time to seek to / a text to find.
    case replaySeekPrompt, replayFindPrompt
    /// Replay: seek to a time; find the next moment a node with this name or info appeared.
    case replaySeek(SeekTarget)
    case replayFind(String)
    /// Show or hide the Δ column: each row against the baseline run.
    case toggleDelta
}

/// Where a binding applies.
package enum KeyScope: Sendable, Equatable {
    case always, liveOnly, replayOnly
}

/// Where in the dashboard a binding applies: anywhere, or only with the detail pane of a
/// command open (and, for match keys, an output search active). A binding for a narrower
/// context wins over one for anywhere with the same key.
package enum KeyContext: Int, Sendable, Comparable {
    case anywhere, commandDetail, outputSearch

    package static func < (a: KeyContext, b: KeyContext) -> Bool { a.rawValue < b.rawValue }
}

/// One row of the key table: the keys, what they do, and how help and footer show them.
package struct KeyBinding: Sendable {
    package let action: Action
    package let keys: [Key]
    /// Keys as help shows them: `↑/k`.
    package let label: String
    package let help: String
    package let scope: KeyScope
    /// Shown in the footer (the most useful keys).
    package let footer: String?
    /// Where it applies (see `KeyContext`).
    package var context: KeyContext = .anywhere
}

/// The one key table: it dispatches keys and generates the help overlay and the footer,
/// so they never disagree.
package enum KeyTable {
    package static let bindings: [KeyBinding] = {
        var b: [KeyBinding] = [
            .init(
                action: .moveUp, keys: [.up, .char("k")], label: "↑/k", help: "move up", scope: .always, footer: nil),
            .init(
                action: .moveDown, keys: [.down, .char("j")], label: "↓/j", help: "move down", scope: .always,
                footer: "↑↓ move"),
            .init(action: .pageUp, keys: [.pageUp], label: "PgUp", help: "page up", scope: .always, footer: nil),
            .init(action: .pageDown, keys: [.pageDown], label: "PgDn", help: "page down", scope: .always, footer: nil),
            .init(
                action: .moveTop, keys: [.char("g"), .home], label: "g/Home", help: "first row", scope: .always,
                footer: nil),
            .init(
                action: .moveBottom, keys: [.char("G"), .end], label: "G/End", help: "last row", scope: .always,
                footer: nil),
            .init(
                action: .collapseOrParent, keys: [.left, .char("h")], label: "←/h", help: "collapse, or go to parent",
                scope: .liveOnly, footer: nil),
            .init(
                action: .collapseOrParent, keys: [.char("h")], label: "h", help: "collapse, or go to parent",
                scope: .replayOnly, footer: nil),
            .init(
                action: .expand, keys: [.right, .char("l")], label: "→/l", help: "expand", scope: .liveOnly, footer: nil
            ),
            .init(action: .expand, keys: [.char("l")], label: "l", help: "expand", scope: .replayOnly, footer: nil),
            .init(action: .expandOne, keys: [.char("+")], label: "+", help: "expand", scope: .always, footer: nil),
            .init(action: .collapseOne, keys: [.char("-")], label: "-", help: "collapse", scope: .always, footer: nil),
            .init(action: .expandAll, keys: [.char("*")], label: "*", help: "expand all", scope: .always, footer: nil),
            .init(
                action: .openDetail, keys: [.enter], label: "Enter", help: "detail pane", scope: .always,
                footer: "Enter detail"),
            .init(
                action: .detailScrollUp, keys: [.char("[")], label: "[", help: "scroll the detail output up",
                scope: .always, footer: nil),
            .init(
                action: .detailScrollDown, keys: [.char("]")], label: "]",
                help: "scroll the detail output down (the bottom follows)", scope: .always, footer: nil),
            .init(
                action: .close, keys: [.escape], label: "Esc", help: "close pane, clear filter", scope: .always,
                footer: nil),
            .init(
                action: .cancelAsk, keys: [.char("x")], label: "x", help: "cancel the selected subtree (asks)",
                scope: .liveOnly, footer: "x cancel"),
            .init(
                action: .cancelNow, keys: [.char("X")], label: "X", help: "cancel without asking", scope: .liveOnly,
                footer: nil),
            .init(
                action: .restartAsk, keys: [.char("r")], label: "r",
                help: "restart a settled node and what it skipped (asks; a: needs too)",
                scope: .liveOnly,
                footer: nil),
            .init(
                action: .restartNow, keys: [.char("R")], label: "R", help: "restart without asking", scope: .liveOnly,
                footer: nil),
            .init(
                action: .pause, keys: [.char(" ")], label: "space", help: "pause the display (events keep flowing)",
                scope: .liveOnly, footer: "space pause"),
            .init(
                action: .filter, keys: [.char("/")], label: "/", help: "filter by name (Esc clears)", scope: .always,
                footer: "/ filter"),
            .init(
                action: .searchOutput, keys: [.char("/")], label: "/",
                help: "in a command's detail pane: search its output", scope: .always, footer: "/ search",
                context: .commandDetail),
            .init(
                action: .searchNext, keys: [.char("n")], label: "n", help: "next output match (while searching)",
                scope: .always, footer: "n/N match", context: .outputSearch),
            .init(
                action: .searchPrevious, keys: [.char("N")], label: "N", help: "previous output match",
                scope: .always, footer: nil, context: .outputSearch),
            .init(
                action: .openOutput, keys: [.char("o")], label: "o",
                help: "whole output in $PAGER (default less -R)", scope: .always,
                footer: nil),
            .init(
                action: .cycleLogLevel, keys: [.char("L")], label: "L",
                help: "log records shown: all, notice, warning, error and above", scope: .always,
                footer: nil),
            .init(
                action: .plainMode, keys: [.char("p")], label: "p",
                help: "plain mode: lines in the terminal (any key returns)",
                scope: .liveOnly, footer: nil),
            .init(
                action: .follow, keys: [.char("f")], label: "f", help: "follow the newest active node", scope: .always,
                footer: "f follow"),
            .init(action: .help, keys: [.char("?")], label: "?", help: "help", scope: .always, footer: "? help"),
            .init(
                action: .quit, keys: [.char("q"), .ctrlC], label: "q/Ctrl-C", help: "quit", scope: .always,
                footer: "q quit"),
            .init(
                action: .replayPlayPause, keys: [.char(" ")], label: "space", help: "play/pause", scope: .replayOnly,
                footer: "space play"),
            .init(
                action: .replayStepForward, keys: [.char(".")], label: ".", help: "step one event forward",
                scope: .replayOnly, footer: nil),
            .init(
                action: .replayStepBack, keys: [.char(",")], label: ",", help: "step one event back",
                scope: .replayOnly, footer: nil),
            .init(
                action: .replaySeekBack, keys: [.left], label: "←", help: "seek back 5 s", scope: .replayOnly,
                footer: "←→ seek"),
            .init(
                action: .replaySeekForward, keys: [.right], label: "→", help: "seek forward 5 s", scope: .replayOnly,
                footer: nil),
            .init(
                action: .replaySlower, keys: [.char("<")], label: "<", help: "half speed (down to 1/64)",
                scope: .replayOnly, footer: nil),
            .init(
                action: .replayFaster, keys: [.char(">")], label: ">", help: "double speed (up to 64)",
                scope: .replayOnly, footer: nil),
            .init(
                action: .replayReadOnly, keys: [.char("x"), .char("X"), .char("r"), .char("R")], label: "x/X/r/R",
                help: "(a replay is read-only)",
                scope: .replayOnly, footer: nil),
        ]
        let digits: [Key] = (0...9).map { .char(Character(String($0))) }
        b.insert(
            .init(
                action: .replayJump(tenths: 0), keys: digits, label: "0-9", help: "jump to 0%-90%", scope: .replayOnly,
                footer: nil),
            at: b.count - 3)
        b += [
            .init(
                action: .nextFailed, keys: [.char("n")], label: "n",
                help: "next failed node (replay: the moment one failed)",
                scope: .always, footer: nil),
            .init(
                action: .prevFailed, keys: [.char("N")], label: "N", help: "previous failed node", scope: .always,
                footer: nil),
            .init(
                action: .nextCancelled, keys: [.char("c")], label: "c",
                help: "next cancelled node (replay: the moment)",
                scope: .always, footer: nil),
            .init(
                action: .prevCancelled, keys: [.char("C")], label: "C", help: "previous cancelled node", scope: .always,
                footer: nil),
            .init(
                action: .nextWarning, keys: [.char("W")], label: "W", help: "next node with a warning, wrapping",
                scope: .always, footer: nil),
            .init(
                action: .foldDepth(0), keys: (1...9).map { .char(Character(String($0))) }, label: "1-9",
                help: "fold the tree to that depth (1: roots only)", scope: .liveOnly, footer: nil),
            .init(
                action: .foldDepth(0), keys: (1...9).map { .alt(Character(String($0))) }, label: "Alt-1-9",
                help: "fold the tree to that depth", scope: .always, footer: nil),
            .init(
                action: .foldPrefix, keys: [.char("z")], label: "z 1-9", help: "fold the tree to that depth",
                scope: .always, footer: nil),
            .init(
                action: .cycleSort, keys: [.char("s")], label: "s", help: "sort siblings: creation, duration, name",
                scope: .always, footer: nil),
            .init(
                action: .toggleUsage, keys: [.char("u")], label: "u",
                help: "CPU and RSS columns: what each node costs", scope: .always,
                footer: nil),
            .init(
                action: .replayPrevMarker, keys: [.char("[")], label: "[",
                help: "previous marker: failure, cancel, root settled",
                scope: .replayOnly, footer: nil),
            .init(
                action: .replayNextMarker, keys: [.char("]")], label: "]",
                help: "next marker (in the detail pane [ ] scroll)",
                scope: .replayOnly, footer: nil),
            .init(
                action: .replaySeekPrompt, keys: [.char("t")], label: "t", help: "seek to a time (1:30, 90s, 45%)",
                scope: .replayOnly, footer: nil),
            .init(
                action: .replayFindPrompt, keys: [.char("F")], label: "F",
                help: "find: seek to when a name or info appears", scope: .replayOnly, footer: nil),
        ]
        b += KeyTable.comparisonBindings
        return b
    }()

    /// The bindings that apply in a live session or a replay.
    package static func bindings(replay: Bool) -> [KeyBinding] {
        bindings.filter { $0.scope == .always || $0.scope == (replay ? .replayOnly : .liveOnly) }
    }

    /// The bindings in force in `context`: its own, and those for anywhere whose keys it
    /// does not take over.
    package static func bindings(replay: Bool, context: KeyContext) -> [KeyBinding] {
        let rows = bindings(replay: replay)
        let own = rows.filter { $0.context != .anywhere && $0.context <= context }
        let taken = Set(own.flatMap(\.keys))
        return rows.filter { b in
            b.context == .anywhere ? !b.keys.contains(where: taken.contains) : b.context <= context
        }
    }

    /// The action for a key, if any (`context`: where the keyboard is, see `KeyContext`). A
    /// binding for a narrower context wins; then live- or replay-only ones (replay binds
    /// `[`/`]` to markers before the detail pane's scrolling), then those for both.
    package static func action(for key: Key, replay: Bool, context: KeyContext = .anywhere) -> Action? {
        let all = bindings(replay: replay)
        for b in all where b.context != .anywhere && b.context <= context && b.keys.contains(key) {
            return b.action
        }
        let anywhere = all.filter { $0.context == .anywhere }
        let rows = anywhere.filter { $0.scope != .always } + anywhere.filter { $0.scope == .always }
        for b in rows where b.keys.contains(key) {
            switch (b.action, key) {
            case (.replayJump, .char(let c)):
                if let d = c.wholeNumberValue { return .replayJump(tenths: d) }
            case (.foldDepth, .char(let c)), (.foldDepth, .alt(let c)):
                if let d = c.wholeNumberValue { return .foldDepth(d) }
            default:
                break
            }
            return b.action
        }
        return nil
    }

    /// The help overlay's lines: `label  description`, in table order.
    package static func helpLines(replay: Bool, ascii: Bool = false) -> [String] {
        let rows = bindings(replay: replay).filter { !$0.help.isEmpty }
        let labels = rows.map { ascii ? asciiLabel($0.label) : $0.label }
        let width = labels.map(\.count).max() ?? 0
        return zip(rows, labels).map { row, label in
            label + String(repeating: " ", count: width - label.count + 2) + row.help
        }
    }

    /// The footer's key hints.
    package static func footer(replay: Bool, ascii: Bool = false, context: KeyContext = .anywhere) -> String {
        let text = bindings(replay: replay, context: context).compactMap(\.footer).joined(separator: "  ")
        return ascii ? asciiLabel(text) : text
    }

    /// Arrow names spelled in ASCII.
    package static func asciiLabel(_ text: String) -> String {
        text.replacing("↑↓", with: "Up/Down").replacing("←→", with: "Left/Right")
            .replacing("↑", with: "Up").replacing("↓", with: "Down")
            .replacing("←", with: "Left").replacing("→", with: "Right")
    }
}
