#if !NO_GRAPHTASK
    import Glibc
    import Synchronization
    import TaskGraph

    /// The "GraphTask + recorder" subjects' observer: `graph.record(to:)`, the replay-log writer,
    /// into a temporary file deleted when the run ends. Stopping it (final snapshot, `end` line,
    /// close) happens after the timed part.
    struct Recorder {
        let observation: any GraphObservation
        let path: String?

        /// Where this process's recordings go; each is deleted when its run ends.
        private static let counter = Atomic<Int>(0)

        static func attach(to graph: Graph) -> Recorder {
            let path = temporaryPath()
            do {
                return Recorder(observation: try graph.record(to: path, producer: "taskgraph-bench"), path: path)
            } catch {
                printError("taskgraph-bench: cannot record to \(path): \(error)\n")
                exit(1)
            }
        }

        static func temporaryPath() -> String {
            let k = counter.add(1, ordering: .relaxed).newValue
            return "/tmp/taskgraph-bench-\(getpid())-\(k).tglog"
        }

        func stop() {
            observation.cancel()
            if let path { unlink(path) }
        }

        /// What the recorded rows attach: shown in the table's subject name.
        static let label = "GraphTask + recorder"
    }
#endif
