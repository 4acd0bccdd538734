/// Every glyph the dashboard and the headless tree draw, in one place, with the ASCII
/// fallback beside the Unicode set (`--ascii` or a non-UTF-8 locale swaps them all).
public struct Glyphs: Sendable, Equatable {
    public var notExecuted: Unicode.Scalar
    public var executing: Unicode.Scalar
    public var succeeded: Unicode.Scalar
    public var failed: Unicode.Scalar
    public var cancelled: Unicode.Scalar
    public var skipped: Unicode.Scalar
    /// Branch to a child with later siblings, to the last child, and the continuation
    /// line through a level: each two columns.
    public var tee: String
    public var last: String
    public var pipe: String
    /// Progress bar: full cell, partial cells for 1/8 ... 7/8, empty track.
    public var barFull: Unicode.Scalar
    public var barEighths: [Unicode.Scalar]
    public var barTrack: Unicode.Scalar
    public var ellipsis: Unicode.Scalar
    /// Marks a collapsed node that has children.
    public var collapsed: Unicode.Scalar
    public var isASCII: Bool

    /// Box-drawing lines, state symbols and eighth blocks.
    public static let unicode = Glyphs(
        notExecuted: "○", executing: "●", succeeded: "✓", failed: "✗", cancelled: "⊘",
        skipped: "–", tee: "├─", last: "└─", pipe: "│ ", barFull: "█",
        barEighths: [" ", "▏", "▎", "▍", "▌", "▋", "▊", "▉"], barTrack: "·", ellipsis: "…",
        collapsed: "▸", isASCII: false)

    /// The same picture in ASCII only.
    public static let ascii = Glyphs(
        notExecuted: "o", executing: "*", succeeded: "+", failed: "X", cancelled: "/",
        skipped: "-", tee: "|-", last: "`-", pipe: "| ", barFull: "#",
        barEighths: [" ", "-", "-", "-", "=", "=", "=", "="], barTrack: ".", ellipsis: "~",
        collapsed: ">", isASCII: true)

    /// The glyph of a display state.
    public func glyph(_ state: DisplayState) -> Unicode.Scalar {
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
