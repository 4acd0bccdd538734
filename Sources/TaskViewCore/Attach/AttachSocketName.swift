/// What a served graph's socket name says: servers name it `PID.sock`, or `PID-N.sock` for
/// a process's second graph and on (attach.md).
package enum AttachSocketName {
    /// The pid in a socket's name (`PID.sock`, `PID-N.sock`), if it has one.
    package static func pid(inName path: String) -> Int? {
        let file = path.split(separator: "/").last.map(String.init) ?? path
        guard file.hasSuffix(".sock") else { return nil }
        let digits = file.dropLast(5).prefix { $0 != "-" }
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return Int(digits)
    }
}
