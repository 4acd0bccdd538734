import TaskGraph
import TaskViewCore

/// A failed write of the replay log or an output file, said in the footer once while the run
/// goes on (at the end taskview says it again and exits 2). Looked for at most once a second:
/// the sources tick every frame.
package struct WriteFailureNotice {
    /// Why the replay log is cut (a full disk); nil: no log.
    package var recordingError: (() -> RecordingError?)?
    /// The live OpenTelemetry stream's trouble (`OTLPStream.trouble`), said once too.
    package var otlpTrouble: (() -> String?)?
    private var checkedAt = -1.0
    private var said = false
    private var saidOTLP = false

    package init() {}

    /// The footer message when a failure is first found, else nil; `outputFiles` is the
    /// output files' first failure.
    package mutating func message(
        realElapsed: Double, outputFiles: @autoclosure () -> PrivateFileError? = nil
    ) -> String? {
        guard !said || !saidOTLP, checkedAt < 0 || realElapsed - checkedAt >= 1 else { return nil }
        checkedAt = realElapsed
        if !saidOTLP, let trouble = otlpTrouble?() {
            saidOTLP = true
            return Sanitizer.clean(trouble)
        }
        guard !said else { return nil }
        let message: String
        if let error = recordingError?() {
            message = "Cannot write \(error.path): \(error.message) (the log is cut; the run goes on)"
        } else if let error = outputFiles() {
            message = "Cannot write \(error.path): \(error.reason) (the run goes on)"
        } else {
            return nil
        }
        said = true
        return Sanitizer.clean(message)
    }
}
