import Dispatch

extension GraphTask {
    /// The value, for Swift Concurrency. Executes the task if needed (unless it is another
    /// composite's subtask: then it waits for it), throws the failure, or
    /// `CancellationError` if the task is cancelled. Cancelling the awaiting Swift task
    /// cancels the task; its `onCancel` handlers have run before this throws.
    public var value: Success {
        get async throws {
            if Task.isCancelled {
                cancel()
                throw CancellationError()
            }
            let result: Result<Success, Failure>? = await withTaskCancellationHandler {
                await withCheckedContinuation { continuation in
                    addWaiter { continuation.resume(returning: $0) }
                    executeUnlessAdopted()
                }
            } onCancel: {
                self.cancel()
            }
            switch result {
            case .success(let v)?: return v
            case .failure(let e)?: throw e
            case nil: throw CancellationError()
            }
        }
    }

    /// Blocks until the task settles or `timeout` wall-clock seconds pass, executing it if
    /// needed (unless it is another composite's subtask). Nil on timeout or cancellation.
    /// Never call it on a thread the task needs to complete.
    public func wait(timeout: Double) -> Result<Success, Failure>? {
        let done = DispatchSemaphore(value: 0)
        let box = ResultBox<Success, Failure>()
        addWaiter { r in
            box.set(r)
            done.signal()
        }
        executeUnlessAdopted()
        let nanos = Int(max(0, min(timeout, 1e9)) * 1e9)
        guard done.wait(timeout: .now() + .nanoseconds(nanos)) == .success else { return nil }
        return box.get()
    }

    func executeUnlessAdopted() {
        let adopted = withStripe { _ in _adopted }
        if !adopted { execute() }
    }
}

final class ResultBox<Success: Sendable, Failure: Error>: @unchecked Sendable { // behind `lock`
    private let lock = Lock()
    private var value: Result<Success, Failure>?
    func set(_ r: Result<Success, Failure>?) { lock.withLock { value = r } }
    func get() -> Result<Success, Failure>? { lock.withLock { value } }
}
