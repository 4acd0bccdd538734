/// One line a viewer sent, as the server understands it (docs/log-format.md, "Served streams").
enum ViewerCommand: Equatable {
    /// `{"cmd":"cancel","id":N}`.
    case cancel(Int)
    /// `{"cmd":"usage"}`: send this viewer the program's own CPU and memory about once a
    /// second (`{"ev":"usage","program":true,...}` lines; viewers that never ask get none).
    case usage
    /// Valid JSON that is not a command the server knows: answered with an error line.
    case invalid(String)
    /// Not UTF-8 JSON: the connection is closed.
    case notJSON

    /// Deepest nesting accepted; deeper input is answered as invalid, never recursed into.
    static let maxDepth = 32
    /// Node ids accepted: what fits a node table (ids are dense and small).
    static let maxID = Int(Int32.max)

    /// Parses one line (without its newline). Never traps: every size and number is bounded.
    init(line: ArraySlice<UInt8>) {
        guard String(validating: line, as: UTF8.self) != nil else {
            self = .notJSON
            return
        }
        var p = CommandParser(bytes: line)
        let top: CommandParser.Top
        do {
            top = try p.parseLine()
        } catch CommandParser.Failure.tooDeep {
            self = .invalid("nesting deeper than \(ViewerCommand.maxDepth) levels")
            return
        } catch {
            self = .notJSON
            return
        }
        guard case .object(let members) = top else {
            self = .invalid("expected an object like {\"cmd\":\"cancel\",\"id\":N}")
            return
        }
        guard let cmd = members["cmd"] else {
            self = .invalid("missing \"cmd\"")
            return
        }
        guard case .string(let name) = cmd else {
            self = .invalid("\"cmd\" must be a string")
            return
        }
        if name == "usage" {
            self = .usage
            return
        }
        guard name == "cancel" else {
            self = .invalid("unknown command \"\(ViewerCommand.clip(name))\" (known: cancel, usage)")
            return
        }
        guard let id = members["id"] else {
            self = .invalid("cancel needs \"id\"")
            return
        }
        guard case .number(let text) = id, let n = ViewerCommand.nodeID(text) else {
            self = .invalid("\"id\" must be a node id (an integer from 0 to \(ViewerCommand.maxID))")
            return
        }
        self = .cancel(n)
    }

    /// A plain non-negative integer literal within `maxID`; anything else (sign, fraction,
    /// exponent, too many digits) is nil.
    static func nodeID(_ text: String) -> Int? {
        let digits = text.utf8
        guard !digits.isEmpty, digits.count <= 10, digits.allSatisfy({ $0 >= 48 && $0 <= 57 }),
            let n = Int(text), n <= maxID
        else { return nil }
        return n
    }

    /// Text from a viewer quoted back in an error, cut short.
    static func clip(_ s: String) -> String {
        s.count <= 40 ? s : String(s.prefix(40)) + "..."
    }
}

/// A small JSON parser with bounded depth that keeps only the top level's string and number
/// members (all a command needs); everything else is checked for syntax and skipped.
struct CommandParser {
    enum Failure: Error { case syntax, tooDeep }
    enum Scalar: Equatable {
        case string(String)
        case number(String)
        case other
    }
    enum Top {
        case object([String: Scalar])
        case other
    }

    let bytes: ArraySlice<UInt8>
    var i: Int

    init(bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
        i = bytes.startIndex
    }

    /// The whole line: one value and nothing but whitespace around it.
    mutating func parseLine() throws -> Top {
        skipSpace()
        let top: Top
        if peek == UInt8(ascii: "{") {
            top = .object(try object(depth: 1, keep: true))
        } else {
            try value(depth: 1)
            top = .other
        }
        skipSpace()
        guard i == bytes.endIndex else { throw Failure.syntax }
        return top
    }

    var peek: UInt8? { i < bytes.endIndex ? bytes[i] : nil }

    mutating func skipSpace() {
        while let c = peek, c == 32 || c == 9 || c == 10 || c == 13 { i += 1 }
    }

    mutating func expect(_ c: UInt8) throws {
        guard peek == c else { throw Failure.syntax }
        i += 1
    }

