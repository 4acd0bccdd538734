/// Replay keys: the controls a replay `DashboardSource` carries out, and the keys a live
/// dashboard answers itself.
extension Reducer {
    /// Which failure or cancel jump.
    enum Jump: Sendable {
        case nextFailed, prevFailed, nextCancelled, prevCancelled
    }

    /// `n`/`N`/`c`/`C`: a replay seeks (the source does it); a live dashboard selects the
    /// next / previous failed or cancelled node.
    static func jumpOrSeek(_ model: inout DashboardModel, _ jump: Jump) -> [DashboardEffect] {
        switch jump {
        case .nextFailed:
            if model.isReplay { return [.replay(.nextFailed)] }
            self.jump(&model, to: .failed, forward: true)
        case .prevFailed:
            if model.isReplay { return [.replay(.prevFailed)] }
            self.jump(&model, to: .failed, forward: false)
        case .nextCancelled:
            if model.isReplay { return [.replay(.nextCancelled)] }
            self.jump(&model, to: .cancelled, forward: true)
        case .prevCancelled:
            if model.isReplay { return [.replay(.prevCancelled)] }
            self.jump(&model, to: .cancelled, forward: false)
        }
        return []
    }

    /// `[`/`]`: with the detail pane open, scrolls its output; else the replay's previous /
    /// next marker.
    static func marker(_ model: inout DashboardModel, forward: Bool) -> [DashboardEffect] {
        if model.view.detailOpen {
            scrollDetail(&model, up: !forward)
            return []
        }
        return [.replay(forward ? .nextMarker : .prevMarker)]
    }
}
