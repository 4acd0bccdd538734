import CNcurses
import TaskViewCore
import TaskViewIO

#if canImport(Glibc)
    import Glibc
#endif

/// The curses screen: setup and restore, size, key input, and drawing a `CellGrid` by
/// copying only the cells that changed since the last frame. Every call on the main thread.
package final class Terminal {
    package enum OpenError: Error, CustomStringConvertible {
        case unknownTerminal(String)
        package var description: String {
            switch self {
            case .unknownTerminal(let t): "cannot use terminal type '\(Sanitizer.clean(t))'"
            }
        }
    }

    let screen: OpaquePointer
    let window: UnsafeMutablePointer<WINDOW>
    let output: UnsafeMutablePointer<FILE>?
    let input: UnsafeMutablePointer<FILE>?
    let ownsFiles: Bool
    let colors: Bool
    private var previous: CellGrid?
    /// A button press was reported and its release not yet.
    private var pressed = false
    private var closed = false

    /// Starts curses on the real terminal (stdout/stdin) with `TERM`.
    package convenience init(noColor: Bool, theme: Theme = .ansi) throws {
        try self.init(
            term: nil, output: tv_fdopen(1, "w"), input: tv_fdopen(0, "r"), ownsFiles: true, noColor: noColor,
            theme: theme)
    }

    /// Starts curses on the given streams (tests use /dev/null).
    package init(
        term: String?, output: UnsafeMutablePointer<FILE>?, input: UnsafeMutablePointer<FILE>?,
        ownsFiles: Bool, noColor: Bool, theme: Theme = .ansi
    ) throws {
        guard let s = newterm(term, output, input) else {
            if ownsFiles {
                if let output { fclose(output) }
                if let input { fclose(input) }
            }
            throw OpenError.unknownTerminal(term ?? getenv("TERM").map { String(cString: $0) } ?? "")
        }
        set_term(s)
        screen = s
        self.output = output
        self.input = input
        self.ownsFiles = ownsFiles
        // newterm's standard screen (curses resizes it on KEY_RESIZE); the `stdscr` global
        // itself does not import under Swift 6.
        window = tv_stdscr()
        cbreak()
        noecho()
        nonl()
        keypad(window, true)
        set_escdelay(25)
        curs_set(0)
        leaveok(window, true)
        var useColor = false
        if !noColor && theme != .mono && has_colors() {
            start_color()
            use_default_colors()
            useColor = true
            for (k, fg) in theme.foregrounds(colors: tv_colors()).enumerated() { init_pair(Int16(k + 1), fg, -1) }
        }
        colors = useColor
    }

    deinit { close() }

    /// Restores the terminal (cursor visible, alternate screen off). Safe to call twice.
    package func close() {
        guard !closed else { return }
        closed = true
        curs_set(1)
        endwin()
        delscreen(screen)
        if ownsFiles {
            if let output { fclose(output) }
            if let input { fclose(input) }
        }
    }

    /// Columns and rows.
    package var size: (width: Int, height: Int) {
        (Int(tv_getmaxx(window)), Int(tv_getmaxy(window)))
    }

    /// Repaints everything on the next draw (after a resize, curses already resized the
    /// standard screen).
    package func handleResize() {
        previous = nil
    }

    /// Resizes the virtual screen (off-terminal tests).
    package func resize(width: Int, height: Int) {
        resizeterm(Int32(height), Int32(width))
        previous = nil
    }

    /// Waits at most `milliseconds` (negative: forever) for a key.
    package func readKey(timeout milliseconds: Int) -> Key? {
        wtimeout(window, Int32(max(-1, min(milliseconds, 60_000))))
        var ch: wint_t = 0
        let r = wget_wch(window, &ch)
        if r == ERR { return nil }
        if r == KEY_CODE_YES {
            if Int32(ch) == KEY_MOUSE { return readMouse() }
            return KeyDecoder.special(Int32(ch))
        }
        let key = KeyDecoder.character(UInt32(ch))
        // Alt-digit arrives as Esc and the digit at once.
        if key == .escape {
            wtimeout(window, 0)
            var next: wint_t = 0
            let n = wget_wch(window, &next)
            if n == OK, let s = Unicode.Scalar(UInt32(next)), ("1"..."9").contains(Character(s)) {
                return .alt(Character(s))
            }
            if n == OK { unget_wch(wchar_t(bitPattern: UInt32(next))) }
            if n == KEY_CODE_YES { ungetch(Int32(next)) }
        }
        return key
    }

    /// Turns mouse reports on (clicks, double clicks, the wheel) or off; false when the
    /// terminal has no mouse.
    @discardableResult
    package func enableMouse(_ on: Bool) -> Bool {
        tv_mouse(on ? 1 : 0) != 0
    }

    /// A mouse event at screen row `row` (the loop places it on a tree row).
    private func readMouse() -> Key? {
        var y: Int32 = 0
        var x: Int32 = 0
        let kind: MouseEvent.Kind
        switch tv_read_mouse(&y, &x) {
        case 1:
            kind = .click
            pressed = true
        case 5:
            // A release ends the press that was reported; a lone one means the press was
            // merged away (both in one read): it is the click.
            if pressed {
                pressed = false
                return nil
            }
            kind = .click
        case 6: kind = .click
        case 2: kind = .doubleClick
        case 3: kind = .wheelUp
        case 4: kind = .wheelDown
        default: return nil
        }
        return .mouse(MouseEvent(kind, row: Int(y)))
    }

    /// The descriptor curses reads keys from (what the loop polls).
    package var inputDescriptor: Int32 { input.map { fileno($0) } ?? 0 }

    /// Draws `grid`, writing only cells that differ from the last frame.
    package func draw(_ grid: CellGrid) {
        let full = previous == nil || previous!.width != grid.width || previous!.height != grid.height
        if full { werase(window) }
        for y in 0..<grid.height {
            for x in 0..<grid.width {
                let cell = grid[x, y]
                if cell.scalar == Cell.continuationScalar { continue }
                if !full, let p = previous, p[x, y] == cell { continue }
                let (attrs, pair) = CursesStyle.attributes(cell.style, colors: colors)
                _ = tv_put(window, Int32(y), Int32(x), wchar_t(bitPattern: cell.scalar.value), attrs, pair)
            }
        }
        previous = grid
        wrefresh(window)
    }

    /// Forgets the last frame so the next `draw` repaints everything.
    package func invalidate() { previous = nil }

    /// The underlying window (tests read cells back from it).
    package var rawWindow: UnsafeMutablePointer<WINDOW> { window }
}
