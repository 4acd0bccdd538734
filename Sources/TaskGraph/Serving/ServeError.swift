/// Why `Graph.serve(at:name:allowCancel:)` could not serve: names the path and the reason.
public struct ServeError: Error, CustomStringConvertible, Sendable {
    /// The socket or directory path concerned.
    public let path: String
    /// What is wrong with it.
    public let reason: String
    /// `cannot serve at PATH: REASON`.
    public var description: String { "cannot serve at \(path): \(reason)" }
}
