import TaskGraph
import Testing

@testable import TaskViewIO

#if canImport(Glibc)
    import Glibc
#endif

/// The footer's word on a failed write (issue 42): said once, the log's failure first, looked
/// for at most once a second, sanitized.
@Suite struct WriteFailureNoticeTests {
    @Test func anOutputFileThatCannotBeWrittenIsSaidOnce() {
        var notice = WriteFailureNotice()
        let full = PrivateFileError(path: "out/3.log", errno: ENOSPC)
        #expect(notice.message(realElapsed: 0) == nil)
        #expect(notice.message(realElapsed: 0.5, outputFiles: full) == nil) // not looked for yet
        #expect(
            notice.message(realElapsed: 1.2, outputFiles: full)
                == "Cannot write out/3.log: No space left on device (the run goes on)")
        #expect(notice.message(realElapsed: 5, outputFiles: full) == nil)
    }

    @Test func aPathIsSanitizedBeforeTheFooter() {
        var notice = WriteFailureNotice()
        let error = PrivateFileError(path: "\u{1B}]0;x\u{07}.log", errno: EIO)
        #expect(
            notice.message(realElapsed: 0, outputFiles: error)
                == "Cannot write ?]0;x?.log: Input/output error (the run goes on)")
    }
}
