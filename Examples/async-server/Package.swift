// swift-tools-version: 6.1
import PackageDescription

// A Hummingbird 2 server whose request handlers run their steps in graph scopes, bootstrapped with
// GraphTracer (forwarding to InMemoryTracer), logging through GraphLogHandler, and serving its
// graph for `taskview attach`.
// Its own package, so Hummingbird never becomes a dependency of the library.
let package = Package(
    name: "async-server",
    platforms: [.macOS("15.0")],
    dependencies: [
        .package(name: "taskgraph", path: "../.."),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.7.3"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.0"),
    ],
    targets: [
        .executableTarget(
            name: "async-server",
            dependencies: [
                .product(name: "TaskGraph", package: "taskgraph"),
                .product(name: "TaskGraphTracing", package: "taskgraph"),
                .product(name: "TaskGraphLogging", package: "taskgraph"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
            ]
        )
    ],
    swiftLanguageModes: [.v6]
)
