import Subprocess
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A command's environment: this process's, with the command's variables in place of (or
/// added to) its own. swift-subprocess's `.inherit.updating(...)` parses the whole
/// environment into Strings, a `Character` at a time, twice a spawn (once for `PATH`, once
/// for the child): 0.7 million instructions, 40 % of what a short command cost taskview. Here
/// it is parsed once and kept while `environ` holds the same entries (`setenv` and `putenv`
/// replace an entry's pointer, so comparing pointers sees every change made through them).
enum ChildEnvironment {
    private struct Parsed {
        /// The addresses of `environ`'s entries when it was parsed.
        var entries: [UInt] = []
        var values: [Environment.Key: String] = [:]
    }

    private static let parsed = Mutex(Parsed())

    /// The environment for swift-subprocess: ours with `overrides` applied (keys are valid
    /// names).
    static func environment(_ overrides: [String: String]) -> Environment {
        .custom(values(overrides))
    }

    /// This process's variables with `overrides` applied.
    static func values(_ overrides: [String: String]) -> [Environment.Key: String] {
        var values = current()
        for (name, value) in overrides {
            if let key = Environment.Key(rawValue: name) { values[key] = value }
        }
        return values
    }

    /// This process's variables, parsed again only when `environ` changed.
    private static func current() -> [Environment.Key: String] {
        #if canImport(Glibc)
            let table = Glibc.environ
        #else
            let table = Darwin.environ
        #endif
        var entries: [UInt] = []
        var i = 0
        while let entry = table[i] {
            entries.append(UInt(bitPattern: entry))
            i += 1
        }
        return parsed.withLock { p in
            if p.entries == entries { return p.values }
            var values: [Environment.Key: String] = [:]
            for k in 0..<i {
                let entry = UnsafeRawPointer(table[k]!).assumingMemoryBound(to: UInt8.self)
                let row = UnsafeBufferPointer(start: entry, count: strlen(table[k]!))
                guard let eq = row.firstIndex(of: UInt8(ascii: "=")), eq > 0,
                    let key = Environment.Key(rawValue: String(decoding: row[..<eq], as: UTF8.self))
                else { continue }
                values[key] = String(decoding: row[(eq + 1)...], as: UTF8.self)
            }
            p = Parsed(entries: entries, values: values)
            return values
        }
    }
}
