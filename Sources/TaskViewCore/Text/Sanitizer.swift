/// Makes text from users, files and task names safe to print on a terminal: no control
/// characters, no escape sequences, no zero-width or bidi tricks.
package enum Sanitizer {
    /// `text` with every control or format character replaced by `?`, tabs and newlines by a
    /// space, combining marks dropped; with `ascii`, every non-ASCII character becomes `?`.
    package static func clean(_ text: String, ascii: Bool = false) -> String {
        // Fast path: plain printable ASCII needs no work (most task names).
        // Over the contiguous bytes: `String.UTF8View` iterated byte by byte costs several
        // times more (a tenth of a replay seek went into this check).
        var bytes = text
        if bytes.withUTF8({ $0.allSatisfy { $0 >= 0x20 && $0 < 0x7F } }) { return text }
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if let s = cleanScalar(scalar, ascii: ascii) { out.append(s) }
        }
        return String(out)
    }

    /// What one scalar becomes (nil: dropped).

    package static func cleanScalar(_ s: Unicode.Scalar, ascii: Bool) -> Unicode.Scalar? {
        let v = s.value
        if v >= 0x20 && v < 0x7F { return s }
        if v == 0x09 || v == 0x0A || v == 0x0D { return " " }
        if v < 0x20 || (v >= 0x7F && v < 0xA0) { return "?" }
        if ascii { return "?" }
        switch s.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .spacingMark: return nil
        case .format, .control, .surrogate, .privateUse, .unassigned, .lineSeparator,
            .paragraphSeparator:
            return "?"
        default: return s
        }
    }

    /// Terminal columns a (clean) scalar takes: 2 for wide East Asian characters and emoji,
    /// else 1.

    package static func width(_ s: Unicode.Scalar) -> Int {
        let v = s.value
        if v < 0x1100 { return 1 }
        if (0x1100...0x115F).contains(v) || (0x2E80...0x303E).contains(v)
            || (0x3041...0x33FF).contains(v) || (0x3400...0x4DBF).contains(v)
            || (0x4E00...0x9FFF).contains(v) || (0xA000...0xA4CF).contains(v)
            || (0xAC00...0xD7A3).contains(v) || (0xF900...0xFAFF).contains(v)
            || (0xFE30...0xFE4F).contains(v) || (0xFF00...0xFF60).contains(v)
            || (0xFFE0...0xFFE6).contains(v) || (0x1F300...0x1F64F).contains(v)
            || (0x1F900...0x1F9FF).contains(v) || (0x20000...0x3FFFD).contains(v)
        {
            return 2
        }
        return 1
    }

    /// Columns `text` takes once cleaned.
    package static func columns(_ text: String) -> Int {
        var n = 0
        for s in text.unicodeScalars { n += width(s) }
        return n
    }
}
