import CNcurses
import TaskGraph
import TaskViewCore
import TaskViewIO

#if canImport(Glibc)
    import Glibc
#endif

/// The interactive loop: one thread, no busy waiting. It waits (poll) on the terminal and
/// on the source's wake descriptors at most until the source next has work, runs keys
/// through the reducer, lets the source take events and move time, and redraws only when
/// the model or the screen changed (at most ~30 frames a second; `FramePacer`).
package enum DashboardLoop {
    /// What the loop needs besides a source.
    package struct Options: Sendable {
        package var ascii: Bool
        package var noColor: Bool
        package var exitWhenDone: Bool
        /// Clicks select rows, double clicks open the detail pane, the wheel scrolls
        /// (`--no-mouse` turns it off).
        package var mouse: Bool
        /// The colours (`--theme`, `TASKVIEW_THEME`).
        package var theme: Theme
        package init(
            ascii: Bool, noColor: Bool, exitWhenDone: Bool, mouse: Bool = true, theme: Theme = .ansi
        ) {
            self.ascii = ascii
            self.noColor = noColor
            self.exitWhenDone = exitWhenDone
            self.mouse = mouse
            self.theme = theme
        }
    }

    /// Runs the dashboard until the person quits (or the root settled with
    /// `exitWhenDone`), restoring the terminal on every way out. Returns the final model.
    package static func run(source: any DashboardSource, title: String, options: Options) throws -> DashboardModel {
        Signals.install()
        let terminal = try Terminal(noColor: options.noColor, theme: options.theme)
        defer { terminal.close() }
        if options.mouse { terminal.enableMouse(true) }
        var model = DashboardModel(title: title)
        model.ascii = options.ascii
        let renderer = Renderer(ascii: options.ascii)
        let t0 = monotonicSeconds()
        source.start(model: &model)
        var pacer = FramePacer(takesDataPerFrame: source.takesDataPerFrame)
        var treeRows = max(1, terminal.size.height - 2)
        var lastFrame: (treeTop: Int, treeRows: Int, height: Int) = (1, treeRows, terminal.size.height)
        var lastClick: (time: Double, row: Int)?

        while true {
            let now = monotonicSeconds() - t0
            if Signals.pending != 0 {
                Signals.reset()
                source.finish(source: ViewerCancelSource.signal, model: &model)
                break
            }
            if model.view.quitRequested {
                source.finish(source: ViewerCancelSource.quit, model: &model)
                break
            }
            if pacer.shouldDraw(at: now) {
                model.fixSelection()
                let (w, h) = terminal.size
                let f = renderer.render(model, width: w, height: h)
                model.view.top = f.top
                treeRows = max(1, f.treeRows)
                lastFrame = (f.treeTop, f.treeRows, h)
                terminal.draw(f.grid)
                pacer.drew(at: now)
                if model.outcome != nil && options.exitWhenDone { break }
            }
            let wait = pacer.wait(
                at: now, sourceWait: source.secondsUntilNextTick(realElapsed: now, model: model) ?? 0.25)
            let ms = Int((wait * 1000).rounded(.up))
            var pressed = false
            if var key = nextKey(terminal, source: source, milliseconds: ms, wake: pacer.takesData(at: now)) {
                pressed = true
                if case .mouse(var e) = key {
                    // Two presses on one row within 0.4 s: a double click.
                    let at = monotonicSeconds()
                    if e.kind == .click {
                        if let (t, row) = lastClick, row == e.row, at - t < 0.4 {
                            e.kind = .doubleClick
                            lastClick = nil
                        } else {
                            lastClick = (at, e.row)
                        }
                    }
                    key = .mouse(place(e, lastFrame))
                }
                if key == .resize {
                    terminal.handleResize()
                } else {
                    let effects = Reducer.reduce(&model, key: key, rows: treeRows)
                    for e in effects {
                        if case .openOutput(let node) = e {
                            openOutput(node, source: source, terminal: terminal, model: &model, t0: t0)
                        } else if e == .plainMode {
                            plainMode(source: source, terminal: terminal, model: &model, t0: t0)
                        } else {
                            source.perform(e, key: key, model: &model)
                        }
                    }
                }
                pacer.keyPressed()
            }
            let elapsed = monotonicSeconds() - t0
            if pacer.takesData(at: elapsed, afterKey: pressed) && source.tick(realElapsed: elapsed, model: &model) {
                pacer.changed()
            }
        }
        return model
    }

    /// `o`: the command's whole output in the pager, the source still ticking meanwhile.
    static func openOutput(
        _ node: NodeIndex, source: any DashboardSource, terminal: Terminal, model: inout DashboardModel, t0: Double
    ) {
        let stream = StreamPagerFile.write(model, node: node)
        defer { if let stream { unlink(stream) } }
        guard let path = stream ?? source.outputFile(node: node, model: model) else {
            model.view.message = "No output kept for " + model.shown.nodes[node.rawValue].name
            return
        }
        var m = model
        let message = Pager.show(path: path, terminal: terminal, wake: source.wakeDescriptors) {
            _ = source.tick(realElapsed: monotonicSeconds() - t0, model: &m)
        }
        model = m
        model.view.message = message
    }

    /// `p`: plain lines in the terminal's own screen until a key; the source keeps ticking.
    static func plainMode(source: any DashboardSource, terminal: Terminal, model: inout DashboardModel, t0: Double) {
        guard let feed = source.plainFeed else {
            model.view.message = "Plain mode is for live runs"
            return
        }
        var m = model
        PlainMode.run(feed: feed, terminal: terminal, wake: source.wakeDescriptors) {
            _ = source.tick(realElapsed: monotonicSeconds() - t0, model: &m)
            return m
        }
        model = m
    }

    /// A key curses already holds, else waits up to `milliseconds` for the terminal or (with
    /// `wake`) a source descriptor: a key if the terminal became readable, nil otherwise
    /// (events, a signal or the time is up: the caller ticks the source either way).
    static func nextKey(_ terminal: Terminal, source: any DashboardSource, milliseconds: Int, wake: Bool = true) -> Key?
    {
        if let key = terminal.readKey(timeout: 0) { return key }
        var fds = [pollfd(fd: terminal.inputDescriptor, events: Int16(POLLIN), revents: 0)]
        for fd in wake ? source.wakeDescriptors : [] { fds.append(pollfd(fd: fd, events: Int16(POLLIN), revents: 0)) }
        let n = poll(&fds, nfds_t(fds.count), Int32(max(0, min(milliseconds, 60_000))))
        // A signal (EINTR) may be a resize: curses reports it as a key.
        guard n > 0 ? fds[0].revents != 0 : n < 0 else { return nil }
        return terminal.readKey(timeout: 0)
    }

    /// A mouse event at screen row `e.row`, placed on a tree row (or the detail pane
    /// below the tree rows, or nowhere: row -1).
    static func place(_ e: MouseEvent, _ frame: (treeTop: Int, treeRows: Int, height: Int)) -> MouseEvent {
        let y = e.row
        if y >= frame.treeTop && y < frame.treeTop + frame.treeRows {
            return MouseEvent(e.kind, row: y - frame.treeTop)
        }
        return MouseEvent(e.kind, row: -1, inDetail: y >= frame.treeTop + frame.treeRows && y < frame.height - 1)
    }

    static func monotonicSeconds() -> Double { TaskGraph.monotonicSeconds() }
}
