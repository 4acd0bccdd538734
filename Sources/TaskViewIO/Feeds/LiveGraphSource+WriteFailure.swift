import TaskGraph
import TaskViewCore

extension LiveGraphSource {
    /// A failed write of the log or an output file, said in the footer once (the run goes on;
    /// at the end taskview says it again and exits 2). Looked for at most once a second.
    func sayWriteFailure(realElapsed: Double, model: inout DashboardModel) -> Bool {
        guard !failureSaid, realElapsed - failureCheckedAt >= 1 || failureCheckedAt < 0 else { return false }
        failureCheckedAt = realElapsed
        let message: String
        if let error = recordingError?() {
            message = "Cannot write \(error.path): \(error.message) (the log is cut; the run goes on)"
        } else if let error = outputFiles?.writeError {
            message = "Cannot write \(error.path): \(error.reason) (the run goes on)"
        } else {
            return false
        }
        failureSaid = true
        model.view.message = Sanitizer.clean(message)
        return true
    }
}
