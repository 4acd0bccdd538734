import Logging
import TaskGraphLogging

/// The README's bootstrap, verbatim, so it is compiled (Tests/e2e/readme.sh finds it here). A
/// process may bootstrap swift-log only once, so the tests make their loggers with
/// `Logger(label:factory:)` and the same handler instead of calling this.
func readmeBootstrap() {
    LoggingSystem.bootstrap { label in
        GraphLogHandler(label: label, forwardingTo: StreamLogHandler.standardError(label: label))
    }
}
