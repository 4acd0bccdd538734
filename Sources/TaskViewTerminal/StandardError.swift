#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writes `text` to standard error at once, unbuffered, so a message is never lost behind a
/// curses screen or a buffered stdout. The one stderr writer of the terminal and the CLI.
package func writeStderr(_ text: String) {
    var t = text
    t.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
}
