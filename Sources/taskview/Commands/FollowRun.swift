import ArgumentParser
import TaskViewCore
import TaskViewIO
import TaskViewTerminal

#if canImport(Glibc)
    import Glibc
#endif

/// `taskview replay --follow LOG`: a log still being written, shown as it grows until its
/// `end` (dashboard, or state lines as they arrive when headless).
enum FollowRun {
    static func run(
        _ path: String, headless: Bool, ascii: Bool, exitWhenDone: Bool, mouse: Bool = true, theme: Theme = .ansi
    ) throws -> Int32 {
        let follower: LogFollower
        do {
            follower = try LogFollower(path: path)
        } catch {
            writeStderr("taskview: \(Sanitizer.clean(String(describing: error)))\n")
            throw ExitCode(2)
        }
        if headless || isatty(1) == 0 { return try runHeadless(follower) }
        let file = path.split(separator: "/").last.map(String.init) ?? path
        let source = FollowSource(follower: follower, title: "follow \(file)")
        let options = DashboardLoop.Options(
            ascii: ascii || !TerminalEnvironment.isUTF8(),
            noColor: TerminalEnvironment.noColor(), exitWhenDone: exitWhenDone, mouse: mouse, theme: theme)
        let model: DashboardModel
        do {
            model = try DashboardLoop.run(source: source, title: source.title, options: options)
        } catch {
            writeStderr("taskview: \(error); showing plain output instead\n")
            return try runHeadless(follower)
        }
        for line in ExitSummary.lines(model: model) { print(line) }
        if let failure = source.failure {
            writeStderr("taskview: \(Sanitizer.clean(failure.description))\n")
            throw ExitCode(2)
        }
        return follower.ended ? LogFollower.exitStatus(model.tree, judgesSteps: follower.judgesSteps) : 130
    }

    static func runHeadless(_ follower: LogFollower) throws -> Int32 {
        Signals.install()
        var tree = TreeModel()
        while true {
            do {
                let (_, lines) = try follower.poll(into: &tree)
                for line in lines { print(line) }
            } catch {
                fflush(nil)
                writeStderr("taskview: \(Sanitizer.clean(String(describing: error)))\n")
                throw ExitCode(2)
            }
            if follower.ended { break }
            if Signals.pending != 0 {
                for line in HeadlessSummary(tree: tree).lines(root: tree.roots.last) { print(line) }
                return 130
            }
            fflush(nil)
            usleep(100_000) // the writer flushes at least every 100 ms
        }
        for line in HeadlessSummary(tree: tree).lines(root: tree.roots.last) { print(line) }
        return LogFollower.exitStatus(tree, judgesSteps: follower.judgesSteps)
    }
}
