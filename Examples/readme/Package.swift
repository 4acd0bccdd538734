// swift-tools-version: 6.1
import PackageDescription

// The README's programs, verbatim, so that every code block in it is built and run
// (Tests/e2e/readme.sh checks the blocks are here and runs them).
let package = Package(
    name: "readme",
    dependencies: [.package(name: "taskgraph", path: "../..")],
    targets: [
        .executableTarget(
            name: "hasher",
            dependencies: [.product(name: "TaskGraph", package: "taskgraph")])
    ],
    swiftLanguageModes: [.v6]
)
