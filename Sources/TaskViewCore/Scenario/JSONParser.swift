import TaskGraph

/// A strict RFC 8259 parser that remembers where every value starts, so scenario errors
/// can say FILE:LINE:COLUMN. No comments, no trailing commas, no NaN; duplicate keys,
/// nesting over `maxDepth` and trailing text are errors, never traps.
package struct JSONParser {
    package static let maxDepth = 256

    private let bytes: [UInt8]
    private var i = 0
    private var line = 1
    private var lineStart = 0

    private init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// Parses one JSON document.
    package static func parse(_ bytes: [UInt8]) throws(JSONSyntaxError) -> JSONNode {
        var p = JSONParser(bytes)
        if p.bytes.starts(with: [0xEF, 0xBB, 0xBF]) {
            p.i = 3
            p.lineStart = 3
        }
        p.skipWS()
        let v = try p.value(depth: 0)
        p.skipWS()
        guard p.i == p.bytes.count else { throw p.error("unexpected text after the JSON value") }
        return v
    }

    private var position: JSONPosition {
        // Columns count scalars: skip UTF-8 continuation bytes.
        var col = 1
        var k = lineStart
        while k < i && k < bytes.count {
            if bytes[k] & 0xC0 != 0x80 { col += 1 }
            k += 1
        }
        return JSONPosition(line: line, column: col)
    }

    /// `position`, counting on from the last position asked for: values come in order, so a
    /// long line (a generated one-line file) is scanned once, not once per value.
    private var colAt = -1
    private var colCount = 1
    private mutating func here() -> JSONPosition {
        if colAt < lineStart || colAt > i {
            colAt = lineStart
            colCount = 1
        }
        while colAt < i && colAt < bytes.count {
            if bytes[colAt] & 0xC0 != 0x80 { colCount += 1 }
            colAt += 1
        }
        return JSONPosition(line: line, column: colCount)
    }

    private func error(_ message: String) -> JSONSyntaxError {
        JSONSyntaxError(position: position, message: message)
    }

    private var peek: UInt8? { i < bytes.count ? bytes[i] : nil }

    private mutating func skipWS() {
        while i < bytes.count {
            switch bytes[i] {
            case 32, 9, 13: i += 1
            case 10:
                i += 1
                line += 1
                lineStart = i
            default: return
            }
        }
    }

    private mutating func value(depth: Int) throws(JSONSyntaxError) -> JSONNode {
        guard depth < JSONParser.maxDepth else { throw error("nesting deeper than \(JSONParser.maxDepth)") }
        let pos = here()
        guard let c = peek else { throw error("unexpected end of file, expected a value") }
        switch c {
        case UInt8(ascii: "{"): return JSONNode(value: try object(depth: depth), position: pos)
        case UInt8(ascii: "["): return JSONNode(value: try array(depth: depth), position: pos)
        case UInt8(ascii: "\""): return JSONNode(value: .string(try string()), position: pos)
        case UInt8(ascii: "t"):
            try literal("true")
            return JSONNode(value: .bool(true), position: pos)
        case UInt8(ascii: "f"):
            try literal("false")
            return JSONNode(value: .bool(false), position: pos)
        case UInt8(ascii: "n"):
            try literal("null")
            return JSONNode(value: .null, position: pos)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return JSONNode(value: .number(try number()), position: pos)
        case UInt8(ascii: "/"): throw error("comments are not allowed in JSON")
        default: throw error("unexpected character '\(Self.show(c))', expected a value")
        }
    }

    static func show(_ c: UInt8) -> String {
        c >= 0x20 && c < 0x7F ? String(UnicodeScalar(c)) : "\\u{\(String(c, radix: 16))}"
    }

    private mutating func literal(_ word: String) throws(JSONSyntaxError) {
        for b in word.utf8 {
            guard peek == b else { throw error("invalid literal, expected \(word)") }
            i += 1
        }
    }

    private mutating func object(depth: Int) throws(JSONSyntaxError) -> JSONValue {
        i += 1
        var members: [JSONMember] = []
        // Duplicate keys: a look along the members while the object is small (most are), a
        // set once it is not.
        var seen: Set<String>? = nil
        skipWS()
        if peek == UInt8(ascii: "}") {
            i += 1
            return .object(members)
        }
        while true {
            skipWS()
            let keyPos = here()
            guard peek == UInt8(ascii: "\"") else {
                if peek == UInt8(ascii: "}") { throw error("trailing comma before '}'") }
                throw error("expected a field name in double quotes")
            }
            let key = try string()
            let duplicate: Bool
            if seen != nil {
                duplicate = !seen!.insert(key).inserted
            } else {
                duplicate = members.contains { $0.key == key }
                if members.count >= 16 { seen = Set(members.map(\.key) + [key]) }
            }
            guard !duplicate else {
                throw JSONSyntaxError(position: keyPos, message: "duplicate field \"\(key)\"")
            }
            skipWS()
            guard peek == UInt8(ascii: ":") else { throw error("expected ':' after the field name") }
            i += 1
            skipWS()
            let v = try value(depth: depth + 1)
            members.append(JSONMember(key: key, keyPosition: keyPos, value: v))
            skipWS()
            switch peek {
            case UInt8(ascii: ","): i += 1
            case UInt8(ascii: "}"):
                i += 1
                return .object(members)
            case nil: throw error("unexpected end of file, expected ',' or '}'")
            case UInt8(ascii: "/"): throw error("comments are not allowed in JSON")
            default: throw error("expected ',' or '}'")
            }
        }
    }

    private mutating func array(depth: Int) throws(JSONSyntaxError) -> JSONValue {
        i += 1
        var items: [JSONNode] = []
        skipWS()
        if peek == UInt8(ascii: "]") {
            i += 1
            return .array(items)
        }
        while true {
            skipWS()
            if peek == UInt8(ascii: "]") { throw error("trailing comma before ']'") }
            items.append(try value(depth: depth + 1))
            skipWS()
            switch peek {
            case UInt8(ascii: ","): i += 1
            case UInt8(ascii: "]"):
                i += 1
                return .array(items)
            case nil: throw error("unexpected end of file, expected ',' or ']'")
            case UInt8(ascii: "/"): throw error("comments are not allowed in JSON")
            default: throw error("expected ',' or ']'")
            }
        }
    }

    private mutating func string() throws(JSONSyntaxError) -> String {
        i += 1
        let start = i
        // Find the closing quote; the escapes are decoded by the log reader's own lexer.
        while true {
            guard let c = peek else { throw error("unterminated string") }
            if c == UInt8(ascii: "\"") { break }
            if c < 0x20 { throw error("control character in a string (escape it)") }
            i += c == UInt8(ascii: "\\") ? 2 : 1
        }
        let end = i
        if let bad = Self.firstInvalidUTF8(bytes[start..<end]) {
            i = bad
            throw error(
                "invalid UTF-8 (byte 0x\(String(bytes[bad], radix: 16, uppercase: true))): a scenario file is UTF-8")
        }
        i += 1
        do {
            return try bytes.withUnsafeBufferPointer { all throws(JSONEscapes.Failure) in
                try JSONEscapes.decode(UnsafeBufferPointer(rebasing: all[start..<end]))
            }
        } catch {
            i = start + error.offset
            switch error.kind {
            case .badUnicode: throw self.error("invalid \\u escape")
            case .badEscape(let e): throw self.error("invalid escape '\\\(Self.show(e))'")
            case .truncated: throw self.error("unterminated string")
            }
        }
    }

    /// The index of the first byte that is not valid UTF-8 (a stray continuation byte, a
    /// truncated sequence, an overlong form, a surrogate, a value over U+10FFFF), nil if none.
    static func firstInvalidUTF8(_ text: ArraySlice<UInt8>) -> Int? {
        var k = text.startIndex
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = text.makeIterator()
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let scalar): k += scalar.count
            case .error: return k
            case .emptyInput: return nil
            }
        }
    }

    private mutating func number() throws(JSONSyntaxError) -> Double {
        let start = i
        if peek == UInt8(ascii: "-") { i += 1 }
        guard let first = peek, first >= 48, first <= 57 else { throw error("invalid number") }
        i += 1
        if first == 48, let c = peek, c >= 48, c <= 57 { throw error("numbers may not have leading zeros") }
        while let c = peek, c >= 48, c <= 57 { i += 1 }
        if peek == UInt8(ascii: ".") {
            i += 1
            guard let c = peek, c >= 48, c <= 57 else { throw error("invalid number: digits expected after '.'") }
            while let c = peek, c >= 48, c <= 57 { i += 1 }
        }
        if peek == UInt8(ascii: "e") || peek == UInt8(ascii: "E") {
            i += 1
            if peek == UInt8(ascii: "+") || peek == UInt8(ascii: "-") { i += 1 }
            guard let c = peek, c >= 48, c <= 57 else { throw error("invalid number: digits expected in the exponent") }
            while let c = peek, c >= 48, c <= 57 { i += 1 }
        }
        let text = String(decoding: bytes[start..<i], as: UTF8.self)
        guard let v = Double(text), v.isFinite else {
            i = start
            throw error("number out of range")
        }
        return v
    }
}
