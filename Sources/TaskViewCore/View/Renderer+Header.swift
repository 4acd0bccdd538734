extension Renderer {
    /// Row 0: title, elapsed time, finished/PAUSED/FOLLOW, replay position, counts per state,
    /// overall progress.
    func drawHeader(_ model: DashboardModel, into grid: inout CellGrid) {
        let w = grid.width
        grid.restyle(y: 0, from: 0, count: w) { $0 = CellStyle(.header) }
        let base = CellStyle(.header)
        var x = grid.write(" " + clean(model.title), x: 0, y: 0, style: CellStyle(.header, bold: true))
        let now = model.pausedClock ?? model.clockNow
        x = grid.write("  " + Format.duration(now), x: x, y: 0, style: base)
        if model.outcome == nil, let history = model.history, let eta = history.remaining(in: model.shown, now: now) {
            var text = "  ETA " + Format.duration(eta.seconds)
            if eta.unknown > 0 { text += " (\(eta.unknown) without history)" }
            x = grid.write(text, x: x, y: 0, style: base)
        }
        if let outcome = model.outcome {
            let role: StyleRole = outcome == .succeeded ? .succeeded : outcome == .failed ? .failed : .cancelled
            x = grid.write("  ", x: x, y: 0, style: base)
            x = grid.write("finished: " + outcome.word, x: x, y: 0, style: CellStyle(role, bold: true))
            if let detail = model.outcomeDetail {
                x = grid.write(" (" + clean(detail) + ")", x: x, y: 0, style: base)
            }
        }
        if let replay = model.replay {
            var r = "  replay " + Format.duration(replay.position) + "/" + Format.duration(replay.duration)
            r += " x" + Format.speed(replay.speed)
            if !replay.marks.isEmpty { r += "  marker \(replay.marker)/\(replay.marks.count)" }
            x = grid.write(r, x: x, y: 0, style: base)
        }
        // Live: the display is frozen. Replay: playback is paused.
        if model.view.paused || model.replay?.playing == false {
            x = grid.write("  ", x: x, y: 0, style: base)
            x = grid.write("PAUSED", x: x, y: 0, style: CellStyle(.accent, bold: true, reverse: true))
        }
        if model.view.sort != .creation {
            x = grid.write("  sort: " + model.view.sort.word, x: x, y: 0, style: CellStyle(.accent, bold: true))
        }
        if model.view.showUsage {
            x = grid.write("  CPU RSS", x: x, y: 0, style: CellStyle(.accent, bold: true))
        }
        if model.view.follow {
            x = grid.write("  ", x: x, y: 0, style: base)
            x = grid.write("FOLLOW", x: x, y: 0, style: CellStyle(.accent, bold: true, reverse: true))
        }
        let tree = model.shown
        let counts = tree.counts // after restarts a walk: once a frame
        let order: [DisplayState] = [.executing, .succeeded, .failed, .cancelled, .notExecuted, .skipped]
        for s in order {
            x = grid.write("  ", x: x, y: 0, style: base)
            x = grid.write(String(glyphs.glyph(s)), x: x, y: 0, style: CellStyle(Renderer.role(s), bold: s == .failed))
            x = grid.write(" \(counts[s.rawValue])", x: x, y: 0, style: base)
            // A scenario run's failures that `allowFailure` lets pass, counted apart.
            if s == .failed, model.judgesSteps, case let k = tree.allowedFailures, k > 0 {
                x = grid.write(" (\(k) allowed)", x: x, y: 0, style: base)
            }
        }
        if tree.warningCount > 0 {
            x = grid.write("  ", x: x, y: 0, style: base)
            x = grid.write(
                String(glyphs.warning) + " \(tree.warningCount)", x: x, y: 0, style: CellStyle(.cancelled, bold: true))
        }
        x = grid.write("  ", x: x, y: 0, style: base)
        if let p = tree.overallProgress {
            let barW = min(10, max(0, w - x - 5))
            drawBar(p, x: x, y: 0, width: barW, role: .accent, into: &grid)
            grid.write(" " + Format.percent(p).trimmingLeadingSpaces, x: x + barW, y: 0, style: base)
        } else {
            grid.write("no tasks", x: x, y: 0, style: base)
        }
    }
}

extension String {
    var trimmingLeadingSpaces: String {
        String(drop(while: { $0 == " " }))
    }
}
