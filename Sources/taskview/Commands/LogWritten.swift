import TaskGraph
import TaskViewCore
import TaskViewTerminal

/// The last word on a recording: `Log written to PATH` only when every line reached the file;
/// otherwise `taskview: cannot write PATH: REASON` (a full disk, an I/O error) and exit
/// status 2, never a claim that it was written. The run's own outcome was said before.
enum LogWritten {
    /// Says how the log at `path` (nil: none) ended; false when it is not whole.
    static func report(path: String?, recorder: GraphRecorder?) -> Bool {
        guard let path else { return true }
        if let error = recorder?.writeError {
            writeStderr("taskview: cannot write \(Sanitizer.clean(path)): \(Sanitizer.clean(error.message))\n")
            return false
        }
        writeStderr("Log written to \(Sanitizer.clean(path))\n")
        return true
    }
}
