import ArgumentParser
import TaskViewCore
import TaskViewIO
import TaskViewTerminal

/// `taskview export LOG [--format chrome-trace|otlp-json] [-o FILE]`.
struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract:
            "Write a replay log as Chrome/Perfetto trace JSON (open it in ui.perfetto.dev) or as OpenTelemetry OTLP/JSON."
    )

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case chromeTrace = "chrome-trace"
        case otlpJSON = "otlp-json"
    }

    @Argument(help: ArgumentHelp("The replay log (.jsonl).", valueName: "LOG"))
    var log: String

    @Option(
        name: .long,
        help:
            "Output format: chrome-trace (default; Perfetto/Chrome trace JSON) or otlp-json (an OpenTelemetry OTLP/JSON ExportTraceServiceRequest, for a collector)."
    )
    var format: Format = .chromeTrace

    @Option(
        name: [.customShort("o"), .long],
        help: ArgumentHelp(
            "Write to FILE instead of stdout (- is stdout). A device or FIFO is written in place, a symlink followed, a regular file replaced whole.",
            valueName: "FILE"))
    var output: String?

    @Flag(name: .long, help: "Read past corrupt lines, counting them.")
    var skipBadLines = false

    func run() throws {
        let replay = try loadLogForCommand(log, skipBadLines: skipBadLines)
        let bytes: [UInt8]
        switch format {
        case .chromeTrace: bytes = ChromeTrace.export(replay)
        case .otlpJSON: bytes = OTLPTrace.export(replay)
        }
        // `-o -` and no `-o` are stdout; a device or FIFO is written in place, a symlink
        // followed, a regular file replaced whole (AtomicFileWriter).
        let path = output ?? "-"
        if path == "-" { Main.fflushStdout() }
        do {
            try AtomicFileWriter.write(bytes, to: path)
        } catch {
            writeStderr("taskview: \(Sanitizer.clean(error.description))\n")
            throw ExitCode(2)
        }
        if path != "-" { writeStderr("Trace written to \(Sanitizer.clean(path))\n") }
    }
}
