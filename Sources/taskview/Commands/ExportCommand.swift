import ArgumentParser
import TaskViewCore
#if canImport(Glibc)
import Glibc
#endif

/// `taskview export LOG --format chrome-trace [-o FILE]`.
struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write a replay log as Chrome/Perfetto trace JSON (open it in ui.perfetto.dev).")

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case chromeTrace = "chrome-trace"
    }

    @Argument(help: ArgumentHelp("The replay log (.jsonl).", valueName: "LOG"))
    var log: String

    @Option(name: .long, help: "Output format (chrome-trace).")
    var format: Format

    @Option(name: [.customShort("o"), .long], help: ArgumentHelp("Write to FILE instead of stdout.", valueName: "FILE"))
    var output: String?

    @Flag(name: .long, help: "Read past corrupt lines, counting them.")
    var skipBadLines = false

    func run() throws {
        let replay = try loadLogForCommand(log, skipBadLines: skipBadLines)
        let bytes = ChromeTrace.export(replay)
        if let output {
            // Written whole to a temporary file, then renamed: never half a trace.
            let tmp = output + ".tmp-\(getpid())"
            guard let f = fopen(tmp, "wb") else {
                Main.writeStderr("taskview: cannot write \(Sanitizer.clean(output)): \(String(cString: strerror(errno)))\n")
                throw ExitCode(2)
            }
            let n = bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, f) }
            let closed = fclose(f)
            guard n == bytes.count, closed == 0, rename(tmp, output) == 0 else {
                unlink(tmp)
                Main.writeStderr("taskview: cannot write \(Sanitizer.clean(output))\n")
                throw ExitCode(2)
            }
            Main.writeStderr("Trace written to \(Sanitizer.clean(output))\n")
        } else {
            Main.fflushStdout()
            bytes.withUnsafeBytes { buf in
                var off = 0
                while off < buf.count {
                    let n = write(1, buf.baseAddress! + off, buf.count - off)
                    if n < 0 { if errno == EINTR { continue }; break }
                    off += n
                }
            }
        }
    }
}
