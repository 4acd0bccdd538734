/// Every glyph the dashboard and the headless tree draw, in one place, with the ASCII
/// fallback beside the Unicode set (`--ascii` or a non-UTF-8 locale swaps them all).
package struct Glyphs: Sendable, Equatable {
    package var notExecuted: Unicode.Scalar
    package var executing: Unicode.Scalar
    package var succeeded: Unicode.Scalar
    package var failed: Unicode.Scalar
    package var cancelled: Unicode.Scalar
    package var skipped: Unicode.Scalar
    /// Branch to a child with later siblings, to the last child, and the continuation
    /// line through a level: each two columns.
    package var tee: String
    package var last: String
    package var pipe: String
    /// Progress bar: full cell, partial cells for 1/8 ... 7/8, empty track.
    package var barFull: Unicode.Scalar
    package var barEighths: [Unicode.Scalar]
    package var barTrack: Unicode.Scalar
    package var ellipsis: Unicode.Scalar
    /// Marks a collapsed node that has children.
    package var collapsed: Unicode.Scalar
    /// Marks a node with a warning (rows, the header's count, headless lines).
    package var warning: Unicode.Scalar = "⚠"
    package var isASCII: Bool

    /// Box-drawing lines, state symbols and eighth blocks.
    package static let unicode = Glyphs(
        notExecuted: "○", executing: "●", succeeded: "✓", failed: "✗", cancelled: "⊘",
        skipped: "–", tee: "├─", last: "└─", pipe: "│ ", barFull: "█",
        barEighths: [" ", "▏", "▎", "▍", "▌", "▋", "▊", "▉"], barTrack: "·", ellipsis: "…",
        collapsed: "▸", isASCII: false)

    /// The same picture in ASCII only.
    package static let ascii = Glyphs(
        notExecuted: "o", executing: "*", succeeded: "+", failed: "X", cancelled: "/",
        skipped: "-", tee: "|-", last: "`-", pipe: "| ", barFull: "#",
        barEighths: [" ", "-", "-", "-", "=", "=", "=", "="], barTrack: ".", ellipsis: "~",
        collapsed: ">", warning: "!", isASCII: true)

    /// The glyph of a display state.
    package func glyph(_ state: DisplayState) -> Unicode.Scalar {
        switch state {
        case .notExecuted: notExecuted
        case .executing: executing
        case .succeeded: succeeded
        case .failed: failed
        case .cancelled: cancelled
        case .skipped: skipped
        }
    }
}
