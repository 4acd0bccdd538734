import TaskViewCore

#if canImport(Glibc)
    import Glibc
#endif

/// Finds scenarios: the embedded demos by name, or a user's file.
package enum ScenarioLoader {
    /// The name of the default demo (`taskview` without arguments).
    package static let defaultDemo = "build"
    /// Largest scenario file read.
    package static let maxFileBytes = 64 << 20

    /// Names of the shipped demos, in display order.
    package static var demoNames: [String] { EmbeddedDemos.all.map(\.name) }

    /// The JSON text of a shipped demo.
    package static func demoText(_ name: String) -> String? {
        EmbeddedDemos.all.first { $0.name == name }?.json
    }

    /// A shipped demo by name.
    package static func demo(_ name: String) throws(ScenarioError) -> Scenario {
        guard let text = demoText(name) else {
            throw ScenarioError(
                file: name, position: nil,
                message: "no demo named \"\(name)\" (try: \(demoNames.joined(separator: ", ")))")
        }
        var scenario = try ScenarioDecoder.decode(Array(text.utf8), file: "demos/\(name).json", name: name)
        scenario.file = "demo:" + name // earlier runs of the demo give its ETA
        return scenario
    }

    /// `(name, description)` of every shipped demo.
    package static func demoList() -> [(name: String, description: String)] {
        demoNames.map { name in
            let d = (try? demo(name))?.description ?? ""
            return (name, d)
        }
    }

    /// A user's scenario file; its name is the file name without directory and extension.
    package static func file(_ path: String) throws(ScenarioError) -> Scenario {
        let bytes: [UInt8]
        do {
            bytes = try readFile(path)
        } catch {
            throw ScenarioError(file: path, position: nil, message: error.message)
        }
        var base = path.split(separator: "/").last.map(String.init) ?? path
        if let dot = base.lastIndex(of: "."), dot != base.startIndex { base = String(base[..<dot]) }
        let dir = path.lastIndex(of: "/").map { String(path[..<$0]) }.map { $0.isEmpty ? "/" : $0 }
        var scenario = try ScenarioDecoder.decode(bytes, file: path, name: base, baseDirectory: dir)
        // A command without `cwd` runs in the file's directory (as go-task runs a
        // Taskfile's tasks), so a pipeline file works the same from any directory.
        if let home = absoluteDirectory(dir ?? ".") {
            scenario.root.defaultCommandDirectory(home)
            let fileName = path.split(separator: "/").last.map(String.init) ?? path
            scenario.file = home == "/" ? "/" + fileName : home + "/" + fileName
        }
        return scenario
    }

    /// `path` as an absolute path without symlinks (nil if it cannot be resolved).
    static func absoluteDirectory(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    struct ReadError: Error { let message: String }

    static func readFile(_ path: String) throws(ReadError) -> [UInt8] {
        guard let f = fopen(path, "rb") else {
            throw ReadError(message: "cannot read the file: \(String(cString: strerror(errno)))")
        }
        defer { fclose(f) }
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, f) }
            if n > 0 { out.append(contentsOf: chunk[..<n]) }
            if out.count > maxFileBytes { throw ReadError(message: "the file is larger than 64 MiB") }
            if n < chunk.count {
                if ferror(f) != 0 {
                    throw ReadError(message: "cannot read the file: \(String(cString: strerror(errno)))")
                }
                break
            }
        }
        return out
    }
}
