/// The shipped demos, compiled in so taskview runs them from any directory. The files in
/// demos/ are the only copy: SwiftPM embeds them (`.embedInCode` in Package.swift, through
/// the Scenario/Demos link to demos/, since resources must lie inside the target).
package enum EmbeddedDemos {
    /// (name, JSON text without the file's final newline) in display order; `build` first
    /// (the default). A new demo is a file in demos/, a line in Package.swift and one here.
    package static let all: [(name: String, json: String)] = [
        ("build", text(PackageResources.build_json)),
        ("pipeline", text(PackageResources.pipeline_json)),
        ("flaky", text(PackageResources.flaky_json)),
        ("stress", text(PackageResources.stress_json)),
        ("commands", text(PackageResources.commands_json)),
        ("ci", text(PackageResources.ci_json)),
        ("explain", text(PackageResources.explain_json)),
    ]

    private static func text(_ bytes: [UInt8]) -> String {
        String(decoding: bytes.last == 10 ? bytes.dropLast() : bytes[...], as: UTF8.self)
    }
}
