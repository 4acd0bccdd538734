import ServiceLifecycle
import TaskGraph

/// The server's second service: takes a job from its queue every half second and runs it in a
/// scope, so each job is a row under the worker's node. With `failAfter` it throws once that
/// many seconds have passed, as a worker that lost its queue would, and the group shuts the
/// HTTP service down gracefully.
struct QueueWorker: Service {
    struct QueueLost: Error, CustomStringConvertible {
        var description: String { "the queue connection was lost" }
    }

    let failAfter: Duration?

    func run() async throws {
        let clock = ContinuousClock()
        let start = clock.now
        var job = 0
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            job += 1
            try await withGraphTask("job \(job)") { scope in
                try await Task.sleep(for: .milliseconds(100))
                scope.progress(1, info: "done")
            }
            if let failAfter, clock.now - start >= failAfter { throw QueueLost() }
            // A shutdown during the pause ends it; the loop then sees it and returns.
            _ = try? await cancelWhenGracefulShutdown { try await Task.sleep(for: .milliseconds(400)) }
        }
    }
}
