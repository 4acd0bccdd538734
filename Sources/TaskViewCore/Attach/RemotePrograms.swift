/// The attachable programs of another machine, as `taskview attach --ssh HOST` learns them:
/// one shell command over ssh prints either `taskview attach --list` (when taskview is
/// installed there) or, without it, the socket directory's sockets as `#sock PATH` lines.
package enum RemotePrograms {
    /// One remote program.
    package struct Program: Equatable, Sendable {
        /// Its pid (from the listing, else from the socket's name), if known.
        package var pid: Int?
        /// Its socket's path on the remote machine.
        package var socket: String
        /// The listing's line for it, sanitized (what `--list` prints).
        package var line: String
        /// Whether it answered when listed (a listing without taskview cannot tell: true).
        package var answering: Bool
    }

    /// The POSIX shell command run on the remote machine (through `sh -c`, whatever the
    /// login shell): `taskview attach --list` where taskview is installed, else the socket
    /// directory by the server's rules, one `#sock PATH` line per socket.
    package static let listScript =
        "command -v taskview >/dev/null 2>&1 && exec taskview attach --list; "
        + "d=${TASKGRAPH_SOCKET_DIR:-}; "
        + "[ -z \"$d\" ] && [ -n \"${XDG_RUNTIME_DIR:-}\" ] && d=$XDG_RUNTIME_DIR/taskgraph; "
        + "[ -z \"$d\" ] && d=/tmp/taskgraph-$(id -u); "
        + "for f in \"$d\"/*.sock; do [ -S \"$f\" ] && echo \"#sock $f\"; done; true"

    /// The programs in the remote command's output (unknown lines are skipped).
    package static func parse(_ output: String) -> [Program] {
        output.split(whereSeparator: { $0 == "\n" || $0 == "\r\n" }).compactMap { raw in
            let line = String(raw)
            if line.hasPrefix("#sock ") {
                let socket = String(line.dropFirst(6))
                guard socket.hasPrefix("/") else { return nil }
                let pid = AttachSocketName.pid(inName: socket)
                let shown = "\(pid.map(String.init) ?? "?")  ?  \(socket)"
                return Program(pid: pid, socket: socket, line: Sanitizer.clean(shown), answering: true)
            }
            // `PID  NAME  SOCKET  started …` or `PID  ?  SOCKET  not answering`.
            let fields = line.split(separator: "  ", omittingEmptySubsequences: true).map(String.init)
            guard let socket = fields.dropFirst().first(where: { $0.hasPrefix("/") && $0.hasSuffix(".sock") })
            else { return nil }
            let pid = fields.first.flatMap { Int($0) } ?? AttachSocketName.pid(inName: socket)
            return Program(
                pid: pid, socket: socket, line: Sanitizer.clean(line), answering: !line.hasSuffix("not answering"))
        }
    }

    /// The programs `target` names (a pid, or a socket path on the remote machine): those
    /// of that pid, or a path not listed (the viewer then says what the remote end does).
    package static func select(_ target: String, from programs: [Program]) -> [Program] {
        if target.hasPrefix("/") {
            return [
                programs.first { $0.socket == target } ?? Program(pid: nil, socket: target, line: "", answering: true)
            ]
        }
        guard let pid = Int(target) else { return [] }
        return programs.filter { $0.pid == pid }.prefix(1).map { $0 }
    }

    /// A shell word for `sh -c`: the text in single quotes.
    package static func shellQuoted(_ text: String) -> String {
        "'" + text.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "'\\''") + "'"
    }
}
