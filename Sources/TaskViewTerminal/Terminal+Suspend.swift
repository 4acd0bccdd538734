import CNcurses

extension Terminal {
    /// Steps curses aside (`def_prog_mode`, `endwin`): the terminal is the program's own
    /// screen with its own modes until `resume()`, as for the pager or plain mode.
    func suspend() {
        def_prog_mode()
        endwin()
    }

    /// Comes back from `suspend()` (`reset_prog_mode`, `refresh`) and draws the next frame
    /// whole.
    func resume() {
        reset_prog_mode()
        refresh()
        invalidate()
    }
}
