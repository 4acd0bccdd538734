import ArgumentParser
import TaskGraph
import TaskViewTerminal

/// The built-in stand-in for the `build` scenario until scenarios land: a software build
/// of a few dozen tasks on a virtual clock (prepare, compiles grouped per module under
/// `allSettled` so cancelling one compile leaves the others running, one failing compile,
/// link, package), about 35 simulated seconds at speed 1.
enum BuiltinDemo {
#if !TASKVIEW_NO_CORE
    struct DemoError: Error, CustomStringConvertible {
        let description: String
    }

    typealias Work = GraphTask<Void, DemoError>

    static func runLive(_ common: CommonOptions, logPath: String?) throws -> Int32 {
        let clock = VirtualClock()
        let graph = Graph(clock: clock)
        let root = build(graph: graph, seed: common.seed)
        return try DefaultRun.runRecorded(graph: graph, clock: clock, root: root.id, title: "build",
                                          scenario: "build", common: common, logPath: logPath,
                                          start: { root.execute() })
    }

    /// The whole build; nothing runs until the returned task is executed.
    static func build(graph: Graph, seed: UInt64) -> Work {
        let modules: [(String, [String])] = [
            ("core", ["graph.c", "task.c", "clock.c", "events.c", "lock.c", "retention.c"]),
            ("net", ["socket.c", "http.c", "tls.c", "retry.c", "dns.c"]),
            ("ui", ["screen.c", "keys.c", "theme.c", "tree.c", "bar.c", "help.c"]),
            ("util", ["strings.c", "json.c", "hash.c", "log.c"]),
        ]
        let phases = ["Parsing", "Type checking", "Optimizing", "Emitting"]
        var groups: [Work] = []
        for (module, files) in modules {
            let compiles = files.map { file -> Work in
                let seconds = 8 + Double(mix(seed, module + "/" + file) % 900) / 100   // 8 ... 17 s
                return work("compile \(module)/\(file)", seconds, phases: phases,
                            fail: file == "theme.c" ? "theme.c:42: error: expected ';'" : nil, graph: graph)
            }
            let group = Work.allSettled(compiles, name: "module \(module)", graph: graph)
                .mapResult(name: nil) { _ in () }
                .mapError(name: nil) { (never: Never) -> DemoError in }
            groups.append(group)
        }
        let prepare = Work.sequential([
            work("fetch dependencies", 3, phases: ["Resolving", "Downloading", "Verifying"], graph: graph),
            work("configure", 2, phases: ["Probing compiler", "Writing config.h"], graph: graph),
        ], name: "prepare", graph: graph).mapResult(name: nil) { _ in () }
        let compile = Work.concurrent(groups, name: "compile", graph: graph).mapResult(name: nil) { _ in () }
        compile.weight = 5
        let link = work("link taskview", 8, phases: ["Resolving symbols", "Writing binary"], graph: graph)
        link.weight = 3
        let package = Work.sequential([
            work("strip", 2, graph: graph),
            work("archive", 3, phases: ["Compressing", "Signing"], graph: graph),
        ], name: "package", graph: graph).mapResult(name: nil) { _ in () }
        package.weight = 2
        return Work.sequential([prepare, compile, link, package], name: "build", graph: graph)
            .mapResult(name: nil) { _ in () }
    }

    /// A leaf that reports 10 evenly spaced steps over `seconds` on the graph's clock,
    /// naming its phases, and succeeds (or fails with `fail`) at the end.
    static func work(_ name: String, _ seconds: Double, phases: [String] = [], fail message: String? = nil,
                     graph: Graph) -> Work {
        Work(name: name, graph: graph) { succeed, fail, progress in
            let steps = 10
            let phaseAt: @Sendable (Int) -> String? = { k in
                phases.isEmpty ? nil : phases[min(phases.count - 1, k * phases.count / steps)]
            }
            progress(TaskProgress(0, info: phaseAt(0)))
            for k in 1...steps {
                graph.clock.schedule(after: seconds * Double(k) / Double(steps)) {
                    if k < steps {
                        progress(TaskProgress(Double(k) / Double(steps), info: phaseAt(k)))
                    } else if let message {
                        fail(DemoError(description: message))
                    } else {
                        succeed(())
                    }
                }
            }
        }
    }

    /// A small deterministic hash of (seed, text) for durations.
    static func mix(_ seed: UInt64, _ text: String) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325 ^ seed
        for b in text.utf8 { h = (h ^ UInt64(b)) &* 0x1000_0000_01b3 }
        h ^= h >> 33
        return h
    }
#else
    static func runLive(_ common: CommonOptions, logPath: String?) throws -> Int32 {
        throw ValidationError("the built-in demo needs the task core (GraphTask)")
    }
#endif
}
