/// The formats of what a node costs (the `u` columns, the detail pane, the report).
extension Format {
    /// CPU seconds: `0.42s`, `12.3s`, `1m05s`.
    package static func cpuSeconds(_ s: Double) -> String {
        let s = s.isFinite ? max(0, s) : 0
        return s < 9.995 ? fixed(s, decimals: 2) + "s" : duration(s)
    }

    /// CPU time per second of a running node, as a share of one core: `98%`, `195%`.
    package static func cpuPercent(_ rate: Double) -> String {
        let r = rate.isFinite ? max(0, rate) : 0
        return "\(Int((r * 100).rounded()))%"
    }

    /// A size in bytes: `840KiB`, `5.2MiB`, `212MiB`, `1.5GiB`.
    package static func bytes(_ b: Int) -> String {
        let b = Double(max(0, b))
        func unit(_ v: Double, _ name: String) -> String {
            v < 9.95 ? fixed(v, decimals: 1) + name : String(Int64(v.rounded())) + name
        }
        if b < 1024 * 1024 { return String(Int64((b / 1024).rounded())) + "KiB" }
        if b < 1024 * 1024 * 1023.5 { return unit(b / (1024 * 1024), "MiB") }
        return unit(b / (1024 * 1024 * 1024), "GiB")
    }
}
