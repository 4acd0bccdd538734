/// `-j` as make users write it: `-j4` joined, and a negative count (`-j -1`) taken as the
/// value it is. The argument parser reads `-1` as an option (`Missing value for '-j <N>'`)
/// and `-j4` as an unknown option; written as `--jobs=N` both reach `CommonOptions`'
/// validation, which says what is wrong with the number.
enum JobsArgument {
    /// `args` with every `-jN`, `-j -N` and `--jobs -N` written `--jobs=N`, up to `--`.
    static func normalize(_ args: [String]) -> [String] {
        var out: [String] = []
        var i = 0
        while i < args.count {
            let a = args[i]
            if a == "--" {
                out += args[i...]
                break
            }
            if a == "-j" || a == "--jobs", i + 1 < args.count, isCount(args[i + 1]) {
                out.append("--jobs=\(args[i + 1])")
                i += 2
                continue
            }
            if a.hasPrefix("-j"), isCount(String(a.dropFirst(2))) {
                out.append("--jobs=\(a.dropFirst(2))")
            } else {
                out.append(a)
                // Another option's value (`--record -j5`, a file) stays as it is.
                if a != "-j", a != "--jobs", LeadingOptions.taking.contains(a), i + 1 < args.count {
                    out.append(args[i + 1])
                    i += 1
                }
            }
            i += 1
        }
        return out
    }

    /// An integer, maybe negative: `4`, `0`, `-1`.
    private static func isCount(_ text: String) -> Bool {
        let digits = text.hasPrefix("-") ? text.dropFirst() : Substring(text)
        return !digits.isEmpty && digits.allSatisfy { $0.isASCII && $0.isNumber }
    }
}
