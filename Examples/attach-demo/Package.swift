// swift-tools-version: 6.1
import PackageDescription

// A program that serves its task graph for `taskview attach` (see the README's "Attach").
let package = Package(
    name: "attach-demo",
    dependencies: [.package(name: "taskgraph", path: "../..")],
    targets: [
        .executableTarget(
            name: "attach-demo",
            dependencies: [.product(name: "TaskGraph", package: "taskgraph")])
    ],
    swiftLanguageModes: [.v6]
)
