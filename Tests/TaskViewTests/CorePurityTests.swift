import Testing

@testable import TaskGraph

#if canImport(Glibc)
    import Glibc
#endif

/// TaskViewCore is the model, input and view: it imports no C library and no Foundation,
/// so the compiler holds the promise that it does no I/O (TaskViewIO does).
@Suite struct CorePurityTests {
    /// The package root (`#filePath` is Tests/TaskViewTests/CorePurityTests.swift).
    static let root = "/" + String(#filePath).split(separator: "/").dropLast(3).joined(separator: "/")
    /// Modules TaskViewCore must not import.
    static let forbidden = ["Glibc", "Musl", "Darwin", "Foundation", "FoundationEssentials", "CNcurses"]

    /// Every `.swift` file under `directory`, recursively.
    static func swiftFiles(under directory: String) -> [String] {
        guard let dir = opendir(directory) else { return [] }
        defer { closedir(dir) }
        var out: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard name != ".", name != ".." else { continue }
            let path = directory + "/" + name
            if name.hasSuffix(".swift") {
                out.append(path)
            } else if entry.pointee.d_type == UInt8(DT_DIR) {
                out += swiftFiles(under: path)
            }
        }
        return out.sorted()
    }

    @Test func taskViewCoreImportsNoCLibraryAndNoFoundation() throws {
        let files = Self.swiftFiles(under: Self.root + "/Sources/TaskViewCore")
        #expect(files.count > 40)
        var offenders: [String] = []
        for file in files {
            let text = String(decoding: try LogReader.readFile(file), as: UTF8.self)
            for line in text.split(separator: "\n") {
                let words = line.split(separator: " ")
                // `import X`, `@testable import X`, `@_exported import X`, `import struct X.Y`...
                guard let first = words.first, first == "import" || first.hasPrefix("@"),
                    let at = words.firstIndex(of: "import"), at + 1 < words.count
                else { continue }
                let module = words[words.count - 1].split(separator: ".").first.map(String.init) ?? ""
                if Self.forbidden.contains(module) { offenders.append(file + ": " + line) }
            }
        }
        #expect(offenders == [])
    }
}
