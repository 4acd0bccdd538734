import CNcurses
import Testing

@testable import TaskViewCore
@testable import TaskViewTerminal

#if canImport(Glibc)
    import Glibc
#endif

/// The curses layer off-terminal: `newterm` on /dev/null, then the screen read back.
/// Curses state is process-global, hence `.serialized`.
@Suite(.serialized) struct TerminalTests {
    static func open(width: Int, height: Int, noColor: Bool = false) throws -> Terminal {
        setlocale(LC_ALL, "C.UTF-8")
        let term = try Terminal(
            term: "xterm-256color", output: fopen("/dev/null", "w"),
            input: fopen("/dev/null", "r"), ownsFiles: true, noColor: noColor)
        term.resize(width: width, height: height)
        return term
    }

    static func text(_ t: Terminal, row: Int, width: Int) -> String {
        var out = String.UnicodeScalarView()
        for x in 0..<width {
            var ch: wchar_t = 0
            var attrs: attr_t = 0
            var pair: Int16 = 0
            if tv_read(t.rawWindow, Int32(row), Int32(x), &ch, &attrs, &pair) == OK,
                let s = Unicode.Scalar(UInt32(bitPattern: ch))
            {
                out.append(s)
            }
        }
        var s = String(out)
        while s.hasSuffix(" ") { s.removeLast() }
        return s
    }

    static func style(_ t: Terminal, x: Int, y: Int) -> (attrs: attr_t, pair: Int16) {
        var ch: wchar_t = 0
        var attrs: attr_t = 0
        var pair: Int16 = 0
        _ = tv_read(t.rawWindow, Int32(y), Int32(x), &ch, &attrs, &pair)
        return (attrs, pair)
    }

    @Test func drawsTheRenderedGridWithColours() throws {
        let t = try Self.open(width: 100, height: 8)
        defer { t.close() }
        var m = model(smallBuild())
        m.refreshDerived()
        let grid = Renderer(ascii: false).render(m, width: 100, height: 8).grid
        t.draw(grid)
        for y in 0..<8 { #expect(Self.text(t, row: y, width: 100) == grid.lines[y], "row \(y)") }
        #expect(Self.text(t, row: 4, width: 100).hasPrefix("│  └─ ✗ b.c"))
        let failedGlyph = Self.style(t, x: 6, y: 4)
        #expect(failedGlyph.pair == 1) // red
        #expect(failedGlyph.attrs & tv_A_BOLD != 0)
        #expect(Self.style(t, x: 0, y: 1).attrs & tv_A_REVERSE != 0) // selection
    }

    @Test func onlyChangedCellsAreRedrawnAndResizeRepaints() throws {
        let t = try Self.open(width: 60, height: 8)
        defer { t.close() }
        var m = model(smallBuild())
        t.draw(Renderer(ascii: true).render(m, width: 60, height: 8).grid)
        press(&m, .down)
        m.refreshDerived()
        let next = Renderer(ascii: true).render(m, width: 60, height: 8).grid
        t.draw(next)
        for y in 0..<8 { #expect(Self.text(t, row: y, width: 60) == next.lines[y]) }
        t.resize(width: 20, height: 5)
        #expect(t.size.width == 20 && t.size.height == 5)
        let small = Renderer(ascii: true).render(m, width: 20, height: 5).grid
        t.draw(small)
        for y in 0..<5 { #expect(Self.text(t, row: y, width: 20) == small.lines[y]) }
    }

    @Test func noColorKeepsStatesApartByAttributes() throws {
        let t = try Self.open(width: 60, height: 8, noColor: true)
        defer { t.close() }
        var m = model(smallBuild())
        m.refreshDerived()
        t.draw(Renderer(ascii: false).render(m, width: 60, height: 8).grid)
        let failed = Self.style(t, x: 6, y: 4)
        let executing = Self.style(t, x: 3, y: 5)
        #expect(failed.pair == 0 && executing.pair == 0)
        #expect(failed.attrs & tv_A_BOLD != 0)
        #expect(Self.text(t, row: 4, width: 60).contains("✗ b.c"))
    }

    @Test func unknownTerminalIsAnErrorNotAnExit() {
        #expect(throws: Terminal.OpenError.self) {
            _ = try Terminal(
                term: "no-such-terminal-type", output: fopen("/dev/null", "w"),
                input: fopen("/dev/null", "r"), ownsFiles: true, noColor: true)
        }
    }

    @Test func keyCodesDecode() {
        #expect(KeyDecoder.special(KEY_UP) == .up)
        #expect(KeyDecoder.special(KEY_NPAGE) == .pageDown)
        #expect(KeyDecoder.special(KEY_RESIZE) == .resize)
        #expect(KeyDecoder.character(27) == .escape)
        #expect(KeyDecoder.character(13) == .enter)
        #expect(KeyDecoder.character(127) == .backspace)
        #expect(KeyDecoder.character(3) == .ctrlC)
        #expect(KeyDecoder.character(0x78) == .char("x"))
        #expect(KeyDecoder.character(1) == nil)
    }

    @Test func aPagerThatFailsIsNamedWithItsStatus() {
        #expect(Pager.failure(program: "less", waitStatus: 0) == nil)
        #expect(
            Pager.failure(program: "false", waitStatus: 1 << 8)
                == "The pager failed: $PAGER \"false\" exited with status 1")
        #expect(
            Pager.failure(program: "nopager", waitStatus: 127 << 8)
                == "Cannot open the output: $PAGER \"nopager\" could not start (status 127)")
        #expect(
            Pager.failure(program: "less", waitStatus: SIGKILL)
                == "The pager failed: $PAGER \"less\" was killed by signal 9")
        #expect(
            Pager.failure(program: "\u{1B}[31mx", waitStatus: 2 << 8)
                == "The pager failed: $PAGER \"?[31mx\" exited with status 2")
    }
}
