extension Graph {
    /// Serves this graph to viewers (`taskview attach`) until the server's `stop()`: each
    /// viewer that connects to the socket gets the replay-log header (with `pid` and
    /// `name`), a snapshot of the graph, then every event live (docs/log-format.md, "Served streams").
    ///
    /// `Graph.shared.serve()` is the one line that makes a program attachable. A program that
    /// should go on without serving when it cannot (an unsafe directory, a path too long)
    /// catches the error, which is one line naming the path and the reason; a bare `try` at top
    /// level would stop the program with a fatal error and a backtrace:
    ///
    /// ```swift
    /// do { try Graph.shared.serve() } catch { print("not attachable: \(error)") }
    /// // not attachable: cannot serve at /tmp/taskgraph-1000: the directory is owned by uid 0, ...
    /// ```
    ///
    /// - Parameters:
    ///   - path: the socket's path. Default: `$TASKGRAPH_SOCKET_DIR/<pid>.sock` if that
    ///     variable is set, else `$XDG_RUNTIME_DIR/taskgraph/<pid>.sock`, else
    ///     `/tmp/taskgraph-<uid>/<pid>.sock`; a second server in the same process gets
    ///     `<pid>-2.sock`, and so on. The default directory is created with mode 0700 and
    ///     refused when it is not owned by this user or is open to group or others.
    ///   - name: what viewers show for this program (default: the process name).
    ///   - allowCancel: whether viewers may cancel tasks (`{"cmd":"cancel","id":N}`).
    /// - Throws: `ServeError` (naming the path and the reason) when the directory is unsafe
    ///   (not ours, open to group or others, a symlink, or under a parent anyone may write to
    ///   without the sticky bit), the path exists and is not a stale socket, or the path is
    ///   too long for a socket.
    @discardableResult
    public func serve(
        at path: String? = nil, name: String? = nil,
        allowCancel: Bool = true
    ) throws -> GraphServer {
        // From now on executing nodes keep their start, for viewers that attach later.
        withAllStripes { keepsStartTimes = true }
        return try GraphServer(graph: self, path: path, name: name, allowCancel: allowCancel)
    }
}