    /// Any value, discarded.
    @discardableResult
    mutating func value(depth: Int) throws -> Scalar {
        guard depth <= ViewerCommand.maxDepth else { throw Failure.tooDeep }
        skipSpace()
        guard let c = peek else { throw Failure.syntax }
        switch c {
        case UInt8(ascii: "{"):
            _ = try object(depth: depth, keep: false)
            return .other
        case UInt8(ascii: "["):
            try array(depth: depth)
            return .other
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"):
            try literal("true")
            return .other
        case UInt8(ascii: "f"):
            try literal("false")
            return .other
        case UInt8(ascii: "n"):
            try literal("null")
            return .other
        default: return .number(try number())
        }
    }

    mutating func literal(_ word: StaticString) throws {
        let n = word.utf8CodeUnitCount
        guard bytes.endIndex - i >= n else { throw Failure.syntax }
        for k in 0..<n where bytes[i + k] != word.utf8Start[k] { throw Failure.syntax }
        i += n
    }

    mutating func object(depth: Int, keep: Bool) throws -> [String: Scalar] {
        guard depth <= ViewerCommand.maxDepth else { throw Failure.tooDeep }
        try expect(UInt8(ascii: "{"))
        var members: [String: Scalar] = [:]
        skipSpace()
        if peek == UInt8(ascii: "}") {
            i += 1
            return members
        }
        while true {
            skipSpace()
            let key = try string()
            skipSpace()
            try expect(UInt8(ascii: ":"))
            let v = try value(depth: depth + 1)
            if keep, members.count < 16 { members[key] = v }
            skipSpace()
            if peek == UInt8(ascii: ",") {
                i += 1
                continue
            }
            try expect(UInt8(ascii: "}"))
            return members
        }
    }

    mutating func array(depth: Int) throws {
        try expect(UInt8(ascii: "["))
        skipSpace()
        if peek == UInt8(ascii: "]") {
            i += 1
            return
        }
        while true {
            try value(depth: depth + 1)
            skipSpace()
            if peek == UInt8(ascii: ",") {
                i += 1
                continue
            }
            try expect(UInt8(ascii: "]"))
            return
        }
    }

    /// A string literal; escapes are checked, `\u` escapes kept only as a placeholder
    /// (command names and keys are ASCII, so nothing a command needs is lost).
    mutating func string() throws -> String {
        try expect(UInt8(ascii: "\""))
        var out: [UInt8] = []
        while let c = peek {
            i += 1
            switch c {
            case UInt8(ascii: "\""):
                return String(decoding: out, as: UTF8.self)
            case UInt8(ascii: "\\"):
                guard let e = peek else { throw Failure.syntax }
                i += 1
                switch e {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(e)
                case UInt8(ascii: "b"), UInt8(ascii: "f"), UInt8(ascii: "n"),
                    UInt8(ascii: "r"), UInt8(ascii: "t"):
                    out.append(32)
                case UInt8(ascii: "u"):
                    for _ in 0..<4 {
                        guard let h = peek, isHex(h) else { throw Failure.syntax }
                        i += 1
                    }
                    out.append(UInt8(ascii: "?"))
                default: throw Failure.syntax
                }
            case 0..<32:
                throw Failure.syntax
            default:
                out.append(c)
            }
        }
        throw Failure.syntax
    }

    func isHex(_ c: UInt8) -> Bool {
        (c >= 48 && c <= 57) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102)
    }

    /// A number literal by JSON's grammar, returned as its text (never converted here).
    mutating func number() throws -> String {
        let start = i
        if peek == UInt8(ascii: "-") { i += 1 }
        guard let first = peek, first >= 48, first <= 57 else { throw Failure.syntax }
        i += 1
        if first != 48 { digits() }
        if peek == UInt8(ascii: ".") {
            i += 1
            guard digits() > 0 else { throw Failure.syntax }
        }
        if peek == UInt8(ascii: "e") || peek == UInt8(ascii: "E") {
            i += 1
            if peek == UInt8(ascii: "+") || peek == UInt8(ascii: "-") { i += 1 }
            guard digits() > 0 else { throw Failure.syntax }
        }
        return String(decoding: bytes[start..<i], as: UTF8.self)
    }

    @discardableResult
    mutating func digits() -> Int {
        var n = 0
        while let c = peek, c >= 48, c <= 57 {
            i += 1
            n += 1
        }
        return n
    }
}
