// swift-tools-version: 6.1
// The benchmark suite: a separate package, so that OpenCombine (a peer measured here) never
// becomes a dependency of the TaskGraph library or of taskview.
//
//     swift run -c release --package-path Benchmarks taskgraph-bench [--quick] [--only W1,W3]
import PackageDescription

let package = Package(
    name: "taskgraph-benchmarks",
    dependencies: [
        .package(name: "taskgraph", path: ".."),
        .package(url: "https://github.com/OpenCombine/OpenCombine", from: "0.14.0"),
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.3.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.0"),
    ],
    targets: [
        // glibc's mallinfo2(), which Swift's Glibc module does not export.
        .target(name: "CMallocStats"),
        .executableTarget(
            name: "taskgraph-bench",
            dependencies: [
                "CMallocStats",
                .product(name: "TaskGraph", package: "taskgraph"),
                .product(name: "TaskViewCore", package: "taskgraph"),
                .product(name: "TaskViewIO", package: "taskgraph"),
                .product(name: "TaskGraphTracing", package: "taskgraph"),
                .product(name: "OpenCombine", package: "OpenCombine"),
            ]
        ),
        // What Graph.serve costs the program (README.md).
        // What commands as graph nodes cost (README.md).
        .executableTarget(
            name: "commands-bench",
            dependencies: [
                .product(name: "TaskGraph", package: "taskgraph"),
                .product(name: "TaskGraphProcess", package: "taskgraph"),
            ]),
        // What async scopes cost (README.md), against async let, task groups and withSpan.
        .executableTarget(
            name: "scope-bench",
            dependencies: [
                .product(name: "TaskGraph", package: "taskgraph"),
                .product(name: "TaskGraphTracing", package: "taskgraph"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
            ]),
        // What a swift-log call costs through GraphLogHandler (README.md, G1).
        .executableTarget(
            name: "log-bench",
            dependencies: [
                .product(name: "TaskGraph", package: "taskgraph"),
                .product(name: "TaskGraphLogging", package: "taskgraph"),
                .product(name: "Logging", package: "swift-log"),
            ]),
        .executableTarget(
            name: "server-bench",
            dependencies: [
                .product(name: "TaskGraph", package: "taskgraph"),
                .product(name: "TaskGraphTracing", package: "taskgraph"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ]),
        .executableTarget(
            name: "attach-bench",
            dependencies: [
                .product(name: "TaskGraph", package: "taskgraph"),
                .product(name: "TaskViewCore", package: "taskgraph"),
                .product(name: "TaskViewIO", package: "taskgraph"),
            ]),
    ],
    swiftLanguageModes: [.v6]
)
