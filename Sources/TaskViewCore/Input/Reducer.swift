import TaskGraph

/// The pure update step: (model, key) -> model + effects. Keys reach actions only through
/// `KeyTable`; nothing here talks to a graph or a terminal.
package enum Reducer {
    /// Applies a key. `rows` is the height of the tree area (for PgUp/PgDn).
    package static func reduce(_ model: inout DashboardModel, key: Key, rows: Int) -> [DashboardEffect] {
        model.refreshDerived()
        switch model.view.mode {
        case .confirmCancel(let row):
            model.view.mode = .normal
            if key == .ctrlC {
                model.view.quitRequested = true
                return []
            }
            if key == .char("y") || key == .char("Y") {
                return cancel(&model, row)
            }
            model.view.message = "Not cancelled"
            return []
        case .confirmRestart(let row, _):
            model.view.mode = .normal
            if key == .ctrlC {
                model.view.quitRequested = true
                return []
            }
            if key == .char("y") || key == .char("Y") { return [.restart(row: row)] }
            if key == .char("a") || key == .char("A") { return [.restart(row: row, withNeeds: true)] }
            model.view.message = "Not restarted"
            return []
        case .filterInput:
            editFilter(&model, key)
            return []
        case .searchInput:
            editSearch(&model, key)
            return []
        case .help:
            if key == .ctrlC || key == .char("q") { model.view.quitRequested = true }
            model.view.mode = .normal
            return []
        case .foldPrefix, .seekInput, .findInput:
            return reducePrompt(&model, key: key, rows: max(1, rows)) ?? []
        case .normal:
            break
        }
        if key == .resize { return [] }
        if case .mouse(let e) = key {
            model.view.message = nil
            return mouse(&model, e, rows: max(1, rows))
        }
        guard let action = KeyTable.action(for: key, replay: model.isReplay, context: model.keyContext) else {
            return []
        }
        model.view.message = nil
        return apply(&model, action, rows: max(1, rows))
    }

    /// Applies an action (what a key maps to). One case per action and no `default`, so a
    /// new `Action` does not compile until it is handled here; each concern's work is in its
    /// own file (`Reducer+Navigation`, `Reducer+Detail`, `Reducer+Output`, `Reducer+Commands`,
    /// `Reducer+Replay`, `Reducer+Prompts`).
    package static func apply(_ model: inout DashboardModel, _ action: Action, rows: Int) -> [DashboardEffect] {
        switch action {
        // Moving through the tree and shaping it (Reducer+Navigation).
        case .moveUp: move(&model, .up, rows: rows)
        case .moveDown: move(&model, .down, rows: rows)
        case .pageUp: move(&model, .pageUp, rows: rows)
        case .pageDown: move(&model, .pageDown, rows: rows)
        case .moveTop: move(&model, .top, rows: rows)
        case .moveBottom: move(&model, .bottom, rows: rows)
        case .collapseOrParent: collapseOrParent(&model)
        case .expand, .expandOne: setSelectionCollapsed(&model, false)
        case .collapseOne: setSelectionCollapsed(&model, true)
        case .expandAll: model.view.collapsed = []
        case .foldPrefix: model.view.mode = .foldPrefix
        case .foldDepth(let depth): foldToDepth(&model, depth)
        case .cycleSort: cycleSort(&model)
        case .toggleUsage: model.view.showUsage.toggle()
        case .follow: toggleFollow(&model)
        case .filter: model.view.mode = .filterInput
        case .nextFailed: return jumpOrSeek(&model, .nextFailed)
        case .prevFailed: return jumpOrSeek(&model, .prevFailed)
        case .nextCancelled: return jumpOrSeek(&model, .nextCancelled)
        case .prevCancelled: return jumpOrSeek(&model, .prevCancelled)
        case .nextWarning: nextWarning(&model)
        // The detail pane (Reducer+Detail).
        case .openDetail: openDetail(&model)
        case .close: close(&model)
        case .detailScrollUp: scrollDetail(&model, up: true)
        case .detailScrollDown: scrollDetail(&model, up: false)
        // A command's output (Reducer+Output).
        case .searchOutput:
            clearSearch(&model)
            model.view.mode = .searchInput
        case .searchNext: stepSearch(&model, forward: true)
        case .searchPrevious: stepSearch(&model, forward: false)
        case .openOutput: return openOutput(&model)
        case .cycleLogLevel: cycleLogLevel(&model)
        case .plainMode: return [.plainMode]
        // Cancelling and restarting nodes (Reducer+Commands).
        case .cancelAsk: return cancel(&model, ask: true)
        case .cancelNow: return cancel(&model, ask: false)
        case .restartAsk: return restart(&model, ask: true)
        case .restartNow: return restart(&model, ask: false)
        // The session.
        case .pause: togglePause(&model)
        case .help: model.view.mode = .help
        case .quit: model.view.quitRequested = true
        // Replay controls (Reducer+Replay).
        case .replayReadOnly:
            model.view.message = "A replay is read-only: nothing can be cancelled or restarted"
        case .replayPlayPause: return [.replay(.playPause)]
        case .replayStepForward: return [.replay(.stepForward)]
        case .replayStepBack: return [.replay(.stepBack)]
        case .replaySeekBack: return [.replay(.seekBack)]
        case .replaySeekForward: return [.replay(.seekForward)]
        case .replayJump(let tenths): return [.replay(.jump(tenths: tenths))]
        case .replaySlower: return [.replay(.slower)]
        case .replayFaster: return [.replay(.faster)]
        case .replayPrevMarker: return marker(&model, forward: false)
        case .replayNextMarker: return marker(&model, forward: true)
        case .replaySeekPrompt: openPrompt(&model, .seekInput)
        case .replayFindPrompt: openPrompt(&model, .findInput)
        case .replaySeek(let target): return [.replay(.seek(target))]
        case .replayFind(let text): return [.replay(.find(text))]
        // Comparing with another run (Reducer+Compare).
        case .toggleDelta: toggleDelta(&model)
        }
        return []
    }

    /// `p`: freezes the tree shown (the model keeps absorbing), or lets it go.
    static func togglePause(_ model: inout DashboardModel) {
        model.view.paused.toggle()
        model.frozen = model.view.paused ? model.tree : nil
        model.pausedClock = model.view.paused ? model.clockNow : nil
        model.fixSelection()
    }
}
