/// What is typed at a prompt: the filter (`/` over the tree), `z` and a depth, and the
/// replay's seek (`t`) and find (`F`) prompts.
extension Reducer {
    static func editFilter(_ model: inout DashboardModel, _ key: Key) {
        switch key {
        case .escape:
            model.view.filter = ""
            model.view.mode = .normal
        case .enter:
            model.view.mode = .normal
        case .backspace:
            if !model.view.filter.isEmpty { model.view.filter.removeLast() }
        case .ctrlC:
            model.view.quitRequested = true
        case .tab:
            model.view.filterWide.toggle()
        case .char(let c):
            let clean = Sanitizer.clean(String(c))
            if model.view.filter.count < 200 { model.view.filter += clean }
        default:
            return
        }
        model.fixSelection()
    }

    /// Keys while `z`, `t` or `F` waits for more; nil when the mode is none of these.
    static func reducePrompt(_ model: inout DashboardModel, key: Key, rows: Int) -> [DashboardEffect]? {
        switch model.view.mode {
        case .foldPrefix:
            model.view.mode = .normal
            if case .char(let c) = key, let d = c.wholeNumberValue, d >= 1 {
                return apply(&model, .foldDepth(d), rows: rows)
            }
            if key == .ctrlC { model.view.quitRequested = true }
            return []
        case .seekInput, .findInput:
            return editPrompt(&model, key)
        case .normal, .confirmCancel, .confirmRestart, .filterInput, .searchInput, .help:
            return nil
        }
    }

    static func editPrompt(_ model: inout DashboardModel, _ key: Key) -> [DashboardEffect] {
        let seeking = model.view.mode == .seekInput
        switch key {
        case .escape:
            model.view.mode = .normal
        case .ctrlC:
            model.view.mode = .normal
            model.view.quitRequested = true
        case .backspace:
            if !model.view.prompt.isEmpty { model.view.prompt.removeLast() }
        case .char(let c):
            if model.view.prompt.count < 200 { model.view.prompt += Sanitizer.clean(String(c)) }
        case .enter:
            model.view.mode = .normal
            let text = model.view.prompt
            if text.isEmpty { return [] }
            if !seeking { return [.replay(.find(text))] }
            guard let target = SeekTarget(text) else {
                model.view.message = "Not a time: \(text) (try 1:30, 90s or 45%)"
                return []
            }
            return [.replay(.seek(target))]
        default:
            break
        }
        return []
    }

    /// Opens the seek or find prompt, empty.
    static func openPrompt(_ model: inout DashboardModel, _ mode: ViewState.Mode) {
        model.view.mode = mode
        model.view.prompt = ""
    }
}
