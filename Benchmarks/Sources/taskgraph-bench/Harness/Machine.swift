import Glibc

/// The machine the figures came from: cores, CPU model, Swift version.
enum Machine {
    static func description() -> String {
        let cores = sysconf(Int32(_SC_NPROCESSORS_ONLN))
        return "nproc \(cores); CPU \(cpuModel()); \(swiftVersion()); "
            + "\(isDebugBuild ? "DEBUG build (figures meaningless: use -c release)" : "release build")"
    }

    static var isDebugBuild: Bool {
        #if DEBUG
            return true
        #else
            return false
        #endif
    }

    static func cpuModel() -> String {
        guard let text = readFile("/proc/cpuinfo") else { return "unknown" }
        for line in text.split(separator: "\n") where line.hasPrefix("model name") {
            if let colon = line.firstIndex(of: ":") {
                return line[line.index(after: colon)...].trimmingSpaces()
            }
        }
        return "unknown"
    }

    /// `swift --version`'s first line when swift is on PATH (it is under `swift run`), else
    /// the compiler version this binary was built with.
    static func swiftVersion() -> String {
        if let pipe = popen("swift --version 2>/dev/null", "r") {
            defer { pclose(pipe) }
            var buffer = [CChar](repeating: 0, count: 512)
            if fgets(&buffer, Int32(buffer.count), pipe) != nil {
                let bytes = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
                let line = String(decoding: bytes, as: UTF8.self).trimmingSpaces()
                if !line.isEmpty { return line }
            }
        }
        #if compiler(>=6.3)
            return "Swift compiler >= 6.3"
        #else
            return "Swift compiler < 6.3"
        #endif
    }

    static func readFile(_ path: String) -> String? {
        guard let f = fopen(path, "r") else { return nil }
        defer { fclose(f) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = fread(&chunk, 1, chunk.count, f)
            if n <= 0 { break }
            bytes += chunk[0..<n]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

extension StringProtocol {
    func trimmingSpaces() -> String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" || $0 == "\n" }.reversed())
    }
}
